/// <reference types="node" preserve="true" />
/**
 * `require('express/lib/router/layer')` under an npm alias: the Layer constructor,
 * callable without `new` as Express's own route.js calls it, and on an object of an ES5
 * subclass (`Layer.call(this, path, options, fn)`). Its prototype is every layer's: code
 * that patches `Layer.prototype.handle_request` reaches every layer. (express-async-errors
 * defines a `handle` accessor on the prototype; webapp's layers keep `handle` as a
 * field of their own, as their class declares it, so it changes nothing: webapp already
 * sends a handler's rejected promise to the error handlers.)
 */
import { CallableLayer } from '../../router/layer';
export = CallableLayer;
