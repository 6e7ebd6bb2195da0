/**
 * What an app writes to an HTTP/2 response that Node's HTTP/2 response takes otherwise
 * than its HTTP/1 one: writes to an answer without a body (HEAD, 204, 304), trailers,
 * and the header methods' results (`setHeaders`, chained `setHeader`). The same
 * handlers run on express@4 over HTTP/1, the oracle, and on webapp over HTTP/2 (and
 * over HTTP/1, where webapp is Node's own response).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Readable, pipeline } from 'node:stream';
import { describe, it } from 'node:test';
import express from 'express';
import webapp = require('../../src/index');
import { droppedHeaderNames } from '../support/http2-client';
import { watchProcessEvents } from '../support/process-events';

type Any = any;
type Framework = () => Any;

async function listen(server: http.Server | http2.Http2Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

const close = (server: http.Server | http2.Http2Server) => new Promise((resolve) => server.close(resolve));

/** One HTTP/1 request; its status, body and trailers once it has ended. */
function h1request(port: number, method: string, path: string) {
  return new Promise<{ status: number; body: string; trailers: Record<string, string> }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, body, trailers: { ...res.trailers } as Record<string, string> }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** One HTTP/2 request on `session`; its status, body and trailers once its stream has closed. */
function h2request(session: http2.ClientHttp2Session, method: string, path: string) {
  return new Promise<{ status: number; body: string; trailers: Record<string, string>; rstCode: number }>((resolve) => {
    const stream = session.request({ ':method': method, ':path': path });
    let status = 0;
    let body = '';
    let trailers: Record<string, string> = {};
    stream.on('response', (headers) => (status = Number(headers[':status'])));
    stream.on(
      'trailers',
      (received) => (trailers = Object.fromEntries(Object.entries(received)) as Record<string, string>),
    );
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (body += chunk));
    stream.on('error', () => {});
    stream.on('close', () => resolve({ status, body, trailers, rstCode: stream.rstCode ?? 0 }));
  });
}

/** Waits until `log` has `count` entries (the handlers log after the answer went out), at most 2 s. */
async function settled(log: string[], count: number): Promise<string[]> {
  for (let i = 0; i < 200 && log.length < count; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  return [...log].sort();
}

describe('HTTP/2: writes to an answer without a body, as over HTTP/1', () => {
  /** Handlers that stream their answer as HTTP/1 code does, logging how each write and the response ended. */
  function streamingApp(framework: Framework, log: string[]) {
    const app = framework();
    app.get('/await-drain', async (_req: Any, res: Any) => {
      res.on('close', () => log.push('await-drain: close'));
      res.type('text');
      for (let i = 0; i < 50; i++) if (!res.write('x'.repeat(1000))) await once(res, 'drain');
      res.end();
      log.push('await-drain: ended');
    });
    app.get('/pipeline', (_req: Any, res: Any) => {
      res.type('text');
      pipeline(Readable.from(['a\n', 'b\n', 'c\n']), res, (err: Any) =>
        log.push(`pipeline: ${err ? err.code : 'done'}`),
      );
    });
    app.get('/callback', (_req: Any, res: Any) => {
      const written = res.write('x', (err: Any) => {
        log.push(`callback: ${written} ${err ? err.code : 'no error'}`);
        res.end();
      });
    });
    app.get('/no-content', (_req: Any, res: Any) => {
      res.status(204);
      const written = res.write('x', (err: Any) => {
        log.push(`no-content: ${written} ${err ? err.code : 'no error'}`);
        res.end();
      });
    });
    app.get('/null', (_req: Any, res: Any) => {
      try {
        res.write(null);
      } catch (err) {
        log.push(`null: ${(err as Any).code}`);
      }
      res.end();
    });
    return app;
  }

  const requests: Array<[string, string]> = [
    ['HEAD', '/await-drain'],
    ['HEAD', '/pipeline'],
    ['HEAD', '/callback'],
    ['GET', '/no-content'],
    ['HEAD', '/null'],
  ];

  it('HEAD, 204: writes are dropped, return true and call back without an error; streaming handlers end', async () => {
    // Node's HTTP/2 response ends the stream with such a head: its `write` then returned
    // false, never emitted `drain` and gave ERR_STREAM_WRITE_AFTER_END; a handler waiting
    // for `drain`, or a pipeline, never ended, nor did the response (no finish, no close).
    const expressLog: string[] = [];
    const expressServer = http.createServer(streamingApp(express, expressLog));
    const expressPort = await listen(expressServer);
    const webappLog: string[] = [];
    const h2server = http2.createServer(streamingApp(webapp, webappLog) as Any);
    const session = http2.connect(`http://127.0.0.1:${await listen(h2server)}`);
    try {
      for (const [method, path] of requests) {
        const expected = await h1request(expressPort, method, path);
        const answer = await h2request(session, method, path);
        assert.deepEqual([answer.status, answer.body], [expected.status, expected.body], `${method} ${path}`);
        assert.equal(answer.rstCode, http2.constants.NGHTTP2_NO_ERROR, `${method} ${path}`);
      }
      const expected = await settled(expressLog, 6);
      assert.deepEqual(expected, [
        'await-drain: close',
        'await-drain: ended',
        'callback: true no error',
        'no-content: true no error',
        'null: ERR_STREAM_NULL_VALUES',
        'pipeline: done',
      ]);
      assert.deepEqual(await settled(webappLog, expected.length), expected);
      // The session serves on.
      assert.equal((await h2request(session, 'GET', '/pipeline')).body, 'a\nb\nc\n');
    } finally {
      session.close();
      await Promise.all([close(expressServer), close(h2server)]);
    }
  });
});

describe('HTTP/2: trailers, as over HTTP/1', () => {
  function trailersApp(framework: Framework) {
    const app = framework();
    app.get('/checksum', (_req: Any, res: Any) => {
      res.setHeader('Trailer', 'X-Checksum');
      res.write('data');
      // Trailers copied from an upstream response, with HTTP/1's connection headers among them.
      res.addTrailers({ 'X-Checksum': 'abc', 'Keep-Alive': 'timeout=5', Connection: 'close' });
      res.end();
    });
    app.get('/pairs', (_req: Any, res: Any) => {
      res.write('pairs');
      res.addTrailers([
        ['X-First', 'one'],
        ['Transfer-Encoding', 'chunked'],
        ['X-Second', 'two'],
      ]);
      res.end();
    });
    app.get('/invalid', (_req: Any, res: Any) => {
      try {
        res.addTrailers({ 'X-Checksum': 'abc\r\nX-Injected: yes' });
      } catch (err) {
        return res.status(500).send(`${(err as Any).code}: ${(err as Error).message}`);
      }
      res.send('accepted');
    });
    app.get('/bad-name', (_req: Any, res: Any) => {
      try {
        res.addTrailers({ 'X Checksum': 'abc' });
      } catch (err) {
        return res.status(500).send(`${(err as Any).code}: ${(err as Error).message}`);
      }
      res.send('accepted');
    });
    return app;
  }

  it("sends what HTTP/2 can carry, leaves out HTTP/1's connection headers, checks as HTTP/1 does", async () => {
    // Node's HTTP/2 response threw ERR_HTTP2_INVALID_CONNECTION_HEADERS from the stream's
    // `wantTrailers` event for a Keep-Alive or Connection trailer: uncaught, it ended the
    // process. A CR LF in a value was taken, and the trailer silently lost.
    const events = watchProcessEvents();
    const expressServer = http.createServer(trailersApp(express));
    const expressPort = await listen(expressServer);
    const webappApp = trailersApp(webapp);
    const h1server = http.createServer(webappApp);
    const h1port = await listen(h1server);
    const h2server = http2.createServer(webappApp as Any);
    const session = http2.connect(`http://127.0.0.1:${await listen(h2server)}`);
    try {
      const checksum = await h1request(expressPort, 'GET', '/checksum');
      assert.deepEqual(checksum.trailers, { 'x-checksum': 'abc', 'keep-alive': 'timeout=5', connection: 'close' });
      assert.deepEqual(await h1request(h1port, 'GET', '/checksum'), checksum);
      const overHttp2 = await h2request(session, 'GET', '/checksum');
      assert.deepEqual([overHttp2.status, overHttp2.body, overHttp2.trailers], [200, 'data', { 'x-checksum': 'abc' }]);

      const pairs = await h1request(expressPort, 'GET', '/pairs');
      assert.deepEqual(pairs.trailers, { 'x-first': 'one', 'transfer-encoding': 'chunked', 'x-second': 'two' });
      const pairsOverHttp2 = await h2request(session, 'GET', '/pairs');
      assert.deepEqual(
        [pairsOverHttp2.body, pairsOverHttp2.trailers],
        ['pairs', { 'x-first': 'one', 'x-second': 'two' }],
      );

      for (const path of ['/invalid', '/bad-name']) {
        const expected = await h1request(expressPort, 'GET', path);
        assert.equal(expected.status, 500, path);
        const answer = await h2request(session, 'GET', path);
        assert.deepEqual([answer.status, answer.body], [expected.status, expected.body], path);
      }
      assert.deepEqual(events.uncaught, []);
      assert.deepEqual(droppedHeaderNames(events.warnings), ['connection', 'keep-alive', 'transfer-encoding']);
    } finally {
      events.stop();
      session.close();
      await Promise.all([close(expressServer), close(h1server), close(h2server)]);
    }
  });
});

describe("HTTP/2: HTTP/1's header methods, as over HTTP/1", () => {
  /** Sets headers by chaining and by `setHeaders`; answers with what the response holds and what threw. */
  function headersApp(framework: Framework) {
    const app = framework();
    app.disable('x-powered-by');
    app.get('/set', (_req: Any, res: Any) => {
      const chained = res.setHeader('X-One', '1').appendHeader('X-Two', '2') === res;
      const map = new Map<string, unknown>([
        ['x-three', '3'],
        ['set-cookie', ['a=1', 'b=2']],
      ]);
      const headers = new Headers([
        ['X-Four', '4'],
        ['Set-Cookie', 'c=3'],
        ['Set-Cookie', 'd=4'],
      ]);
      const returned = [res.setHeaders(map) === res, res.setHeaders(headers) === res];
      const refused = [[], 'x-five: 5', null].map((argument) => {
        try {
          res.setHeaders(argument);
          return 'taken';
        } catch (err) {
          return `${(err as Any).code}: ${(err as Error).message}`;
        }
      });
      res.json({ chained, returned, refused, headers: res.getHeaders() });
    });
    app.get('/sent', (_req: Any, res: Any) => {
      res.write('head sent');
      try {
        res.setHeaders(new Map([['x-late', '1']]));
      } catch (err) {
        return res.end(` ${(err as Any).code}`);
      }
      res.end(' taken');
    });
    return app;
  }

  it('setHeader and appendHeader return the response; setHeaders takes a Map or Headers, as on HTTP/1', async () => {
    // Node's HTTP/2 response has no setHeaders (a TypeError, where HTTP/1 code calls it),
    // and its setHeader and appendHeader return nothing, so a chained call threw.
    const expressServer = http.createServer(headersApp(express));
    const expressPort = await listen(expressServer);
    const h2server = http2.createServer(headersApp(webapp) as Any);
    const session = http2.connect(`http://127.0.0.1:${await listen(h2server)}`);
    try {
      for (const path of ['/set', '/sent']) {
        const expected = await h1request(expressPort, 'GET', path);
        const answer = await h2request(session, 'GET', path);
        assert.deepEqual([answer.status, answer.body], [expected.status, expected.body], path);
      }
      const set = JSON.parse((await h1request(expressPort, 'GET', '/set')).body);
      // What the oracle did (how a Headers' cookies are listed is the Node line's).
      assert.deepEqual(
        [set.chained, set.returned, set.headers['x-three'], set.headers['x-four']],
        [true, [true, true], '3', '4'],
      );
    } finally {
      session.close();
      await Promise.all([close(expressServer), close(h2server)]);
    }
  });
});
