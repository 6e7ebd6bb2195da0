/**
 * Requests and responses born with the app's prototypes (src/server-classes.ts):
 * under app.listen always, under http.createServer(app) from the second request
 * on, and never where another listener or custom classes could be affected.
 */
import assert from 'node:assert/strict';
import diagnostics_channel from 'node:diagnostics_channel';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import express from 'express';
import webapp = require('../../src/index');
import webapp3 = require('../../src/v3/index');
import { exchange } from '../support/raw-http';

type Req = http.IncomingMessage & Record<string, any>;
type Res = http.ServerResponse & Record<string, any>;

/** How each request reached the handler: swapped to app.request, or constructed with it. */
function probeApp() {
  const app = webapp();
  const seen: string[] = [];
  app.get('/', (req: Req, res: Res) => {
    const swapped = Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response;
    seen.push(swapped ? 'swapped' : 'born');
    assert.ok(
      Object.prototype.isPrototypeOf.call(app.request, req) && Object.prototype.isPrototypeOf.call(app.response, res),
    );
    assert.ok(req instanceof http.IncomingMessage && res instanceof http.ServerResponse);
    // Object.is, not ===: a `constructor ===` check would narrow req/res to Node's bare classes.
    assert.ok(Object.is(req.constructor, http.IncomingMessage) && Object.is(res.constructor, http.ServerResponse));
    res.send(`${req.get('x-probe')} ${req.hostname}`);
  });
  return { app, seen };
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function getTwice(base: string): Promise<string[]> {
  const bodies: string[] = [];
  for (let i = 0; i < 2; i++)
    bodies.push(await (await fetch(base + '/', { headers: { 'x-probe': String(i) } })).text());
  return bodies;
}

describe('app-born requests and responses', () => {
  it('app.listen constructs them with the app prototypes from the first request', async () => {
    const { app, seen } = probeApp();
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      assert.deepEqual(await getTwice(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), [
        '0 127.0.0.1',
        '1 127.0.0.1',
      ]);
      assert.deepEqual(seen, ['born', 'born']);
    } finally {
      server.close();
    }
  });

  it('http.createServer(app) swaps the first request, then the server constructs app-born ones', async () => {
    const { app, seen } = probeApp();
    const server = http.createServer(app);
    try {
      assert.deepEqual(await getTwice(await listen(server)), ['0 127.0.0.1', '1 127.0.0.1']);
      assert.deepEqual(seen, ['swapped', 'born']);
    } finally {
      server.close();
    }
  });

  it('leaves a server alone when the app is not its only request listener', async () => {
    const { app, seen } = probeApp();
    const server = http.createServer(app);
    let observed = 0;
    server.on('request', () => observed++);
    try {
      await getTwice(await listen(server));
      assert.deepEqual(seen, ['swapped', 'swapped']);
      assert.equal(observed, 2);
    } finally {
      server.close();
    }
  });

  for (const start of ['app.listen', 'http.createServer(app)'] as const) {
    it(`${start} under webapp.graceful keeps constructing them: its drain is no listener of another's`, async () => {
      // The drain's own request listener, prepended to note each response, made the app
      // one of two listeners: the recommended `webapp.graceful(app.listen(port))` went
      // back to the per-request swap at its first request.
      const { app, seen } = probeApp();
      const server =
        start === 'app.listen' ? app.listen(0, '127.0.0.1') : http.createServer(app).listen(0, '127.0.0.1');
      webapp.graceful(server, { signals: [] });
      let observed = 0;
      await new Promise((resolve) => server.once('listening', resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        assert.deepEqual(await getTwice(base), ['0 127.0.0.1', '1 127.0.0.1']);
        assert.deepEqual(seen, start === 'app.listen' ? ['born', 'born'] : ['swapped', 'born']);
        // A listener of the app's own beside them: the server goes back to Node's classes.
        server.on('request', () => observed++);
        assert.deepEqual(await getTwice(base), ['0 127.0.0.1', '1 127.0.0.1']);
        assert.deepEqual(seen.slice(2), ['swapped', 'swapped']);
        assert.equal(observed, 2);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  }

  it('leaves a server with its own classes alone', async () => {
    class TracedRequest extends http.IncomingMessage {
      traced = true;
    }
    const app = webapp();
    app.get('/', (req: Req, res: Res) => res.send(String(req.traced)));
    const server = http.createServer({ IncomingMessage: TracedRequest }, app);
    try {
      assert.deepEqual(await getTwice(await listen(server)), ['true', 'true']);
    } finally {
      server.close();
    }
  });

  it('follows an app.request replaced after the server started', async () => {
    const app = webapp();
    app.get('/', (req: Req, res: Res) => res.send(typeof req.greet === 'function' ? req.greet() : 'plain'));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      assert.equal(await (await fetch(base)).text(), 'plain');
      app.request = Object.create(app.request, { greet: { value: () => 'hello' } });
      assert.equal(await (await fetch(base)).text(), 'hello');
    } finally {
      server.close();
    }
  });

  it('a mounted app sees its own prototypes and the parent gets its own back', async () => {
    const parent = webapp();
    const child = webapp();
    (child.request as unknown as Record<string, unknown>).side = 'child';
    (parent.request as unknown as Record<string, unknown>).side = 'parent';
    child.get('/', (req: Req, _res: Res, next: () => void) => {
      req.inner = req.side;
      next();
    });
    parent.use('/child', child);
    parent.use((req: Req, res: Res) => res.send(`${req.inner} ${req.side}`));
    const server = parent.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const text = await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/child`)).text();
      assert.equal(text, 'child parent');
    } finally {
      server.close();
    }
  });

  it(`finds Node's class slots on this Node line (${process.version})`, () => {
    // adoptServer relies on these internals; run on every line with npm test -- --node N.
    const server = http.createServer();
    const slots = Object.getOwnPropertySymbols(server).map((symbol) => [
      symbol.description,
      (server as unknown as Record<symbol, unknown>)[symbol],
    ]);
    assert.ok(
      slots.some(([name, value]) => name === 'IncomingMessage' && value === http.IncomingMessage),
      `no IncomingMessage slot on Node ${process.version}`,
    );
    assert.ok(
      slots.some(([name, value]) => name === 'ServerResponse' && value === http.ServerResponse),
      `no ServerResponse slot on Node ${process.version}`,
    );
  });

  it('falls back to the per-request swap on a Node whose server has no such slots, and answers the same', async () => {
    const { app, seen } = probeApp();
    const server = http.createServer(app);
    // A Node line that keeps its classes elsewhere: the slots are hidden from the lookup, Node still uses them.
    const ownSymbols = Object.getOwnPropertySymbols;
    Object.getOwnPropertySymbols = (target: object) =>
      target === server
        ? ownSymbols(target).filter(
            (symbol) => !['IncomingMessage', 'ServerResponse'].includes(symbol.description ?? ''),
          )
        : ownSymbols(target);
    try {
      assert.deepEqual(await getTwice(await listen(server)), ['0 127.0.0.1', '1 127.0.0.1']);
      assert.deepEqual(seen, ['swapped', 'swapped']);
    } finally {
      Object.getOwnPropertySymbols = ownSymbols;
      server.close();
    }
  });

  it('a server whose emit was wrapped after the app took it keeps the wrapper for a new app', async () => {
    const first = probeApp();
    const server = http.createServer(first.app);
    try {
      const base = await listen(server);
      await getTwice(base);
      // An instrumentation wraps the emit in place now (webapp's own, since the first request).
      const emit = server.emit;
      let wrapperCalls = 0;
      const wrapper = function (this: http.Server, ...args: unknown[]) {
        if (args[0] === 'request') wrapperCalls++;
        return (emit as (...args: unknown[]) => boolean).apply(this, args);
      } as typeof server.emit;
      server.emit = wrapper;
      // A development server reloading: the new app is served, by the per-request swap
      // (as Express), under the wrapper, which stays the server's and runs once per request.
      server.removeAllListeners('request');
      const next = probeApp();
      server.on('request', next.app);
      assert.deepEqual(
        [...(await getTwice(base)), ...(await getTwice(base))],
        ['0 127.0.0.1', '1 127.0.0.1', '0 127.0.0.1', '1 127.0.0.1'],
      );
      assert.deepEqual(next.seen, ['swapped', 'swapped', 'swapped', 'swapped']);
      assert.equal(server.emit, wrapper);
      assert.equal(wrapperCalls, 4);
    } finally {
      server.close();
    }
  });

  it('leaves a server whose emit was wrapped at its first request (Sentry-style): once per request', async () => {
    // Sentry's kind: at `http.server.request.start`, wrap the server's emit unless the
    // emit there is its own wrapper, known by a marker. Express's server keeps that
    // wrapper; an emit of webapp's over it hid it, and each later request wrapped again.
    const channel = diagnostics_channel.channel('http.server.request.start');
    let wrapperCalls = 0;
    const wrapOnce = ({ server }: { server: http.Server }) => {
      const emit = server.emit as typeof server.emit & { patched?: true };
      if (emit.patched) return;
      const wrapper = function (this: http.Server, ...args: unknown[]) {
        if (args[0] === 'request') wrapperCalls++;
        return (emit as (...args: unknown[]) => boolean).apply(this, args);
      };
      Object.defineProperty(wrapper, 'patched', { value: true });
      server.emit = wrapper as typeof server.emit;
    };
    channel.subscribe(wrapOnce as (message: unknown) => void);
    const { app, seen } = probeApp();
    const server = http.createServer(app);
    try {
      const base = await listen(server);
      await getTwice(base);
      await getTwice(base);
      assert.equal(wrapperCalls, 4);
      assert.deepEqual(seen, ['swapped', 'swapped', 'swapped', 'swapped']);
    } finally {
      channel.unsubscribe(wrapOnce as (message: unknown) => void);
      server.close();
    }
  });

  it('leaves a server whose emit is a getter of its own to the per-request swap', async () => {
    const { app, seen } = probeApp();
    const server = http.createServer(app);
    const emit = server.emit;
    Object.defineProperty(server, 'emit', { get: () => emit, configurable: true });
    try {
      assert.deepEqual(await getTwice(await listen(server)), ['0 127.0.0.1', '1 127.0.0.1']);
      assert.deepEqual(seen, ['swapped', 'swapped']);
    } finally {
      server.close();
    }
  });

  it('keeps what diagnostics_channel subscribers gave req and res, as express@4, however it is reached', async () => {
    // From Node 22 on, `http.server.response.created` subscribers run inside Node's
    // ServerResponse constructor: the app's class then declared `locals` over what one had
    // set. And where the app is not the only listener, or a `checkContinue` listener hands
    // the request to the app, the fields its classes declared were taken off the objects,
    // with the values subscribers had set (`http.server.request.start`, on every line).
    const created = diagnostics_channel.channel('http.server.response.created');
    const started = diagnostics_channel.channel('http.server.request.start');
    const onCreated = ({ response }: { response: Res }) => {
      response.locals = { traceId: 't-1' };
    };
    const onStarted = ({ request }: { request: Req }) => {
      request.originalUrl = '/as-the-proxy-saw-it';
    };
    const ways = ['app.listen', 'http.createServer(app)', 'a second request listener', 'a checkContinue listener'];
    const answers = async (framework: typeof webapp, way: string) => {
      const app = framework();
      app.all('/', (req: Req, res: Res) => res.json({ locals: res.locals, originalUrl: req.originalUrl }));
      const server = way === 'app.listen' ? app.listen(0, '127.0.0.1') : http.createServer(app);
      if (way === 'a second request listener') server.on('request', () => {});
      if (way === 'a checkContinue listener') {
        server.on('checkContinue', (req: Req, res: Res) => {
          res.writeContinue();
          app(req, res);
        });
      }
      if (way === 'app.listen') await new Promise((resolve) => server.once('listening', resolve));
      else await listen(server);
      const { port } = server.address() as AddressInfo;
      const ask = () =>
        new Promise<string>((resolve, reject) => {
          const headers = way === 'a checkContinue listener' ? { expect: '100-continue' } : {};
          const request = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers, agent: false });
          request.on('continue', () => request.end('x'));
          request.on('response', (response) => {
            let body = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (body += chunk));
            response.on('end', () => resolve(body));
          });
          request.on('error', reject);
          if (way !== 'a checkContinue listener') request.end('x');
        });
      try {
        return [await ask(), await ask()];
      } finally {
        server.close();
      }
    };
    created.subscribe(onCreated as (message: unknown) => void);
    started.subscribe(onStarted as (message: unknown) => void);
    try {
      // Node 20 has no response.created channel: the locals are then the app's own.
      const locals = Number(process.versions.node.split('.')[0]) >= 22 ? { traceId: 't-1' } : {};
      for (const way of ways) {
        const expected = await answers(express as unknown as typeof webapp, way);
        assert.deepEqual(
          expected.map((body) => JSON.parse(body)),
          Array(2).fill({ locals, originalUrl: '/as-the-proxy-saw-it' }),
          way,
        );
        assert.deepEqual(await answers(webapp, way), expected, way);
      }
    } finally {
      created.unsubscribe(onCreated as (message: unknown) => void);
      started.unsubscribe(onStarted as (message: unknown) => void);
    }
  });

  it('links req.res for a middleware moved ahead of expressInit, as express@4 answers it', async () => {
    // A health check put first (`stack.unshift(stack.pop())`) that answers with `res.json`
    // when the response has it and with Node's `res.end` otherwise: on app-born objects
    // `res.json` exists before expressInit, and `req.fresh` (read by res.send) found no
    // `req.res`: a 500 from the first request of app.listen on.
    const answers = async (framework: typeof webapp, start: string) => {
      const app = framework();
      app.get('/', (_req: Req, res: Res) => res.send('home'));
      app.use(function health(req: Req, res: Res, next: () => void) {
        if (req.url !== '/health') return next();
        if (typeof res.json === 'function') return res.json({ ok: true });
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.end(JSON.stringify({ ok: true }));
      });
      const stack = (app as unknown as { _router: { stack: unknown[] } })._router.stack;
      stack.unshift(stack.pop());
      const server = start === 'app.listen' ? app.listen(0, '127.0.0.1') : http.createServer(app);
      if (start === 'app.listen') await new Promise((resolve) => server.once('listening', resolve));
      else await listen(server);
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const seen: string[] = [];
        for (const path of ['/health', '/health', '/']) {
          const response = await fetch(base + path);
          seen.push(`${response.status} ${response.headers.get('content-type')} ${await response.text()}`);
        }
        return seen;
      } finally {
        server.close();
      }
    };
    for (const start of ['app.listen', 'http.createServer(app)']) {
      const expected = await answers(express as unknown as typeof webapp, start);
      assert.deepEqual(expected, [
        '200 application/json; charset=utf-8 {"ok":true}',
        '200 application/json; charset=utf-8 {"ok":true}',
        '200 text/html; charset=utf-8 home',
      ]);
      assert.deepEqual(await answers(webapp, start), expected, start);
    }
  });

  it("gives other listeners Node's request, without the link to its response, as express@4", async () => {
    const seenBy = async (framework: typeof webapp) => {
      const app = framework();
      app.all('/', (_req: Req, res: Res) => res.end('app'));
      const server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const seen: string[] = [];
      server.on('checkContinue', (req: Req, res: Res) => {
        seen.push(`checkContinue ${'res' in req} ${String(req.res)}`);
        res.writeContinue();
        app(req, res);
      });
      const { port } = server.address() as AddressInfo;
      const post = (expect: boolean) =>
        new Promise<void>((resolve, reject) => {
          const headers = expect ? { expect: '100-continue' } : {};
          const request = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers, agent: false });
          request.on('continue', () => request.end('x'));
          request.on('response', (response) => response.resume().on('end', resolve));
          request.on('error', reject);
          if (!expect) request.end('x');
        });
      try {
        await post(true);
        await post(false);
        // Ahead of the app, which links them in expressInit.
        server.prependListener('request', (req: Req) => seen.push(`request ${'res' in req} ${String(req.res)}`));
        await post(false);
        return seen;
      } finally {
        server.close();
      }
    };
    const expected = await seenBy(express as unknown as typeof webapp);
    assert.deepEqual(expected, ['checkContinue false undefined', 'request false undefined']);
    assert.deepEqual(await seenBy(webapp), expected);
  });

  it('webapp/v3 apps are served the same way', async () => {
    const app = webapp3();
    const seen: boolean[] = [];
    app.get('/', (req: Req, res: Res) => {
      seen.push(Object.getPrototypeOf(req) === app.request);
      res.send(String(req.host));
    });
    const server = http.createServer(app);
    try {
      const base = await listen(server);
      assert.equal(await (await fetch(base + '/')).text(), '127.0.0.1');
      assert.equal(await (await fetch(base + '/')).text(), '127.0.0.1');
      assert.deepEqual(seen, [true, false]);
    } finally {
      server.close();
    }
  });
  /** A listener that is no app: what its requests and responses carry. */
  function plainListener(req: Req, res: Res) {
    const facts = {
      proto: Object.getPrototypeOf(req) === http.IncomingMessage.prototype,
      app: req.app === undefined,
      json: res.json === undefined,
      ownKeys: ['next', 'baseUrl', 'originalUrl', 'params', 'res'].filter((key) => Object.hasOwn(req, key)),
    };
    res.end(JSON.stringify(facts));
  }

  const plainFacts = { proto: true, app: true, json: true, ownKeys: [] };

  for (const start of ['app.listen', 'http.createServer(app)']) {
    it(`${start}: a listener that replaces the app gets plain requests, and a new app the server`, async () => {
      const { app, seen } = probeApp();
      const server = start === 'app.listen' ? app.listen(0, '127.0.0.1') : http.createServer(app);
      try {
        const base =
          start === 'app.listen'
            ? await new Promise<string>((resolve) =>
                server.once('listening', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
              )
            : await listen(server);
        await getTwice(base);
        // A development server reloading: the old app goes, something else answers.
        server.removeAllListeners('request');
        server.on('request', plainListener);
        assert.deepEqual(JSON.parse(await (await fetch(base + '/')).text()), plainFacts);
        assert.deepEqual(JSON.parse(await (await fetch(base + '/')).text()), plainFacts);
        // The reloaded app takes the server over as the first one did.
        server.removeListener('request', plainListener);
        const next = probeApp();
        server.on('request', next.app);
        assert.deepEqual(await getTwice(base), ['0 127.0.0.1', '1 127.0.0.1']);
        assert.deepEqual(next.seen, ['swapped', 'born']);
        assert.deepEqual(seen, start === 'app.listen' ? ['born', 'born'] : ['swapped', 'born']);
      } finally {
        server.close();
      }
    });
  }

  /** What an `upgrade` or `connect` listener's request carries, sent down its socket. */
  function rawRequestFacts(req: Req, socket: import('node:stream').Duplex) {
    const facts = {
      proto: Object.getPrototypeOf(req) === http.IncomingMessage.prototype,
      app: req.app === undefined,
      ip: req.ip === undefined,
      ownKeys: ['next', 'baseUrl', 'originalUrl', '_parsedUrl', 'params', 'res'].filter((key) =>
        Object.hasOwn(req, key),
      ),
      symbols: Object.getOwnPropertySymbols(req).filter((symbol) => String(symbol).includes('webapp')).length,
    };
    const body = JSON.stringify(facts);
    socket.end(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
  }

  /** Sends `head` on a connection of its own; the body of the answer. */
  async function rawExchange(port: number, head: string): Promise<string> {
    const data = await exchange(port, head);
    return data.slice(data.indexOf('\r\n\r\n') + 4);
  }

  const hasUpgradeCallback = 'shouldUpgradeCallback' in http.createServer();
  it(
    "the server's shouldUpgradeCallback: the request's own fields as Node's; refused, the app answers it",
    { skip: hasUpgradeCallback ? false : `Node ${process.version} has no shouldUpgradeCallback` },
    async () => {
      const { app } = probeApp();
      const server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const asked: unknown[] = [];
      // Documented: Node calls it before any event, with the request the app's class built.
      (server as http.Server & { shouldUpgradeCallback(req: Req): boolean }).shouldUpgradeCallback = (req) => {
        asked.push([req.method, req.url, req.headers.upgrade]);
        return req.url === '/ws';
      };
      server.on('upgrade', rawRequestFacts);
      try {
        const port = (server.address() as AddressInfo).port;
        await getTwice(`http://127.0.0.1:${port}`);
        const head = (path: string) =>
          `GET ${path} HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nX-Probe: up\r\n\r\n`;
        const upgraded = JSON.parse(await rawExchange(port, head('/ws')));
        assert.deepEqual(upgraded, { proto: true, app: true, ip: true, ownKeys: [], symbols: 0 });
        // Not upgraded: an ordinary request of the app's, its members there.
        assert.equal(await rawExchange(port, head('/')), 'up a');
        assert.deepEqual(asked, [
          ['GET', '/ws', 'websocket'],
          ['GET', '/', 'websocket'],
        ]);
      } finally {
        server.close();
      }
    },
  );

  for (const start of ['app.listen', 'http.createServer(app)']) {
    it(`${start}: upgrade and connect listeners get Node's own requests, as from Express's server`, async () => {
      const { app } = probeApp();
      app.set('trust proxy', true);
      const server = start === 'app.listen' ? app.listen(0, '127.0.0.1') : http.createServer(app);
      if (start === 'app.listen') await new Promise((resolve) => server.once('listening', resolve));
      else await listen(server);
      server.on('upgrade', rawRequestFacts);
      server.on('connect', rawRequestFacts);
      try {
        const port = (server.address() as AddressInfo).port;
        // After ordinary requests, from which on the server builds with the app's classes.
        await getTwice(`http://127.0.0.1:${port}`);
        const upgrade = 'GET /ws HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n';
        const connect = 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n';
        const plain = { proto: true, app: true, ip: true, ownKeys: [], symbols: 0 };
        for (const head of [upgrade, connect]) {
          const answer = await rawExchange(port, head + 'X-Forwarded-For: 6.6.6.6\r\n\r\n');
          assert.deepEqual(JSON.parse(answer), plain, head);
        }
        // Ordinary requests still get the app's own.
        assert.deepEqual(await getTwice(`http://127.0.0.1:${port}`), ['0 127.0.0.1', '1 127.0.0.1']);
        // The app replaced: from the next request on, Node's emit again.
        server.removeAllListeners('request');
        server.on('request', plainListener);
        assert.deepEqual(
          JSON.parse(await rawExchange(port, 'GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')),
          plainFacts,
        );
        assert.equal(Object.hasOwn(server, 'emit'), false);
      } finally {
        server.close();
      }
    });
  }
});
