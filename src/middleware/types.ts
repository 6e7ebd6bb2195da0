/** The connect-style shapes every bundled middleware shares. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type { NextFunction } from '../types/public';
import type { NextFunction } from '../types/public';

/** A connect 2 middleware: `(req, res, next)`, the arity Connect dispatches on. */
export type Middleware = (req: IncomingMessage, res: ServerResponse, next: NextFunction) => void;

/** The request fields the bundled middleware read and fill (3.x apps read them unchanged). */
export interface MiddlewareRequest extends IncomingMessage {
  originalUrl?: string;
  originalMethod?: string;
  body?: any;
  files?: any;
  query?: any;
  cookies?: Record<string, unknown>;
  signedCookies?: Record<string, unknown>;
  secret?: string;
  user?: unknown;
  remoteUser?: unknown;
  session?: any;
  sessionID?: string;
  sessionStore?: unknown;
}

// The cookie package's option types (cookieParser's and csrf's options extend them).
// Declared here, as @types/cookie 0.6 declares them for cookie 0.7, because cookie
// ships no types and @types/cookie is not a dependency: a published declaration that
// imported them from 'cookie' failed in a project without @types/cookie (TS7016).

/** How `cookieParser` decodes cookie values (cookie's `parse` options). */
export interface CookieParseOptions {
  /** Decodes a value (default `decodeURIComponent`, leaving values it cannot decode as they are). */
  decode?(value: string): string;
}

/** The attributes of a Set-Cookie header (cookie's `serialize` options). */
export interface CookieSerializeOptions {
  domain?: string | undefined;
  /** Encodes the value (default `encodeURIComponent`). */
  encode?(value: string): string;
  expires?: Date | undefined;
  httpOnly?: boolean | undefined;
  maxAge?: number | undefined;
  partitioned?: boolean | undefined;
  path?: string | undefined;
  priority?: 'low' | 'medium' | 'high' | undefined;
  sameSite?: boolean | 'lax' | 'strict' | 'none' | undefined;
  secure?: boolean | undefined;
}
