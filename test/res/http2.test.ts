/** The response API on HTTP/2 compatibility responses (h2c on loopback): same headers and bodies as on HTTP/1. */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import request from 'supertest';
import { appWith } from './support';

function h2request(
  port: number,
  path: string,
  method = 'GET',
): Promise<{ headers: http2.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const client = http2.connect(`http://127.0.0.1:${port}`);
    client.on('error', reject);
    const stream = client.request({ ':path': path, ':method': method });
    let headers: http2.IncomingHttpHeaders = {};
    let body = '';
    stream.on('response', (h) => (headers = h));
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (body += chunk));
    stream.on('end', () => {
      client.close();
      resolve({ headers, body });
    });
    stream.on('error', reject);
  });
}

describe('response methods over HTTP/2', () => {
  it('send, json, set, cookie, links and HEAD behave as on HTTP/1', async () => {
    const app = appWith((a) => {
      a.get('/text', (_req, res) => {
        res.status(201).set('X-Extra', ['a', 'b']).cookie('c', { v: 1 }).links({ next: '/2' }).send('héllo');
      });
      a.get('/json', (_req, res) => {
        res.json({ ok: true });
      });
    });
    const server = http2.createServer(
      app as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const text = await h2request(port, '/text');
      assert.equal(text.headers[':status'], 201);
      assert.equal(text.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(text.headers['content-length'], String(Buffer.byteLength('héllo')));
      assert.match(String(text.headers.etag), /^W\/"6-[A-Za-z0-9+/]{27}"$/);
      assert.equal(text.headers['x-extra'], 'a, b');
      assert.deepEqual(text.headers['set-cookie'], ['c=j%3A%7B%22v%22%3A1%7D; Path=/']);
      assert.equal(text.headers.link, '</2>; rel="next"');
      assert.equal(text.body, 'héllo');
      const json = await h2request(port, '/json');
      assert.equal(json.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(json.body, '{"ok":true}');
      const head = await h2request(port, '/text', 'HEAD');
      assert.equal(head.body, '');
      assert.equal(head.headers['content-length'], String(Buffer.byteLength('héllo')));
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a header value with CR, LF or NUL is refused when set, as on HTTP/1: the error handler runs', async () => {
    // Node's HTTP/2 response sent such a value, and the client dropped the whole stream
    // as malformed (RFC 9113 8.2.1): the app's error handler never knew.
    const app = appWith((a) => {
      a.get('/set', (req, res) => {
        res.set('X-Note', String(req.query.v)).send('body');
      });
      a.get('/setHeader', (req, res) => {
        res.setHeader('X-Note', ['fine', String(req.query.v)]);
        res.end('body');
      });
      a.get('/writeHead', (req, res) => {
        res.writeHead(200, { 'X-Note': String(req.query.v) });
        res.end('body');
      });
      a.get('/cookie', (req, res) => {
        res.cookie('name', 'value', { path: '/' + String(req.query.v) }).send('body');
      });
    });
    const server = http2.createServer(
      app as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      for (const path of ['/set', '/setHeader', '/writeHead', '/cookie']) {
        for (const bad of ['%0A', '%0D', '%00']) {
          const overHttp2 = await h2request(port, `${path}?v=a${bad}b`);
          const overHttp1 = await request(app).get(`${path}?v=a${bad}b`);
          assert.equal(overHttp2.headers[':status'], 500, `${path} ${bad}`);
          assert.equal(overHttp2.body, overHttp1.text);
          assert.match(overHttp2.body, /"name":"TypeError"/);
        }
        const fine = await h2request(port, `${path}?v=a%20b`);
        assert.equal(fine.headers[':status'], 200);
      }
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a client resetting the stream mid-file is an abort for sendFile (ECONNABORTED), not an app error', async () => {
    // A reset with an error code (INTERNAL_ERROR here; browsers send CANCEL) reached the
    // callback as ERR_HTTP2_STREAM_ERROR, and without a callback the error handler.
    const dir = mkdtempSync(join(tmpdir(), 'webapp-h2-file-'));
    const file = join(dir, 'large.bin');
    writeFileSync(file, Buffer.alloc(8 * 1024 * 1024, 0x61));
    const outcomes: string[] = [];
    const app = appWith((a) => {
      a.get('/callback', (_req, res) =>
        res.sendFile(file, (err) => outcomes.push(`callback ${(err as NodeJS.ErrnoException)?.code}`)),
      );
      a.get('/plain', (_req, res) => res.sendFile(file));
      a.get('/deprecated', (_req, res) =>
        res.sendfile(file, (err) => outcomes.push(`sendfile ${(err as NodeJS.ErrnoException)?.code}`)),
      );
      a.use((err: Error, _req: unknown, _res: unknown, next: (err: Error) => void) => {
        outcomes.push(`error handler ${(err as NodeJS.ErrnoException).code}`);
        next(err);
      });
    });
    const server = http2.createServer(
      app as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      for (const path of ['/callback', '/plain', '/deprecated']) {
        await new Promise<void>((resolve) => {
          const stream = client.request({ ':path': path });
          stream.on('error', () => {});
          stream.once('data', () => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
          stream.on('close', () => resolve());
        });
      }
      // A client that closes its whole session with an error code (GOAWAY) left as well.
      const leaving = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      leaving.on('error', () => {});
      await new Promise<void>((resolve) => {
        const stream = leaving.request({ ':path': '/callback' });
        stream.on('error', () => {});
        stream.once('data', () => leaving.destroy(new Error('leaving'), http2.constants.NGHTTP2_INTERNAL_ERROR));
        leaving.on('close', () => resolve());
      });
      for (let i = 0; i < 100 && outcomes.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(outcomes, ['callback ECONNABORTED', 'sendfile ECONNABORTED', 'callback ECONNABORTED']);
    } finally {
      client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an odd flat header list is refused by Node as the app wrote it', async () => {
    // The layer that drops HTTP/1's connection headers handed Node a list with the last
    // name twice and an undefined value between: ['X-A', '1', 'X-B', undefined, 'X-B'].
    const app = appWith((a) => {
      a.get('/odd', (_req, res) => {
        res.writeHead(200, ['X-A', '1', 'X-B'] as unknown as string[]);
        res.end('body');
      });
    });
    const server = http2.createServer(
      app as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await h2request((server.address() as AddressInfo).port, '/odd');
      assert.equal(answer.headers[':status'], 500);
      assert.match(JSON.parse(answer.body).message, /Received \[ 'X-A', '1', 'X-B' \]$/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('getRawHeaderNames and writeProcessing exist as on HTTP/1: the names as sent, and a 102 first', async () => {
    const app = appWith((a) => {
      a.get('/raw', (_req, res) => {
        res.set('X-A', '1');
        const names = (res as unknown as { getRawHeaderNames(): string[] }).getRawHeaderNames();
        (res as unknown as { writeProcessing(): void }).writeProcessing();
        res.json(names);
      });
    });
    const server = http2.createServer(
      app as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const informational: unknown[] = [];
      const answer = await new Promise<{ status: unknown; body: string }>((resolve, reject) => {
        const stream = client.request({ ':path': '/raw' });
        let status: unknown;
        let body = '';
        stream.on('headers', (headers) => informational.push(headers[':status']));
        stream.on('response', (headers) => (status = headers[':status']));
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => (body += chunk));
        stream.on('end', () => resolve({ status, body }));
        stream.on('error', reject);
      });
      assert.deepEqual(informational, [102]);
      assert.equal(answer.status, 200);
      assert.deepEqual(JSON.parse(answer.body), ['x-powered-by', 'x-a']);
    } finally {
      client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
