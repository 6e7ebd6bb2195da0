/// <reference types="node" preserve="true" />
/**
 * `require('express/lib/middleware/init')` under an npm alias: `init(app)`, the
 * `expressInit` middleware Express 4 puts second in every app's router (it links
 * `req` and `res`, gives them the app's prototypes, sets X-Powered-By), as webapp
 * makes it for its own apps.
 */
import { initLayer } from '../../app-core';
import type { Application } from '../../application';

export function init(app: Application) {
  return initLayer(app, () => Object.create(null) as object);
}
