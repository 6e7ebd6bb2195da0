/// <reference types="node" preserve="true" />
/**
 * `require('webapp/v3')`: the Express 3 API on webapp's maintained core. The
 * export is the app factory with Express 3's members (`application`, `request`,
 * `response`, `Router`, `Route`) and the middleware 3.x bundled.
 */
import { createApp } from '../app-core';
import { defineLazyMembers, defineMembers } from '../define-prototype';
import { deprecate } from '../http/deprecate';
import { application3, type Application3 } from './application';
// For `export import` below: a consumer's declaration file names the app's type as
// `v3.Application` (a type alias would leave it nameable only by a path the `exports`
// map hides: TS2742 for `export const app = v3()` under node16 and later).
import * as ApplicationModule from './application';
import { request3 } from './request';
import { response3 } from './response';
import { Route3, Router3 } from './router';
import * as bundle from '../middleware';
import { middlewareLoaders } from '../middleware/bundle';
import type { serveStatic } from '../static';
import { mime3, type MimeModule } from '../http/mime-module';

function createApplication(): Application3 {
  return createApp<Application3>(application3, request3, response3, (app) => {
    // Connect 2's own state, which the 3.x defaults (their first `use`) already need.
    app.route = '/';
    app.stack = [];
  });
}

function webapp3(): Application3 {
  return createApplication();
}

declare namespace webapp3 {
  export import Application = ApplicationModule.Application3;
  export const application: typeof application3;
  export const request: typeof request3;
  export const response: typeof response3;
  export const Route: typeof Route3;
  export const Router: typeof Router3;
  export const createServer: () => Application3;
  // The middleware Express 3 bundled (Connect's), as members: express.cookieParser() etc.
  export const basicAuth: typeof bundle.basicAuth;
  export const compress: typeof bundle.compress;
  export const cookieParser: typeof bundle.cookieParser;
  export const cookieSession: typeof bundle.cookieSession;
  export const favicon: typeof bundle.favicon;
  export const limit: typeof bundle.limit;
  export const logger: typeof bundle.logger;
  export const methodOverride: typeof bundle.methodOverride;
  export const query: typeof bundle.query;
  export const responseTime: typeof bundle.responseTime;
  export const timeout: typeof bundle.timeout;
  export const vhost: typeof bundle.vhost;
  export const json: typeof bundle.json;
  export const urlencoded: typeof bundle.urlencoded;
  export const errorHandler: typeof bundle.errorHandler;
  export const directory: typeof bundle.directory;
  export const multipart: typeof bundle.multipart;
  export const bodyParser: typeof bundle.bodyParser;
  export const staticCache: typeof bundle.staticCache;
  export const csrf: typeof bundle.csrf;
  export const session: typeof bundle.session;
  const serveStaticHandler: typeof serveStatic;
  export { serveStaticHandler as static };
  export const middleware: typeof bundle;
  /** Connect's `mime` 1.x object: `express.mime.lookup('x.json')`, `express.mime.define({...})`. */
  export const mime: MimeModule;
}

// The bundle's middleware, each loaded on first read, as Connect 2 defined them for Express 3.
defineLazyMembers(webapp3, middlewareLoaders);
defineMembers(webapp3, {
  values: {
    middleware: bundle,
    mime: mime3,
    application: application3,
    request: request3,
    response: response3,
    Route: Route3,
    Router: Router3,
    createServer() {
      deprecate(
        'createServer() is deprecated\nexpress applications no longer inherit from http.Server\nplease use:\n\n' +
          '  var express = require("express");\n  var app = express();\n\n',
      );
      return createApplication();
    },
  },
});

export = webapp3;
