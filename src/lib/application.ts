/// <reference types="node" preserve="true" />
/** `require('express/lib/application')` under an npm alias: the prototype every app is made from. */
import { application } from '../application';
export = application;
