/// <reference types="node" preserve="true" />
/**
 * `require('express/lib/router/layer')` under an npm alias: the Layer class. Code that
 * patches `Layer.prototype.handle_request` reaches every layer. (express-async-errors
 * defines a `handle` accessor on the prototype; webapp's layers keep `handle` as a
 * field of their own, as their class declares it, so it changes nothing: webapp already
 * sends a handler's rejected promise to the error handlers.)
 */
import { Layer } from '../../router/layer';
export = Layer;
