/**
 * The response (`res`), the options of its methods, and those of
 * `webapp.static` (whose `setHeaders` receives the response).
 */
import type * as http from 'node:http';
import type { ServeStaticOptions as StaticCoreOptions } from '../static';
import type { Locals, Errback } from './handlers';
import type { Request } from './request';
import type { Application } from './application';
import type { CoreResponseAdditions } from './core-augmentations';

/**
 * The options of `res.cookie` and `res.clearCookie`, as @types/express declares
 * them: an options object typed here is accepted by express-session's `cookie`
 * and by functions typed with @types/express's `CookieOptions`. (At run time,
 * `sameSite` and `priority` are also read in any letter case, as the cookie
 * package reads them.)
 */
export interface CookieOptions {
  maxAge?: number | undefined;
  signed?: boolean | undefined;
  expires?: Date | undefined;
  httpOnly?: boolean | undefined;
  path?: string | undefined;
  domain?: string | undefined;
  secure?: boolean | undefined;
  encode?: ((val: string) => string) | undefined;
  sameSite?: boolean | 'lax' | 'strict' | 'none' | undefined;
  // Without `| undefined`, as in @types/express, so that under
  // exactOptionalPropertyTypes these options are still assignable to its.
  priority?: 'low' | 'medium' | 'high';
  partitioned?: boolean | undefined;
}

/**
 * The options of `res.sendFile` and `res.download`: send's, as @types/send types them
 * (`extensions: true` is accepted by the type and throws when used, as in send), so
 * that an options object typed with either typing is accepted by the other.
 */
export interface SendOptions {
  acceptRanges?: boolean | undefined;
  cacheControl?: boolean | undefined;
  dotfiles?: 'allow' | 'deny' | 'ignore' | undefined;
  /** Byte offset to stop at (inclusive). */
  end?: number | undefined;
  etag?: boolean | undefined;
  extensions?: string[] | string | boolean | undefined;
  immutable?: boolean | undefined;
  index?: string[] | string | boolean | undefined;
  lastModified?: boolean | undefined;
  maxAge?: string | number | undefined;
  root?: string | undefined;
  /** Byte offset to start at. */
  start?: number | undefined;
}

export interface SendFileOptions extends SendOptions {
  /** Headers to serve with the file. */
  headers?: Record<string, unknown>;
}

export interface DownloadOptions extends SendOptions {
  /** Headers to serve with the file; Content-Disposition is set from the file name. */
  headers?: Record<string, unknown>;
}

/**
 * Options of `webapp.static(root, options)`. `setHeaders` receives webapp's
 * response (as `express.static`'s receives Express's), so `res.set` is typed.
 */
export interface ServeStaticOptions<R extends http.ServerResponse = Response> extends Omit<
  StaticCoreOptions,
  'setHeaders' | 'dotfiles' | 'index'
> {
  /**
   * `'allow'`, `'deny'` or `'ignore'`; any other value throws when the middleware
   * is made. Typed `string`, as in @types/serve-static, so that an options object
   * typed with its `ServeStaticOptions` is accepted as by `express.static`.
   */
  dotfiles?: string | undefined;
  /**
   * Index files for directory paths ending in `/`; false disables. `true` throws
   * when the middleware is made (as in serve-static), but is typed as
   * @types/serve-static types it, for the same reason as `dotfiles`.
   */
  index?: boolean | string | string[] | undefined;
  /**
   * Called as `setHeaders(res, path, stat)` before the file's headers are sent;
   * `stat` is the file's `fs.Stats`, typed `any` as @types/serve-static types it, so
   * that a callback written against it (which may treat `stat` as anything) compiles here too.
   */
  setHeaders?: ((res: R, path: string, stat: any) => any) | undefined;
}

/** The callback of `res.render` and `app.render`: the error, or the rendered HTML. */
export type RenderCallback = (err: Error | null, html?: string) => void;

/**
 * `res.send`, `res.json` and `res.jsonp`: @types/express's `(body?: ResBody) => T`,
 * then the same with the body required, the signature TypeScript reads for `.call`,
 * `.apply`, `Parameters<...>` and inference. A helper typed against @types/express that
 * infers the body type from the handler it must return (express-async-handler) matches
 * its `Response` with webapp's member by member, and from the optional parameter alone
 * infers `undefined`, after which `res.json(...)` takes nothing else; from the required
 * one it infers `any`, as with @types/express. Both take one argument, so that a
 * wrapper's `original.call(this, body)` and `jest.fn<Response['json']>()` fit as with
 * @types/express; but what reads the last signature alone sees the body required:
 * `res.json.call(res)`, `res.send.apply(res, [])` and `Parameters<Response['send']>`
 * as `[]` do not compile (no order or form of the optional signature kept the
 * inference `any`: it is `undefined` whenever the last signature's body is optional).
 * A wrong body is "No overload matches this call" (TS2769), with the
 * mismatch named below it, where @types/express reports the mismatch alone (TS2322,
 * TS2353). Express 4's deprecated `res.json(body, status)` is refused, as there.
 */
export type Send<ResBody = any, T = Response<ResBody>> = {
  (body?: ResBody): T;
  (body: ResBody): T;
};

/**
 * The response, as handlers receive it. Its members are declared on
 * `CoreResponse` and inherited, as @types/express's `Response` inherits them from
 * express-serve-static-core's, so that an augmentation of `Response` may redeclare
 * one with a narrower type, as it may there (see `Request`); and what an app adds to
 * express-serve-static-core's `Response` is inherited too.
 */
export interface Response<
  ResBody = any,
  LocalsObj extends Record<string, any> = Record<string, any>,
  StatusCode extends number = number,
>
  extends CoreResponse<ResBody, LocalsObj, StatusCode>, CoreResponseAdditions {}

/** The members of `Response` (express-serve-static-core's `Response` to @types/express's). */
export interface CoreResponse<
  ResBody = any,
  LocalsObj extends Record<string, any> = Record<string, any>,
  StatusCode extends number = number,
>
  extends http.ServerResponse {
  /**
   * Sets the status code; chainable.
   * @example
   * res.status(404).send('Not found');
   */
  status(code: StatusCode): this;
  /**
   * Sets the status code and sends its text as the body.
   * @example
   * res.sendStatus(204);
   */
  sendStatus(code: StatusCode): this;
  /**
   * Adds the given URLs to the Link header, by relation.
   * @example
   * res.links({ next: '/users?page=2', last: '/users?page=5' });
   */
  links(links: any): this;

  /**
   * Sends the body: a string (HTML by default), a Buffer (octet-stream), or an
   * object or array (as JSON). Sets Content-Length and ETag, and answers 304 when
   * the request is fresh.
   * @example
   * res.send('<p>hello</p>');
   */
  send: Send<ResBody, this>;
  /**
   * Sends `body` as JSON (the app's `json replacer` and `json spaces` apply).
   * @example
   * res.json({ ok: true });
   */
  json: Send<ResBody, this>;
  /**
   * Sends `body` as JSON, wrapped in the callback named by the `callback` query
   * parameter when there is one.
   * @example
   * res.jsonp({ user: 'tobi' });
   */
  jsonp: Send<ResBody, this>;

  /**
   * Streams the file at `path` (absolute, or relative to `options.root`), with
   * Content-Type, caching headers and Range support; `fn` gets any error.
   * @example
   * res.sendFile('report.pdf', { root: '/srv/files' }, (err) => err && next(err));
   */
  sendFile(path: string, fn?: Errback): void;
  sendFile(path: string, options: SendFileOptions, fn?: Errback): void;
  /**
   * Express 3's file sender.
   * @deprecated use `res.sendFile`.
   * @example
   * res.sendfile('/srv/files/report.pdf');
   */
  sendfile(path: string): void;
  /** @deprecated use `res.sendFile`. */
  sendfile(path: string, options: SendFileOptions): void;
  /** @deprecated use `res.sendFile`. */
  sendfile(path: string, fn: Errback): void;
  /** @deprecated use `res.sendFile`. */
  sendfile(path: string, options: SendFileOptions, fn: Errback): void;

  /**
   * Sends the file as an attachment (Content-Disposition), under `filename` when given.
   * @example
   * res.download('/srv/files/report.pdf', 'report-2024.pdf');
   */
  download(path: string, fn?: Errback): void;
  download(path: string, filename: string, fn?: Errback): void;
  download(path: string, filename: string, options: DownloadOptions, fn?: Errback): void;

  /**
   * Alias of `res.type`: sets Content-Type from a MIME type or an extension.
   * @example
   * res.contentType('json');
   */
  contentType(type: string): this;
  /**
   * Sets Content-Type from a MIME type or an extension (`html`, `.png`).
   * @example
   * res.type('png').send(buffer);
   */
  type(type: string): this;
  /**
   * Answers with the handler of the best type for the Accept header (`default`
   * when none matches, else 406).
   * @example
   * res.format({ html: () => res.send('<p>hi</p>'), json: () => res.json({ msg: 'hi' }) });
   */
  format(obj: any): this;
  /**
   * Sets Content-Disposition to attachment (with the file name) and Content-Type
   * from its extension.
   * @example
   * res.attachment('logo.png');
   */
  attachment(filename?: string): this;

  /**
   * Sets a header, or several from an object; an array value sends the header
   * several times.
   * @example
   * res.set('Cache-Control', 'no-store').set({ 'X-Frame-Options': 'DENY' });
   */
  set(field: any): this;
  set(field: string, value?: string | string[]): this;
  /**
   * Alias of `res.set`.
   * @example
   * res.header('X-Request-Id', id);
   */
  header(field: any): this;
  header(field: string, value?: string | string[]): this;

  headersSent: boolean;

  /**
   * A response header already set.
   * @example
   * const type = res.get('Content-Type');
   */
  get(field: string): string | undefined;

  /**
   * Expires the cookie `name` (give the same path and domain it was set with).
   * @example
   * res.clearCookie('session', { path: '/admin' });
   */
  clearCookie(name: string, options?: CookieOptions): this;
  /**
   * Sets a cookie; an object value is stored as `j:` JSON, `signed` signs it with
   * the cookie-parser secret, `maxAge` (ms) sets Expires and Max-Age.
   * @example
   * res.cookie('theme', 'dark', { httpOnly: true, maxAge: 86_400_000 });
   */
  cookie(name: string, val: string, options: CookieOptions): this;
  cookie(name: string, val: any, options: CookieOptions): this;
  cookie(name: string, val: any): this;

  /**
   * Sets the Location header (`back` is the Referer, or `/`).
   * @example
   * res.location('/login').sendStatus(302);
   */
  location(url: string): this;

  /**
   * Redirects to `url` with 302, or the given status; the body depends on Accept.
   * @example
   * res.redirect(301, '/new-home');
   */
  redirect(url: string): void;
  redirect(status: number, url: string): void;
  /** @deprecated use `res.redirect(status, url)`. */
  redirect(url: string, status: number): void;

  /**
   * Renders the view with the app's engine and sends the HTML, or passes it to
   * `callback`.
   * @example
   * res.render('profile', { user }, (err, html) => (err ? next(err) : res.send(html)));
   */
  render(view: string, options?: object, callback?: (err: Error, html: string) => void): void;
  render(view: string, callback?: (err: Error, html: string) => void): void;

  locals: LocalsObj & Locals;

  charset: string;

  /**
   * Adds `field` to the Vary header unless it is already there.
   * @example
   * res.vary('Accept-Language');
   */
  vary(field: string): this;

  app: Application;

  /**
   * Appends a value to a header (creating it when absent).
   * @example
   * res.append('Set-Cookie', 'a=1; Path=/');
   */
  append(field: string, value?: string[] | string): this;

  req: Request;
}
