/// <reference types="node" preserve="true" />
/** `require('express/lib/router/route')` under an npm alias: the Route class. */
import { Route } from '../../router/route';
export = Route;
