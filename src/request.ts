/**
 * The 4.x request prototype (`webapp.request`). Every app gets its own
 * `app.request = Object.create(request)`, and requests take that as prototype,
 * so middleware that patches `app.request` (passport does) sees its methods.
 */
import { IncomingMessage } from 'node:http';

/**
 * The query parser chosen for this request: set once, by the first webapp app the
 * request enters (as Express's `query` middleware only parses when `req.query` is
 * unset). Parsing itself waits for the first read of `req.query`.
 */
export const kQueryParser = Symbol('webapp.queryParser');
const kQuery = Symbol('webapp.query');

export type QueryParser = (queryString: string) => unknown;

interface RequestState {
  [kQueryParser]?: QueryParser;
  [kQuery]?: unknown;
  originalUrl?: string;
  url?: string;
}

export const request: Record<string | symbol, unknown> = Object.create(IncomingMessage.prototype);

Object.defineProperty(request, 'query', {
  configurable: true,
  enumerable: true,
  get(this: RequestState) {
    if (kQuery in this) return this[kQuery];
    const parse = this[kQueryParser];
    if (!parse) return undefined;
    const url = this.originalUrl ?? this.url ?? '';
    const start = url.indexOf('?');
    const end = url.indexOf('#', start);
    const queryString = start === -1 ? undefined : url.slice(start + 1, end === -1 ? undefined : end);
    const value = parse(queryString as string);
    this[kQuery] = value;
    return value;
  },
  // `req.query = {...}` is common in Express middleware: the assigned value wins.
  set(this: RequestState, value: unknown) {
    this[kQuery] = value;
  },
});
