/// <reference types="node" preserve="true" />
/**
 * `require('express/lib/router/route')` under an npm alias: the Route constructor, also
 * callable on an object of an ES5 subclass (`ExpressRoute.call(this, path)`), as
 * Express's plain function is.
 */
import { CallableRoute } from '../../router/route';
export = CallableRoute;
