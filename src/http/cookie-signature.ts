import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';

/** `value.signature`: an HMAC-SHA256 of the value in unpadded base64 (cookie-signature's format). */
export function sign(value: string, secret: string | Buffer): string {
  if (typeof value !== 'string') throw new TypeError('Cookie value must be provided as a string.');
  if (secret == null) throw new TypeError('Secret key must be provided.');
  return value + '.' + createHmac('sha256', secret).update(value).digest('base64').replace(/=+$/, '');
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
  return expected.length === given.length && timingSafeEqual(expected, given) ? value : false;
}
