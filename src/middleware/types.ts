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
