/**
 * A bare `http.createServer` around one parser: answers 200 with the parsed body
 * as JSON, or the error's status with its type and extra properties.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';

export type Parser = (req: http.IncomingMessage, res: http.ServerResponse, next: (err?: unknown) => void) => void;

/** A test file's one server: each test sets `parser` for the requests it sends to `port`. */
export interface SharedParserServer {
  parser: Parser;
  readonly port: number;
}

/**
 * The server a test file shares across its tests (started in the file's `before`,
 * closed with its connections in `after`), answering with whatever `parser` is now.
 */
export function sharedParserServer(initial: Parser): SharedParserServer {
  let server: http.Server;
  let port = 0;
  const shared = {
    parser: initial,
    get port() {
      return port;
    },
  };
  before(async () => {
    server = serverFor((req, res, next) => shared.parser(req, res, next));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return shared;
}

export function serverFor(parser: Parser): http.Server {
  return http.createServer((req, res) => {
    parser(req, res, (err?: unknown) => {
      res.setHeader('Content-Type', 'application/json');
      if (err) {
        const e = err as Record<string, unknown> & Error;
        res.statusCode = (e.status as number) || 500;
        res.end(
          JSON.stringify({
            error: e.message,
            type: e.type ?? null,
            expose: e.expose ?? null,
            statusCode: e.statusCode ?? null,
            limit: e.limit ?? null,
            length: e.length ?? null,
            received: e.received ?? null,
            expected: e.expected ?? null,
            charset: e.charset ?? null,
            encoding: e.encoding ?? null,
            hasBody: 'body' in e,
            // Own enumerable keys, in order: JSON.stringify(err) and Object.keys(err) show them.
            keys: Object.keys(e),
          }),
        );
        return;
      }
      const body = (req as http.IncomingMessage & { body?: unknown }).body;
      res.end(
        JSON.stringify({
          body: Buffer.isBuffer(body) ? { buffer: body.toString('hex') } : (body ?? null),
          proto: Object.getPrototypeOf({}).polluted ?? null,
        }),
      );
    });
  });
}
