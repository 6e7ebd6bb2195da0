/**
 * The middleware of `webapp/middleware`, which `webapp/v3` also carries as the
 * members Express 3 took from Connect 2: each name with the loader of its module.
 * Why loaders: an app using `cookieParser` should not load multipart, sessions,
 * the directory listing and the MIME database with it (the whole bundle is about
 * 80 modules); as in Connect 2, each member loads on first read.
 */
export const middlewareLoaders = {
  basicAuth: () => (require('./basic-auth') as typeof import('./basic-auth')).basicAuth,
  cookieParser: () => (require('./cookie-parser') as typeof import('./cookie-parser')).cookieParser,
  logger: () => (require('./logger') as typeof import('./logger')).logger,
  methodOverride: () => (require('./method-override') as typeof import('./method-override')).methodOverride,
  query: () => (require('./query') as typeof import('./query')).query,
  responseTime: () => (require('./response-time') as typeof import('./response-time')).responseTime,
  timeout: () => (require('./timeout') as typeof import('./timeout')).timeout,
  vhost: () => (require('./vhost') as typeof import('./vhost')).vhost,
  cookieSession: () => (require('./cookie-session') as typeof import('./cookie-session')).cookieSession,
  compress: () => (require('./compress') as typeof import('./compress')).compress,
  limit: () => (require('./limit') as typeof import('./limit')).limit,
  static: () => (require('./static') as typeof import('./static')).serveStatic3,
  favicon: () => (require('./favicon') as typeof import('./favicon')).favicon,
  json: () => (require('./json') as typeof import('./json')).json,
  urlencoded: () => (require('./urlencoded') as typeof import('./urlencoded')).urlencoded,
  errorHandler: () => (require('./error-handler') as typeof import('./error-handler')).errorHandler,
  directory: () => (require('./directory') as typeof import('./directory')).directory,
  multipart: () => (require('./multipart') as typeof import('./multipart')).multipart,
  bodyParser: () => (require('./body-parser') as typeof import('./body-parser')).bodyParser,
  staticCache: () => (require('./static-cache') as typeof import('./static-cache')).staticCache,
  csrf: () => (require('./csrf') as typeof import('./csrf')).csrf,
  session: () => (require('./session') as typeof import('./session')).session,
};

/** The bundle's members by name, as their modules export them. */
export type MiddlewareBundle = {
  [Name in keyof typeof middlewareLoaders]: ReturnType<(typeof middlewareLoaders)[Name]>;
};
