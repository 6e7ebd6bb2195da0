/**
 * CSRF secrets and tokens in the `csrf` package's format, so a token made by
 * Connect 2's csrf (csurf on csrf 3.x) verifies here and the other way round:
 * a token is `salt-hash`, where hash is the url-safe unpadded base64 SHA-1 of
 * `salt-secret`. A fresh salt per token keeps tokens from repeating (BREACH).
 */
import { Buffer } from 'node:buffer';
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

export interface TokenOptions {
  /** Characters of salt per token (default 8). */
  saltLength?: number;
  /** Random bytes per secret (default 18, 24 characters). */
  secretLength?: number;
}

const SALT_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function positiveLength(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1) {
    throw new TypeError('option ' + name + ' must be finite number > 1');
  }
  return value;
}

/** url-safe unpadded base64 SHA-1; `latin1` reads the string byte per code unit as the csrf package's `ascii` does. */
function hash(text: string): string {
  return createHash('sha1').update(text, 'latin1').digest('base64url');
}

function tokenize(secret: string, salt: string): string {
  return salt + '-' + hash(salt + '-' + secret);
}

export class CsrfTokens {
  readonly saltLength: number;
  readonly secretLength: number;

  constructor(options?: TokenOptions) {
    this.saltLength = positiveLength(options?.saltLength, 8, 'saltLength');
    this.secretLength = positiveLength(options?.secretLength, 18, 'secretLength');
  }

  /** A new random secret, url-safe base64. */
  secret(): string {
    return randomBytes(this.secretLength).toString('base64url');
  }

  /** A new token for `secret`, with a fresh salt from a cryptographic source (the csrf package used Math.random). */
  create(secret: string): string {
    if (!secret || typeof secret !== 'string') throw new TypeError('argument secret is required');
    let salt = '';
    for (let i = 0; i < this.saltLength; i++) salt += SALT_CHARS[randomInt(SALT_CHARS.length)];
    return tokenize(secret, salt);
  }

  /** Whether `token` was made for `secret`; the comparison time does not depend on where they differ. */
  verify(secret: unknown, token: unknown): boolean {
    if (!secret || typeof secret !== 'string') return false;
    if (!token || typeof token !== 'string') return false;
    const dash = token.indexOf('-');
    if (dash === -1) return false;
    const expected = Buffer.from(tokenize(secret, token.slice(0, dash)));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
