/**
 * What a version of the `send` package adds and takes away on its own. Express 4
 * serves files with send 0.19; Express 3.21 and Connect 2.30 with send 0.13, whose
 * answers differ in two ways a client sees: the charset a file's Content-Type gets
 * (its mime 1.3 gives one to `text/*` only), and the headers a 304 keeps (it drops
 * every Content-* header but Content-Location, an app's own ones included).
 */
import type { ServerResponse } from 'node:http';
import { charsetOf, textCharsetOf } from '../http/mime';

export interface SendDialect {
  /** The charset a file of this media type is served with, or false. */
  charsetOf(type: string): string | false;
  /** Takes away the entity headers a 304 answer does not carry. */
  removeContentHeaders(res: ServerResponse): void;
}

/** send 0.19, as Express 4 serves files. */
export const send019: SendDialect = {
  charsetOf,
  removeContentHeaders(res) {
    res.removeHeader('Content-Encoding');
    res.removeHeader('Content-Language');
    res.removeHeader('Content-Length');
    res.removeHeader('Content-Range');
    res.removeHeader('Content-Type');
  },
};

/** send 0.13, as Express 3.21 and Connect 2.30 serve files. */
export const send013: SendDialect = {
  charsetOf: textCharsetOf,
  removeContentHeaders(res) {
    for (const name of res.getHeaderNames()) {
      if (name.startsWith('content-') && name !== 'content-location') res.removeHeader(name);
    }
  },
};
