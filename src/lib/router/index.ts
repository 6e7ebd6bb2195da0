/// <reference types="node" preserve="true" />
/**
 * `require('express/lib/router')` under an npm alias: the Router factory, which is
 * also the prototype of every router (`Router.param`, `Router.use`... are the
 * methods routers inherit, as in Express 4).
 */
import { Router } from '../../router';
export = Router;
