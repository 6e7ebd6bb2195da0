/// <reference types="node" preserve="true" />
/** `require('express/lib/request')` under an npm alias: the request prototype of all apps. */
import { request } from '../request';
export = request;
