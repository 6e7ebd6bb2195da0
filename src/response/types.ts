/**
 * What the response methods need from the objects around them. The request and
 * the application are other modules' prototypes; only the members the response
 * reads are named here, so each method states exactly what it depends on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { CookieOptions, RenderCallback } from '../types/public';

export type { CookieOptions, RenderCallback };

/** The application as the response sees it: settings and rendering. */
export interface ResponseApp {
  get(setting: string): unknown;
  settings: Record<string, unknown>;
  render(name: string, options: object, callback: RenderCallback): void;
}

/** The request as the response sees it (set up by the app's init layer and the request prototype). */
export interface ResponseRequest extends IncomingMessage {
  app: ResponseApp;
  fresh: boolean;
  query: Record<string, unknown>;
  /** Set by cookie-parsing middleware; signs cookies. */
  secret?: string;
  next: (err?: unknown) => void;
  get(name: string): string | string[] | undefined;
  accepts(types: string[]): string | false;
}

/** `res` inside webapp: Node's response plus the 4.x API. */
export interface Response extends Omit<ServerResponse, 'req'> {
  req: ResponseRequest;
  app: ResponseApp;
  locals: Record<string, unknown>;
  status(code: number): this;
  send(body?: unknown): this;
  json(body?: unknown): this;
  set(field: string | Record<string, unknown>, value?: unknown): this;
  get(field: string): string | number | string[] | undefined;
  append(field: string, value: string | string[]): this;
  type(type: string): this;
  vary(field: string | string[]): this;
  location(url: string): this;
  cookie(name: string, value: unknown, options?: CookieOptions): this;
  format(handlers: FormatHandlers): this;
}

export type FormatHandler = (req: ResponseRequest, res: Response, next: (err?: unknown) => void) => void;
export type FormatHandlers = Record<string, FormatHandler>;
