/**
 * Fake requests for unit tests of the request prototype (Koa style): an object
 * whose prototype is `request`, with headers, a socket and an `app.get` stub
 * that answers settings the way the core compiles them.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { request } from '../../src/request';
import { compileTrust } from '../../src/settings';

type Any = any;

export interface FakeOptions {
  headers?: IncomingHttpHeaders;
  method?: string;
  url?: string;
  remoteAddress?: string;
  encrypted?: boolean;
  settings?: Record<string, unknown>;
  res?: { statusCode: number; headers?: Record<string, string> };
}

export function fakeRequest(options: FakeOptions = {}): Any {
  const settings: Record<string, unknown> = { 'subdomain offset': 2, 'trust proxy': false, ...options.settings };
  settings['trust proxy fn'] = compileTrust(settings['trust proxy']);
  const resHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.res?.headers ?? {})) resHeaders[name.toLowerCase()] = value;
  const req = Object.create(request);
  const socket = { remoteAddress: options.remoteAddress ?? '127.0.0.1', encrypted: options.encrypted };
  Object.assign(req, {
    headers: options.headers ?? {},
    method: options.method ?? 'GET',
    url: options.url ?? '/',
    socket,
    connection: socket,
    app: { get: (name: string) => settings[name] },
    // `get` as on an app's response: req.fresh reads the validators through it, as Express does.
    res: { statusCode: options.res?.statusCode ?? 200, get: (name: string) => resHeaders[name.toLowerCase()] },
  });
  return req;
}
