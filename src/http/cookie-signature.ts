import { Buffer } from 'node:buffer';
import { lazy } from './lazy';

// Loaded with the first signature: cookieParser() without a secret and unsigned
// res.cookie() never need it (node:crypto costs 5 to 8 ms and 2.4 MB on Node 26).
const crypto = lazy(() => require('node:crypto') as typeof import('node:crypto'));

/** `value.signature`: an HMAC-SHA256 of the value in unpadded base64 (cookie-signature's format). */
export function sign(value: string, secret: string | Buffer): string {
  if (typeof value !== 'string') throw new TypeError('Cookie value must be provided as a string.');
  if (secret == null) throw new TypeError('Secret key must be provided.');
  return value + '.' + crypto().createHmac('sha256', secret).update(value).digest('base64').replace(/=+$/, '');
}

/**
 * The value of a signed string when its signature is right, else `false`. The
 * comparison takes the same time wherever the strings differ.
 */
export function unsign(signed: string, secret: string | Buffer): string | false {
  if (typeof signed !== 'string') throw new TypeError('Signed cookie string must be provided.');
  if (secret == null) throw new TypeError('Secret key must be provided.');
  const dot = signed.lastIndexOf('.');
  if (dot === -1) return false;
  const value = signed.slice(0, dot);
  const expected = Buffer.from(sign(value, secret));
  const given = Buffer.from(signed);
  return expected.length === given.length && crypto().timingSafeEqual(expected, given) ? value : false;
}
