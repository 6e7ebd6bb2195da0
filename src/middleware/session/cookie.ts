/**
 * The session cookie's settings (express-session 1.11's `Cookie`): path `/`,
 * httpOnly, `maxAge` null (a browser-session cookie). Setting `maxAge` sets
 * `expires` relative to now; `maxAge` reads the time left.
 */
import { serialize } from 'cookie';

export interface CookieOptions {
  path?: string;
  maxAge?: number | null;
  expires?: Date | null;
  httpOnly?: boolean;
  secure?: boolean;
  domain?: string;
  originalMaxAge?: number | null;
  [key: string]: unknown;
}

export class Cookie {
  path = '/';
  httpOnly = true;
  secure?: boolean;
  domain?: string;
  originalMaxAge: number | null | undefined;
  _expires: Date | null | undefined;
  [key: string]: unknown;

  constructor(options?: CookieOptions) {
    this.maxAge = null;
    if (options) {
      // Assigned one by one so `maxAge`/`expires` go through their setters.
      for (const key of Object.keys(options)) (this as Record<string, unknown>)[key] = options[key];
    }
    this.originalMaxAge = this.originalMaxAge == undefined ? (this.maxAge as number | null) : this.originalMaxAge;
  }

  set expires(date: Date | null | undefined) {
    this._expires = date;
    this.originalMaxAge = this.maxAge as number | null;
  }

  get expires(): Date | null | undefined {
    return this._expires;
  }

  set maxAge(ms: number | Date | null | undefined) {
    this.expires = typeof ms === 'number' ? new Date(Date.now() + ms) : (ms as Date | null | undefined);
  }

  get maxAge(): number | Date | null | undefined {
    return this._expires instanceof Date ? this._expires.valueOf() - Date.now() : this._expires;
  }

  get data() {
    return {
      originalMaxAge: this.originalMaxAge,
      expires: this._expires,
      secure: this.secure,
      httpOnly: this.httpOnly,
      domain: this.domain,
      path: this.path,
    };
  }

  serialize(name: string, value: string): string {
    const { expires, secure, httpOnly, domain, path } = this.data;
    return serialize(name, value, { expires: expires ?? undefined, secure, httpOnly, domain, path });
  }

  toJSON() {
    return this.data;
  }
}
