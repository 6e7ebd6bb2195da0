/// <reference types="node" preserve="true" />
/**
 * `webapp/middleware`: the connect-style middleware Express 3 bundled, by their
 * 3.x names, usable one by one in 4.x apps and as `webapp/v3`'s members.
 */
import { defineLazyMembers } from '../define-prototype';
import { middlewareLoaders, type MiddlewareBundle } from './bundle';

export type { Middleware, NextFunction, CookieParseOptions, CookieSerializeOptions } from './types';
export type { DirectoryOptions } from './directory';
export type { MultipartOptions, UploadedFile } from './multipart';
export type { BodyParserOptions } from './body-parser';
export type { StaticCacheOptions } from './static-cache';
export type { SessionOptions } from './session';
// The classes `session` carries (`session.MemoryStore`...), by name: a consumer's
// declaration file names an instance's type through them (TS2742 else, for
// `export const store = new session.MemoryStore()` under node16 and later).
export type { Store, MemoryStore, Session, Cookie } from './session';
export type { CsrfOptions, CsrfCookieOptions } from './csrf';

// Declared here, defined below as getters that load each module on first read (see bundle.ts).
export declare const basicAuth: MiddlewareBundle['basicAuth'];
export declare const cookieParser: MiddlewareBundle['cookieParser'];
export declare const logger: MiddlewareBundle['logger'];
export declare const methodOverride: MiddlewareBundle['methodOverride'];
export declare const query: MiddlewareBundle['query'];
export declare const responseTime: MiddlewareBundle['responseTime'];
export declare const timeout: MiddlewareBundle['timeout'];
export declare const vhost: MiddlewareBundle['vhost'];
export declare const cookieSession: MiddlewareBundle['cookieSession'];
export declare const compress: MiddlewareBundle['compress'];
export declare const limit: MiddlewareBundle['limit'];
export declare const favicon: MiddlewareBundle['favicon'];
export declare const json: MiddlewareBundle['json'];
export declare const urlencoded: MiddlewareBundle['urlencoded'];
export declare const errorHandler: MiddlewareBundle['errorHandler'];
export declare const directory: MiddlewareBundle['directory'];
export declare const multipart: MiddlewareBundle['multipart'];
export declare const bodyParser: MiddlewareBundle['bodyParser'];
export declare const staticCache: MiddlewareBundle['staticCache'];
export declare const csrf: MiddlewareBundle['csrf'];
export declare const session: MiddlewareBundle['session'];
// `static` is a reserved word: `export { x as static }` breaks some CommonJS
// transpilers (esbuild writes it as a bare identifier), so it is declared only in
// the published index.d.ts (scripts/build.mjs adds the line).

// On `module.exports` rather than `exports`: a transpiler may assign a new object to
// `module.exports` (esbuild does), which the `exports` variable would not follow.
defineLazyMembers(module.exports, middlewareLoaders);
