/**
 * webapp.graceful() over TLS. On an HTTP/2 server (allowHTTP1) close() sends
 * GOAWAY to every session and the stream in flight finishes with its whole
 * body. HTTP/1.1 over TLS (https.createServer, and the HTTP/2 server's
 * allowHTTP1 side, which has no closeIdleConnections) drains as plain HTTP does.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import https from 'node:https';
import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import { before, describe, it } from 'node:test';
import webapp = require('../../src/index');
import { selfSignedCert } from '../support/self-signed-cert';
import { connect, parseResponses, refused, signal } from './connection';

let key: Buffer;
let cert: Buffer;

before(() => {
  ({ key, cert } = selfSignedCert());
});

it('HTTP/2 sessions get GOAWAY and their streams in flight complete', { timeout: 15000 }, async () => {
  const entered = signal();
  const release = signal();
  const body = 'h2-'.repeat(100000);
  const app = webapp();
  app.get('/slow', async (_req, res) => {
    entered.resolve();
    await release.promise;
    res.send(body);
  });
  const server = webapp.graceful(http2.createSecureServer({ key, cert, allowHTTP1: true }, app as never), {
    signals: [],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const session = http2.connect(`https://localhost:${port}`, { ca: cert });
  const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()));
  const sessionClosed = new Promise<void>((resolve) => session.once('close', resolve));
  const stream = session.request({ ':path': '/slow' });
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    let status = 0;
    const chunks: Buffer[] = [];
    stream.on('response', (headers) => (status = Number(headers[':status'])));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve({ status, text: Buffer.concat(chunks).toString() }));
    stream.on('error', reject);
  });
  stream.end();
  await entered.promise;

  const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
  await goaway;
  assert.equal(await refused(port), 'ECONNREFUSED');
  release.resolve();
  const answer = await response;
  assert.equal(answer.status, 200);
  assert.equal(answer.text, body);
  await sessionClosed;
  assert.equal(await serverClosed, undefined);
});

describe('HTTP/1.1 over TLS', () => {
  const servers = {
    'https.createServer(app)': (app: unknown) => https.createServer({ key, cert }, app as never),
    'http2.createSecureServer({ allowHTTP1 }, app)': (app: unknown) =>
      http2.createSecureServer({ key, cert, allowHTTP1: true }, app as never),
  };
  for (const [kind, create] of Object.entries(servers)) {
    it(
      `${kind}: idle connections close at once, silent fresh ones a moment later, the busy one gets Connection: close`,
      { timeout: 15000 },
      async () => {
        const entered = signal();
        const release = signal();
        const app = webapp();
        app.get('/quick', (_req, res) => res.send('quick'));
        app.get('/slow', async (_req, res) => {
          entered.resolve();
          await release.promise;
          res.send('slow done');
        });
        const server = webapp.graceful(create(app), { signals: [] });
        (server as { keepAliveTimeout?: number }).keepAliveTimeout = 10 * 60 * 1000;
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const port = (server.address() as AddressInfo).port;
        const secure = { ca: cert };

        const fresh = await connect(port, secure);
        const idle = await connect(port, secure);
        const answered = new Promise<void>((resolve) => idle.socket.once('data', () => resolve()));
        idle.socket.write('GET /quick HTTP/1.1\r\nHost: localhost\r\n\r\n');
        await answered;
        const busy = await connect(port, secure);
        busy.socket.write('GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n');
        await entered.promise;

        const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
        assert.equal((await fresh.received).length, 0);
        assert.deepEqual(
          parseResponses(await idle.received).map((r) => r.body.toString()),
          ['quick'],
        );
        release.resolve();
        const [answer] = parseResponses(await busy.received);
        assert.equal(answer!.body.toString(), 'slow done');
        assert.equal(answer!.headers.connection, 'close');
        assert.equal(await serverClosed, undefined);
      },
    );

    it(
      `${kind}: a connection whose handshake ends during the drain gets the grace, then is closed`,
      { timeout: 15000 },
      async () => {
        // Accepted before the close, secure only after it began: it was left open until the
        // deadline (far away here). Its handshake begins within the grace (a connection
        // silent past it is closed: the test below).
        const server = webapp.graceful(create(webapp()), {
          signals: [],
          timeout: 10 * 60 * 1000,
          idleGrace: 300,
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const port = (server.address() as AddressInfo).port;
        const accepted = once(server, 'connection');
        const raw = net.connect(port, '127.0.0.1');
        await accepted;
        const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
        await new Promise((resolve) => setTimeout(resolve, 100));
        const secured = tls.connect({ socket: raw, ca: cert, servername: 'localhost', ALPNProtocols: ['http/1.1'] });
        secured.on('error', () => {});
        await once(secured, 'secureConnect');
        assert.equal(await serverClosed, undefined);
        secured.destroy();
      },
    );

    it(
      `${kind}: a connection that never begins its handshake is closed after the grace, not at the deadline`,
      { timeout: 15000 },
      async () => {
        // A preconnect, a TCP health check, a stalled client: on plain HTTP it was closed
        // after the grace, over TLS it held the drain until the deadline (far away here).
        const server = webapp.graceful(create(webapp()), { signals: [], timeout: 10 * 60 * 1000 });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const port = (server.address() as AddressInfo).port;
        const accepted = once(server, 'connection');
        const raw = net.connect(port, '127.0.0.1');
        raw.on('error', () => {});
        await accepted;
        const rawClosed = once(raw, 'close');
        assert.equal(await new Promise<Error | undefined>((resolve) => server.close(resolve)), undefined);
        await rawClosed;
      },
    );
  }
});

it("https: a WebSocket (wss) stays the app's to close during the drain", { timeout: 15000 }, async () => {
  const { WebSocketServer, WebSocket } = require('ws');
  const server = webapp.graceful(https.createServer({ key, cert }, webapp() as never), {
    signals: [],
    timeout: 10 * 60 * 1000,
  });
  const sockets = new WebSocketServer({ server });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const client = new WebSocket(`wss://localhost:${port}/`, { ca: cert });
  await new Promise((resolve, reject) => client.once('open', resolve).once('error', reject));
  const closed = new Promise<number>((resolve) => client.once('close', resolve));
  const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
  // Longer than a connection without a request may stay.
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(client.readyState, WebSocket.OPEN);
  for (const socket of sockets.clients) socket.close(1001, 'going away');
  assert.equal(await closed, 1001);
  assert.equal(await serverClosed, undefined);
});
