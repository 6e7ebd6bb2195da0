/**
 * The 3.x `res.sendfile(path, [options], [fn])` (kept on the response prototype
 * for webapp/v3): paths relative to the working directory or `root`, `fn()`
 * after sending, `fn(err)` or `next(err)` on failure, `next()` for a directory.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ErrorRequestHandler, Request, Response } from 'express';
import v3 = require('../../src/v3/index');
import { assertSameResponses } from '../support/differential';
import { express3Pair } from '../support/legacy-oracles';
import { close, createFixtures, eventually, listen, rawRequest, type Fixtures } from './support';

let fx: Fixtures;
before(() => {
  fx = createFixtures();
});
after(() => fx.cleanup());

type Sendfile = (path: string, options?: object | ((err?: Error) => void), fn?: (err?: Error) => void) => void;
const sendfile = (res: Response) => (res as unknown as { sendfile: Sendfile }).sendfile.bind(res);

async function run(handler: (req: Request, res: Response) => void, headers?: Record<string, string>) {
  // The 3.x semantics live on webapp/v3's response; 4.x's deprecated alias reports as Express 4 does.
  const app = v3();
  let nextErr: unknown;
  app.get('/', handler);
  app.use(((err, _req, res, _next) => {
    nextErr = err;
    res.statusCode = 599;
    res.end('error');
  }) as ErrorRequestHandler);
  const server = http.createServer(app);
  const port = await listen(server);
  try {
    const response = await rawRequest(port, '/', { headers });
    return { ...response, nextErr };
  } finally {
    await close(server);
  }
}

describe('res.sendfile (3.x)', () => {
  it('sends a path relative to the working directory, or to root, and calls fn()', async () => {
    let called: unknown = 'no';
    // The tests run from the repository root, where package.json is.
    const res = await run((_q, r) =>
      sendfile(r)('package.json', (err) => {
        called = err;
      }),
    );
    assert.equal(res.status, 200);
    assert.equal(res.text, readFileSync(join(process.cwd(), 'package.json'), 'utf8'));
    assert.equal(await eventually(() => called !== 'no'), true);
    assert.equal(called, undefined);
    const rooted = await run((_q, r) => sendfile(r)('users/tobi.txt', { root: fx.root, maxAge: 60_000 }));
    assert.equal(rooted.text, 'ferret');
    assert.equal(rooted.headers['cache-control'], 'public, max-age=60');
  });

  it('passes errors to fn, else to next(err); a directory to next()', async () => {
    let got: (Error & { status?: number }) | undefined;
    const withFn = await run((_q, r) =>
      sendfile(r)(join(fx.root, 'missing.txt'), (err) => {
        got = err;
        r.end('fn handled');
      }),
    );
    assert.equal(withFn.text, 'fn handled');
    assert.equal(got?.status, 404);
    const withoutFn = await run((_q, r) => sendfile(r)(join(fx.root, 'missing.txt')));
    assert.equal(withoutFn.status, 599);
    assert.equal((withoutFn.nextErr as { status: number }).status, 404);
    const traversal = await run((_q, r) => sendfile(r)('../secret.txt', { root: fx.root }));
    assert.equal((traversal.nextErr as { status: number }).status, 403);
    const dir = await run((_q, r) => sendfile(r)(join(fx.root, 'users')));
    assert.equal(dir.status, 404);
  });

  it('drops a Content-Disposition set for a download when the file fails', async () => {
    const res = await run((_q, r) => {
      r.setHeader('Content-Disposition', 'attachment; filename="x.txt"');
      sendfile(r)(join(fx.root, 'missing.txt'), () => r.end('failed'));
    });
    assert.equal(res.headers['content-disposition'], undefined);
    assert.equal(res.text, 'failed');
  });

  it('calls fn(err) with ECONNABORTED when the client left before the file was sent', async () => {
    // A download queued behind a slow answer on its connection, whose client closes
    // before its turn (3.x removes a download's temporary file in its callback), and a
    // request whose client is gone before the handler sends.
    const outcomes = new Map<string, string>();
    const queued: Response[] = [];
    let handled = 0;
    const report = (name: string) => (err?: Error) =>
      outcomes.set(name, err ? String((err as NodeJS.ErrnoException).code) : 'sent');
    const app = v3();
    app.get('/slow', () => undefined);
    app.get('/download', (_req: Request, res: Response) => {
      queued.push(res);
      (res as unknown as { download: Sendfile }).download(join(fx.root, 'todo.txt'), report('download'));
    });
    app.get('/sendfile', (_req: Request, res: Response) => {
      queued.push(res);
      sendfile(res)(join(fx.root, 'todo.txt'), report('queued sendfile'));
    });
    app.get('/late', (req: Request, res: Response) => {
      handled++;
      req.socket.once('close', () => sendfile(res)(join(fx.root, 'todo.txt'), report('late sendfile')));
    });
    const server = http.createServer(app);
    const port = await listen(server);
    try {
      const pipelined = net.connect(port, '127.0.0.1');
      pipelined.write(
        ['/slow', '/download', '/sendfile'].map((path) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''),
      );
      const headsMade = () => queued.length === 2 && queued.every((res) => res.getHeader('Content-Length'));
      assert.equal(await eventually(headsMade), true, 'both responses queued');
      pipelined.end();
      const alone = net.connect(port, '127.0.0.1');
      alone.write('GET /late HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.equal(await eventually(() => handled === 1), true);
      alone.end();
      assert.equal(await eventually(() => outcomes.size === 3), true, `callbacks: ${[...outcomes.keys()]}`);
      assert.deepEqual(Object.fromEntries(outcomes), {
        download: 'ECONNABORTED',
        'queued sendfile': 'ECONNABORTED',
        'late sendfile': 'ECONNABORTED',
      });
    } finally {
      await close(server);
    }
  });

  it('without fn, a client that left before the file was sent reaches no error handler', async () => {
    // Downloads queued behind a slow answer whose client closes (FIN) or resets before their
    // turn, and one whose client is gone before the handler sends: as on Express 3.21
    // (which wrote the heads at once, so its errors stayed in "limbo"), no error handler runs.
    const errors: string[] = [];
    let started = 0;
    const app = v3();
    app.get('/slow', () => undefined);
    app.get('/download', (_req: Request, res: Response) => {
      started++;
      (res as unknown as { download: (path: string) => void }).download(join(fx.root, 'todo.txt'));
    });
    app.get('/late', (req: Request, res: Response) => {
      started++;
      req.socket.once('close', () => sendfile(res)(join(fx.root, 'todo.txt')));
    });
    app.use(((err, _req, _res, next) => {
      errors.push(String((err as NodeJS.ErrnoException).code ?? err.message));
      next(err);
    }) as ErrorRequestHandler);
    const server = http.createServer(app);
    let open = 0;
    server.on('connection', (socket) => {
      open++;
      socket.on('close', () => open--);
    });
    const port = await listen(server);
    try {
      const request = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;
      const closed = net.connect(port, '127.0.0.1');
      closed.write(request('/slow') + request('/download') + request('/download'));
      const reset = net.connect(port, '127.0.0.1');
      reset.write(request('/slow') + request('/download'));
      const alone = net.connect(port, '127.0.0.1');
      alone.write(request('/late'));
      for (const socket of [closed, reset, alone]) socket.on('error', () => undefined);
      assert.equal(await eventually(() => started === 4), true, 'all queued and started');
      closed.end();
      reset.resetAndDestroy();
      alone.end();
      assert.equal(await eventually(() => open === 0), true, 'connections closed');
      // What the closes set going (an error passed on continues on a later turn) has run.
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(errors, []);
      // The server still answers.
      assert.equal((await rawRequest(port, '/download')).status, 200);
    } finally {
      await close(server);
    }
  });

  it('without fn, a file that fails reaches the error handlers even when the client has left', async () => {
    // Clients that close right after sending: the close is seen before the file's stat
    // fails, and the failure is still the app's to log, as in 3.21.
    const errors: string[] = [];
    let handled = 0;
    const app = v3();
    app.get('/missing', (_req: Request, res: Response) => {
      handled++;
      sendfile(res)(join(fx.root, 'no-such-folder', 'missing.txt'));
    });
    app.use(((err, _req, res, _next) => {
      errors.push(String((err as NodeJS.ErrnoException).code));
      res.end();
    }) as ErrorRequestHandler);
    const server = http.createServer(app);
    const port = await listen(server);
    try {
      for (let i = 0; i < 5; i++) {
        const client = net.connect(port, '127.0.0.1', () => {
          client.write('GET /missing HTTP/1.1\r\nHost: x\r\n\r\n');
          client.destroy();
        });
        client.on('error', () => undefined);
        await eventually(() => client.destroyed);
      }
      assert.equal(
        await eventually(() => handled > 0 && errors.length === handled),
        true,
        `${errors.length} of ${handled}`,
      );
      assert.deepEqual(new Set(errors), new Set(['ENOENT']));
    } finally {
      await close(server);
    }
  });

  it('honours ranges and conditional requests', async () => {
    const ranged = await run((_q, r) => sendfile(r)(join(fx.root, 'nums.txt')), { Range: 'bytes=2-4' });
    assert.equal(ranged.status, 206);
    assert.equal(ranged.text, '345');
    const etag = String(ranged.headers.etag);
    const cached = await run((_q, r) => sendfile(r)(join(fx.root, 'nums.txt')), { 'If-None-Match': etag });
    assert.equal(cached.status, 304);
  });
});

describe('res.sendfile (3.x) with a path that is not a string (taken from the query string)', () => {
  it('is made a string, as Express 3.21 makes it: an array names its file, an object is a 404', async () => {
    const responses = await assertSameResponses(
      (framework: any) => {
        const app = framework();
        app.get('/file', (req: any, res: any) => res.sendfile(req.query.f, { root: fx.root }));
        app.use((err: any, _req: any, res: any, _next: any) => {
          res.statusCode = err.status || 500;
          res.end('error ' + res.statusCode);
        });
        return app;
      },
      [
        { path: '/file?f=users/tobi.txt' },
        { path: '/file?f[]=users/tobi.txt' },
        { path: '/file?f[a]=1' },
        { path: '/file' },
      ],
      express3Pair,
    );
    assert.deepEqual(
      responses.map((res) => res.status),
      [200, 200, 404, 500],
    );
  });
});

describe('webapp/v3: the client errors of sending a file', () => {
  it('are made as send 0.13 makes them: not exposed, the message not enumerable, no headers', async () => {
    const responses = await assertSameResponses(
      (framework: any) => {
        const app = framework();
        app.get('/file', (req: any, res: any) => res.sendfile(String(req.query.f), { root: fx.root }));
        app.use('/static', framework.static(fx.root));
        app.use((err: any, _req: any, res: any, _next: any) => {
          res.statusCode = err.status || 500;
          res.setHeader('Content-Type', 'application/json');
          // What a 3.x logger or error page reads of it: its own keys, as JSON too.
          // The fixture folder (a fs error's `path`) read as `<root>`: recorded answers replay on other lines.
          const json = JSON.stringify(err).split(fx.root).join('<root>');
          const own = { keys: Object.keys(err), json, name: err.name };
          res.end(JSON.stringify({ expose: err.expose, shown: err.expose ? err.message : '', ...own }));
        });
        return app;
      },
      [
        { path: '/file?f=.hidden' },
        { path: '/file?f=../outside' },
        { path: '/file?f=missing.txt' },
        { path: '/file?f=a%00b' },
        { path: '/static/nums.txt', headers: { Range: 'bytes=50-60' } },
      ],
      express3Pair,
    );
    assert.deepEqual(
      responses.map((res) => [res.status, JSON.parse(res.body).expose]),
      [
        [404, false],
        [403, false],
        [404, false],
        [400, false],
        [416, false],
      ],
    );
  });
});
