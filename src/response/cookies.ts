/**
 * `res.cookie` and `res.clearCookie`. Serialisation (and the validation of
 * names, values and attributes that stops attribute injection, CVE-2024-47764)
 * is the `cookie` package's; here are Express 4's additions: objects as
 * `j:` JSON, `s:` signatures with `req.secret`, `maxAge` giving both Expires and
 * Max-Age, and `/` as the default path.
 */
import type { CookieSerializeOptions } from 'cookie';
import { lazy } from '../http/lazy';
import { sign } from '../http/cookie-signature';
import { deprecate } from '../http/deprecate';

const cookieModule = lazy(() => require('cookie') as typeof import('cookie'));
import type { CookieOptions, Response } from './types';

/** A shallow copy that includes inherited enumerable options (Express merges with `for...in`). */
function copyOptions(target: CookieOptions, options: CookieOptions | undefined): CookieOptions {
  // Options are a plain record here: every enumerable one is copied, known or not.
  if (options)
    for (const key in options) (target as Record<string, unknown>)[key] = (options as Record<string, unknown>)[key];
  return target;
}

/** The cookie value as Express 4 stores it (before signing). */
export function cookieValue(value: unknown): string {
  return typeof value === 'object' ? 'j:' + JSON.stringify(value) : String(value);
}

/**
 * Options as given to the serializer: a numeric `maxAge` (milliseconds) becomes
 * an Expires date and a Max-Age in whole seconds; anything else is left for the
 * serializer to reject. The path defaults to `/`.
 */
export function serializeOptions(options: CookieOptions | undefined, clock: () => number = Date.now): CookieOptions {
  return withMaxAgeAndPath(copyOptions({}, options), clock);
}

/** serializeOptions on options already copied. */
function withMaxAgeAndPath(opts: CookieOptions, clock: () => number = Date.now): CookieOptions {
  if (opts.maxAge != null) {
    const maxAge = (opts.maxAge as unknown as number) - 0;
    if (!Number.isNaN(maxAge)) {
      // The clock only when needed: reading it is a call into the runtime.
      opts.expires = new Date(clock() + maxAge);
      opts.maxAge = Math.floor(maxAge / 1000);
    }
  }
  if (opts.path == null) opts.path = '/';
  return opts;
}

const CLEAR_DEPRECATION =
  'In v5.0.0 of Express, this option will be ignored, as res.clearCookie will automatically set cookies ' +
  'to expire immediately. Please update your code to omit this option.';

export const cookieMethods = {
  cookie(this: Response, name: string, value: unknown, options?: CookieOptions) {
    // Every option is read from the copy, `signed` too: options parsed from JSON with an
    // own `__proto__` key give the copy that prototype, whose `signed` then counts, as in Express.
    const copied = copyOptions({}, options);
    const secret = this.req.secret;
    const signed = copied.signed;
    if (signed && !secret) throw new Error('cookieParser("secret") required for signed cookies');

    let val = cookieValue(value);
    if (signed) val = 's:' + sign(val, secret as string);

    const opts = withMaxAgeAndPath(copied);
    this.append('Set-Cookie', cookieModule().serialize(name, val, opts as CookieSerializeOptions));
    return this;
  },

  /**
   * Expires the cookie: Expires at the epoch and path `/` unless the options say
   * otherwise. Express 4.22 still applies a given `maxAge`/`expires` (with a
   * deprecation), so this does too.
   */
  clearCookie(this: Response, name: string, options?: CookieOptions) {
    if (options) {
      if (options.maxAge) deprecate('res.clearCookie: Passing "options.maxAge" is deprecated. ' + CLEAR_DEPRECATION);
      if (options.expires) deprecate('res.clearCookie: Passing "options.expires" is deprecated. ' + CLEAR_DEPRECATION);
    }
    const opts = copyOptions({ expires: new Date(1), path: '/' }, options);
    return this.cookie(name, '', opts);
  },
};
