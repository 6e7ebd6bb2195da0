/**
 * The Set-Cookie value of 3.x's `res.cookie`, as Express 3.21 (with cookie 0.1.3)
 * wrote it: options read through the prototype chain, `maxAge` in seconds as
 * computed (`Max-Age=1.5`, `Max-Age=Infinity`), an Expires that is not a date
 * written as `Invalid Date`, and 3.21's errors for a `maxAge` that is not a number
 * or an `expires` that is not a Date.
 *
 * Security fixes over 3.21, which wrote every piece as given: a name that is not a
 * cookie token (the empty name aside), a Domain or Path outside its grammar, and a
 * value its `encode` left with `;` or control characters all throw, so nothing taken
 * from the request can add attributes or cookies (docs/migrating-from-express-3.md).
 */
import cookie from 'cookie';
import { sign } from '../http/cookie-signature';

type Options = Record<string, unknown>;

/** RFC 6265's cookie-name: an RFC 7230 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 6265's cookie-value: cookie-octets, optionally in double quotes. */
const COOKIE_VALUE = /^("?)[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*\1$/;
/** RFC 1034's subdomain, with the leading dot RFC 6265 tolerates. */
const DOMAIN = /^\.?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
/** RFC 6265's path-value: any character but controls and `;`. */
const PATH = /^[\x20-\x3a\x3c-\x7e]*$/;

/**
 * 3.x's `res.cookie(name, value, options)` header: the options copied with what they
 * inherit (utils-merge's `for...in`), a number value as its text, an object as `j:`
 * JSON, signed with `secret` when `signed`; `maxAge` (milliseconds) sets Expires from now.
 */
export function cookie3(name: unknown, value: unknown, options: unknown, secret: unknown): string {
  const opts: Options = {};
  for (const key in options as Options) opts[key] = (options as Options)[key];
  if (opts.signed && !secret) throw new Error('connect.cookieParser("secret") required for signed cookies');
  let val = value;
  if (typeof val === 'number') val = val.toString();
  if (typeof val === 'object') val = 'j:' + JSON.stringify(val);
  // Not String(val): a signed `true` or undefined is a TypeError, as in 3.21.
  if (opts.signed) val = 's:' + sign(val as string, secret as string);
  if ('maxAge' in opts) {
    // 3.21 did the arithmetic on whatever maxAge held ('1000' gives an Invalid Date).
    const maxAge = opts.maxAge as number;
    opts.expires = new Date(Date.now() + maxAge);
    opts.maxAge = maxAge / 1000;
  }
  if (opts.path == null) opts.path = '/';
  return serialize3(name, String(val), opts);
}

function serialize3(name: unknown, value: string, opts: Options): string {
  const encode = (opts.encode || encodeURIComponent) as (value: string) => unknown;
  const encoded = String(encode(value));
  const nameText = String(name);
  if (nameText !== '' && !TOKEN.test(nameText)) throw new TypeError('argument name is invalid');
  if (!COOKIE_VALUE.test(encoded)) throw new TypeError('argument val is invalid');
  let header = nameText + '=' + encoded;
  if (opts.maxAge != null) {
    const maxAge = (opts.maxAge as number) - 0;
    if (Number.isNaN(maxAge)) throw new Error('maxAge should be a Number');
    header += '; Max-Age=' + maxAge;
  }
  if (opts.domain) {
    if (!DOMAIN.test(String(opts.domain))) throw new TypeError('option domain is invalid');
    header += '; Domain=' + String(opts.domain);
  }
  if (opts.path) {
    if (!PATH.test(String(opts.path))) throw new TypeError('option path is invalid');
    header += '; Path=' + String(opts.path);
  }
  if (opts.expires) header += '; Expires=' + utcString(opts.expires);
  if (opts.httpOnly) header += '; HttpOnly';
  if (opts.secure) header += '; Secure';
  return header + laterAttributes(opts);
}

/** `expires.toUTCString()` as 3.21 called it: `Invalid Date` for one, a TypeError without the method. */
function utcString(expires: unknown): string {
  const toUTCString = (expires as { toUTCString?: unknown }).toUTCString;
  if (typeof toUTCString !== 'function') throw new TypeError('opt.expires.toUTCString is not a function');
  return String(toUTCString.call(expires));
}

/**
 * Attributes 3.21 did not know (`partitioned`, `priority`, `sameSite`), added as
 * webapp's 4.x API adds them, after the ones 3.21 wrote: an app moved to webapp/v3
 * that asks for SameSite gets it.
 */
function laterAttributes(opts: Options): string {
  if (!opts.partitioned && !opts.priority && !opts.sameSite) return '';
  const { partitioned, priority, sameSite } = opts;
  return cookie.serialize('a', '', { partitioned, priority, sameSite } as cookie.CookieSerializeOptions).slice(2);
}
