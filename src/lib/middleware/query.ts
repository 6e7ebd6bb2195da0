/// <reference types="node" preserve="true" />
/**
 * `require('express/lib/middleware/query')` under an npm alias: Express 4's query
 * middleware factory, which it also exports as `express.query`.
 */
import webapp = require('../../index');
export = webapp.query;
