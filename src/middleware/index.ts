/**
 * `webapp/middleware`: the connect-style middleware Express 3 bundled, by their
 * 3.x names, usable one by one in 4.x apps and as `webapp/v3`'s members.
 */
export { basicAuth } from './basic-auth';
export { cookieParser } from './cookie-parser';
export { logger } from './logger';
export { methodOverride } from './method-override';
export { query } from './query';
export { responseTime } from './response-time';
export { timeout } from './timeout';
export { vhost } from './vhost';
export type { Middleware, NextFunction } from './types';
export { cookieSession } from './cookie-session';
export { compress } from './compress';
export { limit } from './limit';
import { serveStatic3 } from './static';
// `static` is a reserved word: `export { x as static }` breaks some CommonJS
// transpilers (esbuild writes it as a bare identifier), so it is attached here;
// scripts/build.mjs adds the matching line to the published index.d.ts.
Object.defineProperty(module.exports, 'static', { enumerable: true, value: serveStatic3 });
export { favicon } from './favicon';
export { json } from './json';
export { urlencoded } from './urlencoded';
export { errorHandler } from './error-handler';
export { directory } from './directory';
export type { DirectoryOptions } from './directory';
export { multipart } from './multipart';
export type { MultipartOptions, UploadedFile } from './multipart';
export { bodyParser } from './body-parser';
export type { BodyParserOptions } from './body-parser';
export { staticCache } from './static-cache';
export type { StaticCacheOptions } from './static-cache';
export { csrf } from './csrf';
export { session } from './session';
export type { SessionOptions } from './session';
export type { CsrfOptions, CsrfCookieOptions } from './csrf';
