/**
 * `require('webapp/v3')`: the Express 3 API on webapp's maintained core. The
 * export is the app factory with Express 3's members (`application`, `request`,
 * `response`, `Router`, `Route`) and the middleware 3.x bundled.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mixin } from '../application';
import { deprecate } from '../http/deprecate';
import type { NextFunction } from '../router/layer';
import { application3, type Application3 } from './application';
import { request3 } from './request';
import { response3 } from './response';
import { Route3, Router3 } from './router';

function createApplication(): Application3 {
  const app = function app(req: IncomingMessage, res: ServerResponse, next?: NextFunction) {
    (app as Application3).handle(req, res, next);
  } as Application3;
  mixin(app, application3);
  mixin(app, EventEmitter.prototype);
  app.route = '/';
  app.stack = [];
  const own = { configurable: true, enumerable: true, writable: true, value: app };
  app.request = Object.create(request3, { app: own });
  app.response = Object.create(response3, { app: own });
  app.init();
  return app;
}

function webapp3(): Application3 {
  return createApplication();
}

declare namespace webapp3 {
  export type Application = Application3;
  export const application: typeof application3;
  export const request: typeof request3;
  export const response: typeof response3;
  export const Route: typeof Route3;
  export const Router: typeof Router3;
  export const createServer: () => Application3;
}

Object.assign(webapp3, {
  application: application3,
  request: request3,
  response: response3,
  Route: Route3,
  Router: Router3,
  createServer() {
    deprecate('createServer() is deprecated\nexpress applications no longer inherit from http.Server\nplease use:\n\n  var express = require("express");\n  var app = express();\n');
    return createApplication();
  },
});

export = webapp3;
