/// <reference types="node" preserve="true" />
/** `require('express/lib/response')` under an npm alias: the response prototype of all apps. */
import { response } from '../response';
export = response;
