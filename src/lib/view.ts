/// <reference types="node" preserve="true" />
/** `require('express/lib/view')` under an npm alias: the View class behind `app.set('view', ...)`. */
import { View } from '../view';
export = View;
