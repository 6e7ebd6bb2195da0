/**
 * `favicon([path], [options])`: answers `/favicon.ico` from memory (read once),
 * with `Cache-Control: public, max-age` (`maxAge`, default and at most one
 * year), an ETag and 304s; other methods than GET/HEAD get 405 (OPTIONS 200)
 * with `Allow`. Without a path a blank built-in icon is served.
 */
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readFile, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { isFresh03 } from '../http/fresh';
import { parseMsLegacy } from '../http/ms';
import { parseUrl } from '../http/parse-url';
import type { Middleware } from './types';
import { answerFromCallback } from './answer-from-callback';
import { refuseWriteMethods } from './read-only-methods';
import { named } from '../named';

export interface FaviconOptions {
  maxAge?: number | string;
}

const ONE_YEAR = 60 * 60 * 24 * 365 * 1000;

interface Icon {
  body: Buffer;
  headers: Record<string, string>;
}

/** A 16x16 fully transparent icon (ICO header, one entry, a 32-bit BMP and its mask). */
function blankIcon(): Buffer {
  const size = 16;
  const pixels = size * size * 4;
  const mask = size * 4; // 1 bit per pixel, rows padded to 32 bits
  const bmpLength = 40 + pixels + mask;
  const ico = Buffer.alloc(6 + 16 + bmpLength);
  ico.writeUInt16LE(1, 2); // type: icon
  ico.writeUInt16LE(1, 4); // one image
  ico.writeUInt8(size, 6);
  ico.writeUInt8(size, 7);
  ico.writeUInt16LE(1, 10); // planes
  ico.writeUInt16LE(32, 12); // bits per pixel
  ico.writeUInt32LE(bmpLength, 14);
  ico.writeUInt32LE(22, 18); // image offset
  ico.writeUInt32LE(40, 22); // BITMAPINFOHEADER size
  ico.writeInt32LE(size, 26);
  ico.writeInt32LE(size * 2, 30); // height counts the mask too
  ico.writeUInt16LE(1, 34);
  ico.writeUInt16LE(32, 36);
  return ico;
}

function maxAgeOf(value: number | string | undefined): number {
  // Connect's favicon hands a string to `ms` 0.7, which throws for the empty one.
  if (value === '') throw new Error('val is not a non-empty string or a valid number. val=""');
  const ms = typeof value === 'string' ? parseMsLegacy(value) : value;
  return ms != null ? Math.min(Math.max(0, ms), ONE_YEAR) : ONE_YEAR;
}

/**
 * The ETag 3.x gave the icon (etag 1.7: length and unpadded base64 MD5), kept so
 * browsers holding a 3.x app's validator still get 304s. A validator, not a secret.
 */
function iconTag(body: Buffer): string {
  return (
    '"' + body.length.toString(16) + '-' + createHash('md5').update(body).digest('base64').replace(/=+$/, '') + '"'
  );
}

function createIcon(body: Buffer, maxAge: number): Icon {
  return { body, headers: { 'Cache-Control': 'public, max-age=' + Math.floor(maxAge / 1000), ETag: iconTag(body) } };
}

function send(req: IncomingMessage, res: ServerResponse, icon: Icon): void {
  for (const name of Object.keys(icon.headers)) res.setHeader(name, icon.headers[name]);
  if (isFresh03(req.headers, res.getHeaders())) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Length', icon.body.length);
  res.setHeader('Content-Type', 'image/x-icon');
  res.end(icon.body);
}

export function favicon(path?: string | Buffer, options: FaviconOptions = {}): Middleware {
  const maxAge = maxAgeOf(options.maxAge);
  let icon: Icon | undefined;
  let file: string | undefined;
  if (path === undefined || path === null || path === '') {
    icon = createIcon(blankIcon(), maxAge);
  } else if (Buffer.isBuffer(path)) {
    icon = createIcon(Buffer.from(path), maxAge);
  } else if (typeof path === 'string') {
    file = resolve(path);
    if (statSync(file).isDirectory()) {
      throw Object.assign(new Error("EISDIR, illegal operation on directory '" + file + "'"), {
        code: 'EISDIR',
        errno: 28,
        path: file,
        syscall: 'open',
      });
    }
  } else {
    throw new TypeError('path to favicon.ico must be string or buffer');
  }

  return named('favicon', function (req, res, next) {
    if (parseUrl(req)?.pathname !== '/favicon.ico') return next();
    if (refuseWriteMethods(req, res)) return;
    if (icon) return send(req, res, icon);
    readFile(file as string, (err, body) => {
      if (err) return next(err);
      const loaded = createIcon(body, maxAge);
      icon = loaded;
      answerFromCallback(res, next, () => send(req, res, loaded));
    });
  });
}
