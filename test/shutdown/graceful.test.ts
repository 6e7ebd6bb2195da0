/**
 * webapp.graceful(server): close() drains. Requests started before the close
 * (a slow handler, a large download, a slow upload) finish byte-complete, idle
 * keep-alive sockets close within a moment, a request already sent on one (a client
 * reusing its connection) or on a connection made just before the close is
 * answered, new connections are refused, and the server ends up with no socket
 * open. keepAliveTimeout is set far beyond the test's own timeout, so a socket
 * left to Node's keep-alive timer fails the test.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo, type Server } from 'node:net';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import webapp = require('../../src/index');
import { connect, parseResponses, refused, signal } from './connection';

type Any = any;
const MB = 1024 * 1024;
const DOWNLOAD = Buffer.alloc(4 * MB, 'webapp-download-');
const UPLOAD = Buffer.alloc(2 * MB, 'upload-bytes-');
/** More than the kernel's socket buffers hold, so that much of it waits in Node's. */
const BIG = Buffer.alloc(16 * MB, 'webapp-big-');
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/**
 * An `idleGrace` for tests where a client must send its next request within it: far
 * beyond any pause of a loaded machine, and never waited for (the request it lets in
 * is answered with Connection: close, which ends the connection).
 */
const LONG_GRACE = 60 * 1000;

function inFlightApp() {
  const entered = { slow: signal(), download: signal(), upload: signal() };
  const release = signal();
  const app = webapp();
  app.get('/quick', (_req: Any, res: Any) => res.send('quick'));
  app.get('/slow', async (_req: Any, res: Any) => {
    entered.slow.resolve();
    await release.promise;
    res.send('slow done');
  });
  app.get('/download', async (_req: Any, res: Any) => {
    res.setHeader('Content-Length', DOWNLOAD.length);
    res.write(DOWNLOAD.subarray(0, MB));
    entered.download.resolve();
    await release.promise;
    res.end(DOWNLOAD.subarray(MB));
  });
  app.get('/hang', () => entered.slow.resolve());
  // Keeps its connection itself, as a proxy copies its backend's `Connection: keep-alive`.
  app.get('/kept', async (_req: Any, res: Any) => {
    entered.slow.resolve();
    await release.promise;
    res.set('Connection', 'keep-alive').send('kept');
  });
  app.post('/upload', (req: Any, res: Any) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      entered.upload.resolve();
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      res.send(`${body.length} ${sha(body)}`);
    });
  });
  return { app, entered, release };
}

const servers: Record<string, (app: Any) => Promise<Server>> = {
  'app.listen': (app) =>
    new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    }),
  'http.createServer(app)': (app) =>
    new Promise((resolve) => {
      const s = http.createServer(app).listen(0, '127.0.0.1', () => resolve(s));
    }),
};

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`;

/** An app answering /quick, and /big with BIG in one `res.end()`; `ended` resolves once it has. */
function bigBodyApp() {
  const app = webapp();
  const ended = signal();
  app.get('/quick', (_req: Any, res: Any) => res.send('quick'));
  app.get('/big', (_req: Any, res: Any) => {
    res.end(BIG);
    ended.resolve();
  });
  return { app, ended };
}

/**
 * GET /big on a new connection that reads nothing until 300 ms after `server.close()`:
 * past the moment the drain closes connections without a request in progress.
 */
async function readBigSlowlyAcrossClose(server: http.Server, ended: { promise: Promise<void> }) {
  const slow = await connect((server.address() as AddressInfo).port);
  slow.socket.pause();
  slow.socket.write(get('/big'));
  await ended.promise;
  const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
  await new Promise((resolve) => setTimeout(resolve, 300));
  slow.socket.resume();
  return { answers: parseResponses(await slow.received), serverClosed };
}

for (const [kind, start] of Object.entries(servers)) {
  describe(`graceful shutdown of ${kind}`, () => {
    /**
     * A graceful server over a fresh inFlightApp, with Node's keep-alive timer far beyond
     * the test's timeout: a socket the drain leaves open fails the test.
     */
    async function withKeptAlive(options: webapp.GracefulOptions = {}) {
      const flight = inFlightApp();
      const server = webapp.graceful(await start(flight.app), { signals: [], ...options }) as http.Server;
      server.keepAliveTimeout = 10 * 60 * 1000;
      return { ...flight, server, port: (server.address() as AddressInfo).port };
    }

    /** A graceful server whose deadline is far beyond the test's timeout: only the drain itself can end it. */
    async function withFarDeadline(
      options: webapp.GracefulOptions = {},
    ): Promise<{ server: http.Server; port: number; app: http.RequestListener }> {
      const { app } = inFlightApp();
      const server = webapp.graceful(await start(app), {
        signals: [],
        timeout: 10 * 60 * 1000,
        ...options,
      }) as http.Server;
      return { server, port: (server.address() as AddressInfo).port, app };
    }

    it(
      'finishes every started request byte-complete, closes idle sockets and refuses new connections',
      { timeout: 15000 },
      async () => {
        const { server, port, entered, release } = await withKeptAlive();

        const idle = await connect(port);
        const answered = new Promise<void>((resolve) => idle.socket.once('data', () => resolve()));
        idle.socket.write(get('/quick'));
        // The idle socket has had its answer and sits in keep-alive.
        await answered;
        const slow = await connect(port);
        slow.socket.write(get('/slow'));
        const download = await connect(port);
        download.socket.write(get('/download'));
        const upload = await connect(port);
        upload.socket.write(`POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${UPLOAD.length}\r\n\r\n`);
        upload.socket.write(UPLOAD.subarray(0, MB));
        await Promise.all([entered.slow.promise, entered.download.promise, entered.upload.promise]);

        const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
        const idleBytes = await idle.received;
        assert.deepEqual(
          parseResponses(idleBytes).map((r) => r.body.toString()),
          ['quick'],
        );
        assert.equal(await refused(port), 'ECONNREFUSED');

        release.resolve();
        upload.socket.end(UPLOAD.subarray(MB));

        const [slowAnswer] = parseResponses(await slow.received);
        assert.equal(slowAnswer!.status, 200);
        assert.equal(slowAnswer!.body.toString(), 'slow done');
        assert.equal(slowAnswer!.headers.connection, 'close');

        const [uploadAnswer] = parseResponses(await upload.received);
        assert.equal(uploadAnswer!.body.toString(), `${UPLOAD.length} ${sha(UPLOAD)}`);
        assert.equal(uploadAnswer!.headers.connection, 'close');

        // Its headers went out (keep-alive) before the close; the socket still ends after the body.
        const downloadAnswers = parseResponses(await download.received);
        assert.equal(downloadAnswers.length, 1);
        assert.ok(downloadAnswers[0]!.body.equals(DOWNLOAD), 'the download arrives byte-complete');

        assert.equal(await serverClosed, undefined);
        const open = await new Promise<number>((resolve) => server.getConnections((_err, count) => resolve(count)));
        assert.equal(open, 0);
      },
    );

    it('destroys what is still open when the deadline passes', { timeout: 15000 }, async () => {
      const { app, entered } = inFlightApp();
      const server = webapp.graceful(await start(app), { signals: [], timeout: 50 });
      const port = (server.address() as AddressInfo).port;
      const hung = await connect(port);
      hung.socket.write(get('/hang'));
      await entered.slow.promise;
      const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
      assert.equal((await hung.received).length, 0);
      assert.equal(await serverClosed, undefined);
    });

    it(
      'answers a request pipelined on a busy socket during the drain, the last answer with Connection: close',
      { timeout: 15000 },
      async () => {
        const { server, port, entered, release } = await withKeptAlive();
        const busy = await connect(port);
        busy.socket.write(get('/slow'));
        await entered.slow.promise;
        const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
        // Pipelined behind the slow one, while the server drains: the slow answer had been
        // made the connection's last, and the socket ended before this one was answered.
        const quickArrived = once(server, 'request');
        busy.socket.write(get('/quick'));
        // Answered once the server has read it (a fixed wait lost it on a busy machine).
        await quickArrived;
        release.resolve();
        const answers = parseResponses(await busy.received);
        assert.deepEqual(
          answers.map((r) => `${r.body} ${r.headers.connection}`),
          ['slow done keep-alive', 'quick close'],
        );
        assert.equal(await serverClosed, undefined);
      },
    );

    it(
      'runs no request pipelined behind an answer that said Connection: close, and closes after that answer',
      { timeout: 15000 },
      async () => {
        // The first request after the close is answered at once, with `Connection: close`,
        // before the server has read the two behind it. A client that sent them counts them
        // unanswered (RFC 9112 section 9.6) and may send them again elsewhere: the app must
        // not have run them. Answered after the close, a POST ran twice.
        const { server, port } = await withFarDeadline({ idleGrace: LONG_GRACE });
        const seen: string[] = [];
        server.prependListener('request', (req: http.IncomingMessage) => seen.push(req.url!));
        const idle = await connect(port);
        idle.socket.write(get('/quick'));
        await new Promise((resolve) => idle.socket.once('data', resolve));
        const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
        idle.socket.write(get('/quick?1') + get('/quick?2') + get('/quick?3'));
        const answers = parseResponses(await idle.received);
        assert.deepEqual(
          answers.map((r) => `${r.status} ${r.body} ${r.headers.connection}`),
          ['200 quick keep-alive', '200 quick close'],
        );
        assert.equal(await serverClosed, undefined);
        assert.deepEqual(seen, ['/quick', '/quick?1']);
      },
    );

    it('answers every request pipelined before the close, not only the first', { timeout: 15000 }, async () => {
      // Each answer owed at the close said Connection: close, so the first one ended the
      // socket and the app's work for the others was never answered (Node's close() answers them).
      const { server, port, entered, release } = await withKeptAlive();
      const busy = await connect(port);
      const arrived = new Promise<void>((resolve) => {
        let count = 0;
        server.on('request', () => ++count === 3 && resolve());
      });
      busy.socket.write(get('/slow') + get('/quick') + get('/quick'));
      await entered.slow.promise;
      await arrived;
      const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
      release.resolve();
      const answers = parseResponses(await busy.received);
      assert.deepEqual(
        answers.map((r) => `${r.body} ${r.headers.connection}`),
        // The quick answers were written (queued) before the close, promising keep-alive:
        // the connection ends after the grace that follows the last (`received` is its end).
        ['slow done keep-alive', 'quick keep-alive', 'quick keep-alive'],
      );
      assert.equal(await serverClosed, undefined);
    });

    it(
      'listening again after a close: keep-alive as before, and the next close drains to its deadline',
      { timeout: 15000 },
      async () => {
        const { server, entered } = await withKeptAlive({ timeout: 300 });
        await new Promise((resolve) => server.close(resolve));
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const port = (server.address() as AddressInfo).port;
        const client = await connect(port);
        client.socket.write(get('/quick'));
        const [answer] = parseResponses(await new Promise<Buffer>((resolve) => client.socket.once('data', resolve)));
        assert.equal(answer!.headers.connection, 'keep-alive');
        client.socket.write(get('/hang'));
        await entered.slow.promise;
        // The hung request is cut at the deadline: the close completes.
        assert.equal(await new Promise<Error | undefined>((resolve) => server.close(resolve)), undefined);
        await client.received.catch(() => undefined);
      },
    );

    it(
      "drains a request whose request line says HTTP/2.0 on an HTTP/1 connection (Node's parser takes it)",
      { timeout: 15000 },
      async () => {
        // Major version 2 without an HTTP/2 stream: an HTTP/1 request, tracked and
        // answered with Connection: close like any other in the drain.
        const { server, port, entered, release } = await withKeptAlive();
        const client = await connect(port);
        client.socket.write('GET /slow HTTP/2.0\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
        await entered.slow.promise;
        const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
        release.resolve();
        const answers = parseResponses(await client.received);
        assert.deepEqual(
          answers.map((r) => `${r.status} ${r.body} ${r.headers.connection}`),
          ['200 slow done close'],
        );
        assert.equal(await serverClosed, undefined);
      },
    );

    it(
      'answers the next request on a connection an answer of the drain kept alive by its own header',
      { timeout: 15000 },
      async () => {
        // The answer says keep-alive (the app's header overrides the drain's close), so the
        // client sends its next request on the connection: it is answered, with close.
        const { server, port, entered, release } = await withKeptAlive({ idleGrace: LONG_GRACE });
        const client = await connect(port);
        client.socket.write(get('/kept'));
        await entered.slow.promise;
        const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
        const first = new Promise<void>((resolve) => client.socket.once('data', () => resolve()));
        release.resolve();
        await first;
        client.socket.write(get('/quick'));
        const answers = parseResponses(await client.received);
        assert.deepEqual(
          answers.map((r) => `${r.status} ${r.body} ${r.headers.connection}`),
          ['200 kept keep-alive', '200 quick close'],
        );
        assert.equal(await serverClosed, undefined);
      },
    );

    it(
      'answers the next request of a client reusing its kept-alive connection as the close begins',
      { timeout: 15000 },
      async () => {
        // A grace far beyond the test's own timing: the next request must be answered
        // because of it, however late this machine lets the client send it.
        const { server, port } = await withFarDeadline({ idleGrace: LONG_GRACE });
        const reused = await connect(port);
        const first = new Promise<void>((resolve) => reused.socket.once('data', () => resolve()));
        reused.socket.write(get('/quick'));
        await first;
        const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
        // The client's next request, sent back to back with the close, as under keep-alive load.
        reused.socket.write(get('/quick'));
        const answers = parseResponses(await reused.received);
        assert.deepEqual(
          answers.map((r) => `${r.status} ${r.body} ${r.headers.connection}`),
          ['200 quick keep-alive', '200 quick close'],
        );
        assert.equal(await serverClosed, undefined);
      },
    );

    it(
      'answers the request a client sends right after a response that promised keep-alive ends in the drain',
      { timeout: 15000 },
      async () => {
        const { server, port, entered, release } = await withKeptAlive({ idleGrace: LONG_GRACE });
        const streaming = await connect(port);
        // The download's headers go out (keep-alive) before the close; its body ends during the drain.
        let seen = 0;
        const downloaded = new Promise<void>((resolve, reject) => {
          streaming.socket.on('data', (chunk: Buffer) => {
            seen += chunk.length;
            if (seen >= DOWNLOAD.length) resolve();
          });
          // Cut short: fail here rather than wait for the test's timeout.
          streaming.socket.once('close', () => reject(new Error(`the download ended after ${seen} bytes`)));
        });
        streaming.socket.write(get('/download'));
        await entered.download.promise;
        const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
        release.resolve();
        await downloaded;
        // What a keep-alive client does next: its next request, on the same connection.
        streaming.socket.write(get('/quick'));
        const answers = parseResponses(await streaming.received);
        assert.deepEqual(
          answers.map((r) => `${r.status} ${r.body.length} ${r.headers.connection}`),
          [`200 ${DOWNLOAD.length} keep-alive`, '200 5 close'],
        );
        assert.equal(await serverClosed, undefined);
      },
    );

    it(
      'writes the whole of a response ended just before the close to a client that reads it slowly',
      { timeout: 15000 },
      async () => {
        // res.end() hands Node the whole body at once; to a client that is not reading,
        // most of it waits in the socket's buffer. Node's closeIdleConnections takes the
        // response for done once end() is called: run by the drain, it destroyed the
        // socket 100 ms in, and the rest of the body was lost.
        const { app, ended } = bigBodyApp();
        const server = webapp.graceful(await start(app), { signals: [] }) as http.Server;
        server.keepAliveTimeout = 10 * 60 * 1000;
        const { answers, serverClosed } = await readBigSlowlyAcrossClose(server, ended);
        assert.equal(answers.length, 1);
        assert.ok(answers[0]!.body.equals(BIG), 'the body arrives byte-complete');
        assert.equal(await serverClosed, undefined);
      },
    );

    it(
      'closes a connection made before graceful() once idle, after the responses it tracks are written',
      { timeout: 15000 },
      async () => {
        // Only Node's own idle list has such a connection; closing what that list holds
        // must wait until no tracked response is still being written.
        const { app, ended } = bigBodyApp();
        const server = (await start(app)) as http.Server;
        server.keepAliveTimeout = 10 * 60 * 1000;
        const early = await connect((server.address() as AddressInfo).port);
        const answered = new Promise<void>((resolve) => early.socket.once('data', () => resolve()));
        early.socket.write(get('/quick'));
        await answered;
        webapp.graceful(server, { signals: [] });
        const { answers, serverClosed } = await readBigSlowlyAcrossClose(server, ended);
        assert.ok(answers[0]!.body.equals(BIG), 'the body arrives byte-complete');
        assert.deepEqual(
          parseResponses(await early.received).map((r) => r.body.toString()),
          ['quick'],
        );
        assert.equal(await serverClosed, undefined);
      },
    );

    it(
      "reads and answers an upload whose 100-continue the app's checkContinue listener answered",
      { timeout: 15000 },
      async () => {
        // Node emits checkContinue instead of request when the server listens for it.
        const { server, port, app } = await withFarDeadline();
        server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => {
          res.writeContinue();
          app(req, res);
        });
        const uploader = await connect(port);
        const continued = new Promise<void>((resolve) => uploader.socket.once('data', () => resolve()));
        const expect = 'Expect: 100-continue\r\n';
        uploader.socket.write(`POST /upload HTTP/1.1\r\nHost: x\r\n${expect}Content-Length: ${UPLOAD.length}\r\n\r\n`);
        await continued;
        const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
        // Past the grace of connections without a request in progress, the body follows.
        await new Promise((resolve) => setTimeout(resolve, 300));
        uploader.socket.end(UPLOAD);
        const text = (await uploader.received).toString('latin1');
        assert.match(text, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
        assert.ok(text.endsWith(`\r\n\r\n${UPLOAD.length} ${sha(UPLOAD)}`), 'the whole upload was read');
        assert.match(text, /\r\nConnection: close\r\n/);
        assert.equal(await serverClosed, undefined);
      },
    );

    it(
      'closes a connection whose client keeps its side open after a response ends in the drain',
      { timeout: 15000 },
      async () => {
        // A socket of an HTTP server allows half-open connections: ending ours alone left the
        // connection (and the drain) open until keepAliveTimeout or the deadline, both far away here.
        const { server, port, entered, release } = await withKeptAlive({ timeout: 10 * 60 * 1000 });
        const halfOpen = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
        await once(halfOpen, 'connect');
        const chunks: Buffer[] = [];
        halfOpen.on('data', (chunk: Buffer) => chunks.push(chunk));
        const ended = once(halfOpen, 'end');
        // Its head goes out (keep-alive) before the close, its body ends during the drain.
        halfOpen.write(get('/download'));
        await entered.download.promise;
        const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
        release.resolve();
        assert.equal(await serverClosed, undefined);
        await ended;
        const answers = parseResponses(Buffer.concat(chunks));
        assert.equal(answers.length, 1);
        assert.ok(answers[0]!.body.equals(DOWNLOAD), 'the download arrives byte-complete');
        halfOpen.destroy();
      },
    );

    it('destroys a connection made before graceful() when the deadline passes', { timeout: 15000 }, async () => {
      const { app, entered } = inFlightApp();
      const server = (await start(app)) as http.Server;
      const port = (server.address() as AddressInfo).port;
      const hung = await connect(port);
      hung.socket.write(get('/hang'));
      await entered.slow.promise;
      webapp.graceful(server, { signals: [], timeout: 50 });
      const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
      assert.equal((await hung.received).length, 0);
      assert.equal(await serverClosed, undefined);
    });

    it(
      'answers a request whose first bytes came before the grace ended and the rest after it',
      { timeout: 15000 },
      async () => {
        // Node's own close() counts a connection busy from a request's first byte; the drain
        // took one whose head was still arriving for idle and destroyed it, fresh or kept alive.
        const { server, port } = await withFarDeadline();
        const fresh = await connect(port);
        const kept = await connect(port);
        const first = new Promise<void>((resolve) => kept.socket.once('data', () => resolve()));
        kept.socket.write(get('/quick'));
        await first;
        const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
        const request = get('/quick');
        for (const { socket } of [fresh, kept]) socket.write(request.slice(0, 10));
        // Past the grace of connections without a request in progress, the rest of the head.
        await new Promise((resolve) => setTimeout(resolve, 300));
        for (const { socket } of [fresh, kept]) socket.write(request.slice(10));
        const answers = [...parseResponses(await fresh.received), ...parseResponses(await kept.received)];
        assert.deepEqual(
          answers.map((r) => `${r.status} ${r.body} ${r.headers.connection}`),
          ['200 quick close', '200 quick keep-alive', '200 quick close'],
        );
        assert.equal(await serverClosed, undefined);
      },
    );

    it(
      'answers the first request of a connection made just before the close, with Connection: close',
      { timeout: 15000 },
      async () => {
        const { server, port } = await withFarDeadline({ idleGrace: LONG_GRACE });
        const accepted = once(server, 'connection');
        const fresh = await connect(port);
        // Accepted by the server before the close (the client's connect can come first).
        await accepted;
        const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
        // Sent once the close has begun, as a request in the socket buffer that the server had not read yet.
        fresh.socket.write(get('/quick'));
        const [answer] = parseResponses(await fresh.received);
        assert.equal(answer!.status, 200);
        assert.equal(answer!.body.toString(), 'quick');
        assert.equal(answer!.headers.connection, 'close');
        assert.equal(await serverClosed, undefined);
      },
    );

    it('leaves an upgraded connection (a WebSocket) to the app, as the deadline does', { timeout: 15000 }, async () => {
      const { WebSocketServer, WebSocket } = require('ws');
      const { server, port } = await withFarDeadline();
      const sockets = new WebSocketServer({ server });
      const client = new WebSocket(`ws://127.0.0.1:${port}/`);
      await new Promise((resolve, reject) => client.once('open', resolve).once('error', reject));
      const closedBy: string[] = [];
      client.once('close', (code: number) => closedBy.push(`close frame ${code}`));
      const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
      // Longer than a connection without a request may stay: a WebSocket is not one of those.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(client.readyState, WebSocket.OPEN);
      // The app says goodbye in its own protocol, and the drain then ends.
      for (const socket of sockets.clients) socket.close(1001, 'going away');
      assert.equal(await serverClosed, undefined);
      await new Promise((resolve) =>
        client.readyState === WebSocket.CLOSED ? resolve(undefined) : client.once('close', resolve),
      );
      assert.deepEqual(closedBy, ['close frame 1001']);
    });

    it(
      'onDrain runs as the drain begins: the app closes its WebSockets there, and the drain ends',
      { timeout: 15000 },
      async () => {
        // onShutdown and the server's `close` come only once every connection has closed,
        // upgraded ones too: a WebSocket closed there held the drain to its deadline.
        const { WebSocketServer, WebSocket } = require('ws');
        const { app } = inFlightApp();
        const listening = await start(app);
        const sockets = new WebSocketServer({ server: listening });
        const order: string[] = [];
        const server = webapp.graceful(listening, {
          signals: [],
          timeout: 10 * 60 * 1000,
          onDrain() {
            order.push('onDrain');
            for (const socket of sockets.clients) socket.close(1001, 'going away');
          },
        }) as http.Server;
        const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`);
        await new Promise((resolve, reject) => client.once('open', resolve).once('error', reject));
        const closedBy = new Promise((resolve) => client.once('close', (code: number) => resolve(code)));
        const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
        assert.deepEqual(order, ['onDrain']);
        assert.equal(await closedBy, 1001);
        assert.equal(await serverClosed, undefined);
      },
    );

    it(
      'closes a connection that sends no request, so the drain ends well before the deadline',
      { timeout: 15000 },
      async () => {
        const { server, port } = await withFarDeadline();
        const silent = await connect(port);
        const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
        assert.equal((await silent.received).length, 0);
        assert.equal(await serverClosed, undefined);
      },
    );
  });
}

describe('webapp.graceful()', () => {
  it('returns the same server, once per server', async () => {
    const server = http.createServer();
    assert.equal(webapp.graceful(server, { signals: [] }), server);
    const close = server.close;
    assert.equal(webapp.graceful(server, { signals: [] }), server);
    assert.equal(server.close, close);
  });

  it('listens for its signals again when a server it drains listens again', async () => {
    const before = process.listenerCount('SIGUSR2');
    const server = webapp.graceful(http.createServer(), { signals: ['SIGUSR2'] });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await new Promise((resolve) => server.close(resolve));
    assert.equal(process.listenerCount('SIGUSR2'), before);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    assert.equal(process.listenerCount('SIGUSR2'), before + 1);
    await new Promise((resolve) => server.close(resolve));
    assert.equal(process.listenerCount('SIGUSR2'), before);
  });

  it('listens for its signals only while a server it drains is open', async () => {
    const before = process.listenerCount('SIGUSR2');
    const first = webapp.graceful(http.createServer(), { signals: ['SIGUSR2'] });
    const second = webapp.graceful(http.createServer(), { signals: ['SIGUSR2'] });
    await Promise.all(
      [first, second].map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))),
    );
    assert.equal(process.listenerCount('SIGUSR2'), before + 1, 'one listener, shared');
    await new Promise((resolve) => first.close(resolve));
    assert.equal(process.listenerCount('SIGUSR2'), before + 1);
    await new Promise((resolve) => second.close(resolve));
    assert.equal(process.listenerCount('SIGUSR2'), before);
  });

  it('takes no signal for a server that never listens or fails to: nothing keeps it, or its app', async () => {
    // The signal registry is the process's, and such a server emits no `close` to leave it.
    const before = process.listenerCount('SIGUSR2');
    const busy = http.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const neverListens = webapp.graceful(http.createServer(webapp()), { signals: ['SIGUSR2'] });
      assert.equal(neverListens.listening, false);
      assert.equal(process.listenerCount('SIGUSR2'), before);

      const failing = webapp.graceful(http.createServer(webapp()), { signals: ['SIGUSR2'] });
      const failed = new Promise<NodeJS.ErrnoException>((resolve) => failing.once('error', resolve));
      failing.listen((busy.address() as AddressInfo).port, '127.0.0.1');
      assert.equal((await failed).code, 'EADDRINUSE');
      assert.equal(process.listenerCount('SIGUSR2'), before);

      // The same server listening on a free port takes the signal, and gives it back on close.
      await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
      assert.equal(process.listenerCount('SIGUSR2'), before + 1);
      await new Promise((resolve) => failing.close(resolve));
      assert.equal(process.listenerCount('SIGUSR2'), before);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });

  it('rejects a deadline or an idle grace that is not a number of milliseconds', () => {
    for (const timeout of [NaN, -1, Infinity]) {
      assert.throws(
        () => webapp.graceful(http.createServer(), { timeout, signals: [] }),
        /timeout must be a number of milliseconds/,
      );
      assert.throws(
        () => webapp.graceful(http.createServer(), { idleGrace: timeout, signals: [] }),
        /idleGrace must be a number of milliseconds/,
      );
    }
    assert.throws(
      () => webapp.graceful(http.createServer(), { onDrain: 'close' as never, signals: [] }),
      /onDrain must be a function/,
    );
    assert.throws(
      () => webapp.graceful(http.createServer(), { onShutdown: 'close' as never, signals: [] }),
      /onShutdown must be a function/,
    );
  });

  it('rejects signals the process cannot catch, or that do not exist, when called', () => {
    // SIGKILL threw out of the server's `listening` event, where the signals are taken.
    for (const [signals, message] of [
      [['SIGKILL'], /SIGKILL cannot be caught/],
      [['SIGTERM', 'SIGSTOP'], /SIGSTOP cannot be caught/],
      [['SIGTERMX'], /SIGTERMX is not a signal name/],
      [[15], /15 is not a signal name/],
      ['SIGTERM', /signals must be an array/],
    ] as const) {
      const before = process.listenerCount('SIGTERM');
      assert.throws(() => webapp.graceful(http.createServer(), { signals: signals as never }), message);
      assert.equal(process.listenerCount('SIGTERM'), before);
    }
  });

  it('closes a plain HTTP/2 connection that sends nothing at the idle grace, as an HTTP/1 one', async () => {
    // http2.createServer gives a connection its session at once; the session waited for
    // the client's preface, and held the drain to its deadline (a TCP health check does this).
    const http2 = await import('node:http2');
    const server = webapp.graceful(http2.createServer(webapp()), { signals: [], timeout: 10_000, idleGrace: 50 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const silent = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
    // It reads nothing either (a check that connects and waits): a session that can
    // write its GOAWAY to a reading client closes sooner.
    await once(silent, 'connect');
    const started = Date.now();
    try {
      assert.equal(await new Promise<Error | undefined>((resolve) => server.close(resolve)), undefined);
      // Well before the deadline; not a timing of the grace itself.
      assert.ok(Date.now() - started < 5_000, `closed after ${Date.now() - started} ms`);
    } finally {
      silent.destroy();
    }
  });

  it('close() on a server that is not listening still reports the error to its callback', async () => {
    const server = webapp.graceful(http.createServer(), { signals: [] });
    const err = await new Promise<Error | undefined>((resolve) => server.close(resolve));
    assert.equal((err as NodeJS.ErrnoException).code, 'ERR_SERVER_NOT_RUNNING');
  });
});

describe('graceful: clients that leave with requests pipelined', () => {
  it('forgets the responses and sockets of connections closed with requests still queued', async () => {
    // A client sends a slow request and three more behind it, then closes. Node 20
    // never finishes or closes the queued responses; Node 26 closes them after the
    // socket. Either way nothing of those connections may stay reachable from the drain.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const alive = { responses: [] as WeakRef<object>[], sockets: [] as WeakRef<object>[] };
    const app = webapp();
    app.use((req: Any, res: Any, next: Any) => {
      alive.responses.push(new WeakRef(res));
      alive.sockets.push(new WeakRef(req.socket));
      next();
    });
    app.get('/slow', (_req: Any, res: Any) => setTimeout(() => res.send('slow'), 20));
    app.get('/hello', (_req: Any, res: Any) => res.send('hello'));
    const server = webapp.graceful(http.createServer(app), { signals: [] });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const pipelined = 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\n' + 'GET /hello HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(3);
    for (let i = 0; i < 60; i++) {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(pipelined));
      setTimeout(() => socket.destroy(), 5);
      await once(socket, 'close');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const live = (refs: WeakRef<object>[]) => refs.filter((ref) => ref.deref() !== undefined).length;
    assert.ok(alive.responses.length >= 60, `${alive.responses.length} requests reached the app`);
    assert.deepEqual({ responses: live(alive.responses), sockets: live(alive.sockets) }, { responses: 0, sockets: 0 });
    await server.close();
  });
});

describe('graceful: hooks, early answers, long deadlines and upgrades during the drain', () => {
  /** A plain server over `app`, graceful with a far deadline unless `options` say otherwise. */
  async function drained(app: http.RequestListener, options: webapp.GracefulOptions = {}) {
    const server = webapp.graceful(http.createServer(app), { signals: [], timeout: 10 * 60 * 1000, ...options });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, port: (server.address() as AddressInfo).port };
  }

  /**
   * Sends `/slow` to an inFlightApp served by `server`, closes the server while it waits,
   * lets it answer `pause` ms later, and asserts the answer came whole and the close reports
   * no error.
   */
  async function closeWhileSlow(
    server: http.Server,
    port: number,
    { entered, release }: Pick<ReturnType<typeof inFlightApp>, 'entered' | 'release'>,
    pause: number,
  ): Promise<void> {
    const slow = await connect(port);
    slow.socket.write(get('/slow'));
    await entered.slow.promise;
    const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
    await new Promise((resolve) => setTimeout(resolve, pause));
    release.resolve();
    const [answer] = parseResponses(await slow.received);
    assert.equal(answer!.body.toString(), 'slow done');
    assert.equal(await serverClosed, undefined);
  }

  it('an async onDrain that rejects is reported, and the drain goes on', { timeout: 15000 }, async () => {
    const inFlight = inFlightApp();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      const { server, port } = await drained(inFlight.app, {
        onDrain: async () => {
          await Promise.resolve();
          throw new Error('websockets could not be closed');
        },
      });
      await closeWhileSlow(server, port, inFlight, 20);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, /onDrain threw: Error: websockets could not be closed/);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it(
    "an upload the app's checkContinue accepts later, with a request pipelined behind it: both answered",
    { timeout: 15000 },
    async () => {
      // The app's checkContinue listener checks something asynchronously, then emits the
      // upload as a request. Counted again then, the upload became the connection's newest
      // response: the drain made it the last, and the answer of the request behind it,
      // whose work the app had done, was cut off with the connection.
      const entered = { upload: signal(), behind: signal() };
      const release = signal();
      const app = webapp();
      app.post('/upload', async (req: Any, res: Any) => {
        req.resume();
        entered.upload.resolve();
        await release.promise;
        res.send('uploaded');
      });
      app.get('/behind', async (_req: Any, res: Any) => {
        entered.behind.resolve();
        await release.promise;
        res.send('behind done');
      });
      const { server, port } = await drained(app);
      const accept = signal();
      server.on('checkContinue', async (req: http.IncomingMessage, res: http.ServerResponse) => {
        await accept.promise;
        res.writeContinue();
        server.emit('request', req, res);
      });
      const client = await connect(port);
      client.socket.write(
        'POST /upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello' + get('/behind'),
      );
      await entered.behind.promise;
      accept.resolve();
      await entered.upload.promise;
      const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
      release.resolve();
      const text = (await client.received).toString('latin1');
      assert.ok(text.startsWith('HTTP/1.1 100 Continue\r\n\r\n'), text);
      const answers = parseResponses(Buffer.from(text.slice('HTTP/1.1 100 Continue\r\n\r\n'.length), 'latin1'));
      assert.deepEqual(
        answers.map((answer) => [answer.body.toString(), answer.headers.connection]),
        [
          ['uploaded', 'keep-alive'],
          ['behind done', 'close'],
        ],
      );
      assert.equal(await serverClosed, undefined);
    },
  );

  it('a response whose `req` the app took away is no crash', { timeout: 15000 }, async () => {
    const app = webapp();
    app.get('/', (_req: Any, res: Any) => {
      res.req = undefined;
      res.end('answered');
    });
    const { server, port } = await drained(app);
    const client = await connect(port);
    client.socket.write(get('/'));
    const answered = new Promise<void>((resolve) => client.socket.once('data', () => resolve()));
    await answered;
    client.socket.end();
    await client.received;
    const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
    assert.equal(await serverClosed, undefined);
  });

  it('a connection answered before its request body came is idle once the body has', { timeout: 15000 }, async () => {
    // A 401 (or a 413) sent before reading the upload: the rest of the body is not a next request.
    const app = webapp();
    app.post('/upload', (_req: Any, res: Any) => res.status(401).send('sign in first'));
    const { server, port } = await drained(app);
    const client = await connect(port);
    client.socket.write('POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 20000\r\n\r\n');
    client.socket.write(Buffer.alloc(5000, 'a'));
    await new Promise<void>((resolve) => client.socket.once('data', () => resolve()));
    const started = Date.now();
    const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
    client.socket.write(Buffer.alloc(15000, 'b'));
    assert.equal(await serverClosed, undefined);
    const [answer] = parseResponses(await client.received);
    assert.equal(answer!.status, 401);
    assert.ok(Date.now() - started < 5000, `the drain took ${Date.now() - started} ms`);
  });

  it('a deadline beyond what a timer takes is the longest one, not 1 ms', { timeout: 15000 }, async () => {
    const inFlight = inFlightApp();
    const { server, port } = await drained(inFlight.app, { timeout: 2 ** 31, idleGrace: 2 ** 32 });
    await closeWhileSlow(server, port, inFlight, 50);
  });

  it(
    'an upgrade asked for during the drain is refused with a 503, and the drain ends',
    { timeout: 15000 },
    async () => {
      const { WebSocketServer } = require('ws');
      const app = webapp();
      const { server, port } = await drained(app, { idleGrace: LONG_GRACE });
      const sockets = new WebSocketServer({ server });
      const opened: string[] = [];
      sockets.on('connection', () => opened.push('opened'));
      // Connected before the close; the upgrade request comes within the grace.
      const client = await connect(port);
      const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
      client.socket.write(
        'GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
      const received = (await client.received).toString('latin1');
      assert.match(received, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
      assert.equal(await serverClosed, undefined);
      assert.deepEqual(opened, []);
    },
  );

  it(
    'a CONNECT asked for during the drain is refused with a 503: no tunnel holds the drain',
    { timeout: 15000 },
    async () => {
      // The app's `connect` listener opened a tunnel after the close, which held the
      // drain to its deadline.
      const app = webapp();
      const { server, port } = await drained(app, { idleGrace: LONG_GRACE, timeout: 10000 });
      const tunnels: string[] = [];
      server.on('connect', (req: Any, socket: net.Socket) => {
        tunnels.push(req.url);
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        // As a proxy's tunnel does: closed on its side when the client closes its own.
        socket.on('end', () => socket.end());
      });
      // Before the close, a tunnel opens (and the client closes it).
      const before = await connect(port);
      before.socket.write('CONNECT upstream.example:443 HTTP/1.1\r\nHost: upstream.example:443\r\n\r\n');
      await new Promise<void>((resolve) => before.socket.once('data', () => resolve()));
      before.socket.end();
      await before.received;
      const client = await connect(port);
      const started = Date.now();
      const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
      client.socket.write('CONNECT upstream.example:443 HTTP/1.1\r\nHost: upstream.example:443\r\n\r\n');
      const received = (await client.received).toString('latin1');
      assert.match(received, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
      assert.equal(await serverClosed, undefined);
      assert.deepEqual(tunnels, ['upstream.example:443']);
      assert.ok(Date.now() - started < 5000, `the drain took ${Date.now() - started} ms`);
    },
  );
});
