/**
 * Express 3's ETags (etag 1.7): MD5 of the body in unpadded base64. Kept so that
 * clients and caches holding a 3.x app's validators keep getting 304s after the
 * switch to webapp/v3. (An ETag is a cache validator, not a security boundary.)
 */
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { chooseETag, type ETagFunction } from '../settings';

function entityTag3(body: Buffer): string {
  if (body.length === 0) return '"0-1B2M2Y8AsgTpgAmY7PhCfg"';
  const hash = createHash('md5').update(body).digest('base64').replace(/=+$/, '');
  return `"${body.length.toString(16)}-${hash}"`;
}

function generator(weak: boolean): ETagFunction {
  return (body, encoding) => {
    const tag = entityTag3(Buffer.isBuffer(body) ? body : Buffer.from(body, encoding));
    return weak ? 'W/' + tag : tag;
  };
}

const weak3 = generator(true);
const strong3 = generator(false);

/** The 3.x `etag` setting: true/'weak', 'strong', false, or a function. */
export function compileETag3(value: unknown): ETagFunction | undefined {
  return chooseETag(value, weak3, strong3);
}
