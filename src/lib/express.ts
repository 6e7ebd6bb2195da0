/// <reference types="node" preserve="true" />
/** `require('express/lib/express')` under an npm alias of express to webapp: the app factory with its members. */
import webapp = require('../index');
export = webapp;
