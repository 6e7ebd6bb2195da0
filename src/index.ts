/**
 * `require('webapp')`: the 4.x API. The export is the app factory itself, with
 * Express 4's members (`application`, `request`, `response`, `Router`, `Route`,
 * `json`, `raw`, `text`, `urlencoded`, `static`, `query`), so
 * `const express = require('webapp')` works wherever Express 4 did.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction } from './router/layer';
import { application, mixin, type Application } from './application';
import { request as requestPrototype } from './request';
import { response as responsePrototype } from './response';
import { Router as RouterFactory, Route as RouteClass } from './router';
import { serveStatic } from './static';
import bodyParser = require('./body-parser');
import { query } from './query';

function createApplication(): Application {
  const app = function app(req: IncomingMessage, res: ServerResponse, next?: NextFunction) {
    (app as Application).handle(req, res, next);
  } as Application;
  mixin(app, EventEmitter.prototype);
  mixin(app, application);
  const own = { configurable: true, enumerable: true, writable: true, value: app };
  app.request = Object.create(requestPrototype, { app: own });
  app.response = Object.create(responsePrototype, { app: own });
  app.init();
  return app;
}

/**
 * Express 4 throws a helpful error when a middleware bundled by 3.x is used from
 * the 4.x export; webapp keeps that, and points to where webapp ships them.
 */
const REMOVED_MIDDLEWARE = [
  'bodyParser', 'compress', 'cookieSession', 'session', 'logger', 'cookieParser', 'favicon', 'responseTime',
  'errorHandler', 'timeout', 'methodOverride', 'vhost', 'csrf', 'directory', 'limit', 'multipart', 'staticCache',
];

/** The factory: `webapp()` returns a new application. */
function webapp(): Application {
  return createApplication();
}

// The public types travel with the CommonJS export (`export =`), so both
// `import webapp from 'webapp'` and `import { Router } from 'webapp'` type-check.
declare namespace webapp {
  export type Application = import('./application').Application;
  export type RouterOptions = import('./router').RouterOptions;
  export const application: typeof import('./application').application;
  export const request: object;
  export const response: object;
  export const Route: typeof RouteClass;
  export const Router: typeof RouterFactory;
  export { serveStatic as static };
  export const query: typeof import('./query').query;
  export const json: typeof bodyParser.json;
  export const raw: typeof bodyParser.raw;
  export const text: typeof bodyParser.text;
  export const urlencoded: typeof bodyParser.urlencoded;
}

Object.assign(webapp, {
  application,
  request: requestPrototype,
  response: responsePrototype,
  Route: RouteClass,
  Router: RouterFactory,
  static: serveStatic,
  query,
  json: bodyParser.json,
  raw: bodyParser.raw,
  text: bodyParser.text,
  urlencoded: bodyParser.urlencoded,
});

for (const name of REMOVED_MIDDLEWARE) {
  Object.defineProperty(webapp, name, {
    configurable: true,
    get() {
      throw new Error(
        'Most middleware (like ' + name + ') is no longer bundled with webapp 4.x and must be installed separately, ' +
          "or taken from 'webapp/middleware'. Please see https://github.com/senchalabs/connect#middleware.",
      );
    },
  });
}

export = webapp;
