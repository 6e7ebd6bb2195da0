/**
 * `res.location` and `res.redirect`. The Location value is percent-encoded
 * without double-encoding existing escapes (encodeurl 2, which is also what
 * closed the open redirect of CVE-2024-29041: nothing is decoded or re-parsed, so
 * the host a browser sees is the host that was given). The redirect body names
 * the escaped URL, in text or HTML by the Accept header, as Express 4.22 words it.
 */
import { Buffer } from 'node:buffer';
import { STATUS_CODES } from 'node:http';
import { deprecate } from '../http/deprecate';
import { encodeUrl } from '../http/encode-url';
import { escapeHtml } from '../http/escape-html';
import type { Response } from './types';

/** The body of a redirect for the negotiated kind (`undefined` phrase for unknown codes, as Express prints). */
export function redirectBody(kind: 'text' | 'html' | 'none', status: number, address: string): string {
  const phrase = String(STATUS_CODES[status]);
  if (kind === 'text') return phrase + '. Redirecting to ' + address;
  if (kind === 'html') return '<p>' + phrase + '. Redirecting to ' + escapeHtml(address) + '</p>';
  return '';
}

export const redirectMethods = {
  location(this: Response, url: string) {
    let loc: string;
    if (url === 'back') {
      deprecate(
        'res.location("back"): use res.location(req.get("Referrer") || "/") ' +
          'and refer to https://dub.sh/security-redirect for best practices',
      );
      loc = (this.req.get('Referrer') as string | undefined) || '/';
    } else {
      loc = String(url);
    }
    return this.set('Location', encodeUrl(loc));
  },

  // `url` is named for the method's arity (1); `(status, url)` and `(url, status)` are read from `arguments`.
  redirect(this: Response, url: string | number) {
    let address = url;
    let status = 302;
    if (arguments.length === 2) {
      if (typeof arguments[0] === 'number') {
        status = arguments[0];
        address = arguments[1];
      } else {
        deprecate('res.redirect(url, status): Use res.redirect(status, url) instead');
        status = arguments[1];
      }
    }

    const location = this.location(address as string).get('Location') as string;
    let body = '';
    this.format({
      text: () => (body = redirectBody('text', status, location)),
      html: () => (body = redirectBody('html', status, location)),
      default: () => (body = ''),
    });

    this.statusCode = status;
    this.set('Content-Length', Buffer.byteLength(body));
    if (this.req.method === 'HEAD') this.end();
    else this.end(body);
  },
};
