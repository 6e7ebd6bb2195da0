/**
 * res.sendFile(path, [options], [fn]): differential against express@4 for options
 * and error paths, plus what a client cannot see: the callback's error for a
 * missing file, a directory and a client that aborted.
 */
import assert from 'node:assert/strict';
import fs, { unlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ErrorRequestHandler, Request, Response } from 'express';
import webapp = require('../../src/index');
import { assertSameResponses, type Framework, type RequestSpec } from '../support/differential';
import {
  close,
  createFixtures,
  eventually,
  FILE_TIME,
  listen,
  openFdCount,
  rawRequest,
  type Fixtures,
} from '../static/support';
import { exchange } from '../support/raw-http';

let fx: Fixtures;
before(() => {
  fx = createFixtures({ largeSize: 8 * 1024 * 1024 });
});
after(() => fx.cleanup());

const errorEcho: ErrorRequestHandler = (err, _req, res, _next) => {
  res.statusCode = typeof err.status === 'number' ? err.status : 500;
  res.setHeader('Content-Type', 'application/json');
  res.end(
    JSON.stringify({
      name: err.name,
      message: err.message,
      status: err.status,
      expose: err.expose,
      code: err.code,
      headers: err.headers,
    }),
  );
};

/** One route per case: GET /case/<n> calls `cases[n](req, res, next)`. */
type Case = (req: Request, res: Response, next: (err?: unknown) => void) => void;
function appWith(cases: Case[]) {
  return (framework: Framework) => {
    const app = framework();
    app.set('env', 'production');
    app.get('/case/:n', (req, res, next) => cases[Number(req.params.n)](req, res, next));
    app.use((_req, res) => {
      res.statusCode = 404;
      res.setHeader('x-fell-through', 'yes');
      res.end('fell through');
    });
    app.use(errorEcho);
    return app;
  };
}

/** A callback that reports what it got as the response. */
function reportingCallback(res: Response) {
  return (err?: NodeJS.ErrnoException & { status?: number; expose?: boolean }) => {
    if (res.headersSent) return;
    res.setHeader('x-callback', err ? 'error' : 'ok');
    res.end(
      err
        ? JSON.stringify({
            code: err.code,
            status: err.status,
            expose: err.expose,
            message: err.message,
            name: err.name,
          })
        : '',
    );
  };
}

describe('res.sendFile compatibility with express@4', () => {
  it('sends files with every option value', async () => {
    const file = (name: string) => join(fx.root, name);
    const cases: Case[] = [
      (_q, res) => res.sendFile(file('todo.txt')),
      (_q, res) => res.sendFile(file('todo.txt'), { maxAge: 60_000 }),
      (_q, res) => res.sendFile(file('todo.txt'), { maxAge: '1d', immutable: true }),
      (_q, res) => res.sendFile(file('todo.txt'), { maxAge: 'nonsense' }),
      (_q, res) => res.sendFile(file('todo.txt'), { lastModified: false }),
      (_q, res) => res.sendFile(file('todo.txt'), { cacheControl: false }),
      (_q, res) => res.sendFile(file('todo.txt'), { acceptRanges: false }),
      (_q, res) =>
        res.sendFile(file('todo.txt'), {
          headers: { 'X-Custom': 'yes', 'Cache-Control': 'no-store', 'Content-Type': 'text/x-todo' },
        }),
      (_q, res) => res.sendFile('todo.txt', { root: fx.root }),
      (_q, res) => res.sendFile('users/../todo.txt', { root: fx.root }),
      (_q, res) => res.sendFile('/users/tobi.txt', { root: fx.root }),
      (_q, res) => res.sendFile('../secret.txt', { root: fx.root }),
      (_q, res) => res.sendFile('users/../../secret.txt', { root: fx.root }),
      (_q, res) => res.sendFile(file('.hidden')),
      (_q, res) => res.sendFile(file('.hidden'), { dotfiles: 'allow' }),
      (_q, res) => res.sendFile(file('.hidden'), { dotfiles: 'deny' }),
      (_q, res) => res.sendFile(file('.secret/file.txt')),
      (_q, res) => res.sendFile('.secret/file.txt', { root: fx.root, dotfiles: 'ignore' }),
      (_q, res) => res.sendFile(file('nope.txt')),
      (_q, res) => res.sendFile(file('users')),
      (_q, res) => res.sendFile(file('todo.txt/x')),
      (_q, res) => res.sendFile(file('% of 100.txt')),
      (_q, res) => res.sendFile(file('foo bar.txt')),
      (_q, res) => res.sendFile(file('snow ☃.txt')),
      (_q, res) => res.sendFile(file('todo.txt'), reportingCallback(res)),
      (_q, res) => res.sendFile(file('nope.txt'), reportingCallback(res)),
      (_q, res) => res.sendFile(file('users'), reportingCallback(res)),
      (_q, res) => res.sendFile(file('.hidden'), {}, reportingCallback(res)),
      (_q, res) => res.sendFile('../secret.txt', { root: fx.root }, reportingCallback(res)),
      (_q, res) => res.sendFile('relative.txt'),
      (_q, res) => (res as unknown as { sendFile(p?: unknown): void }).sendFile(),
      (_q, res) => (res as unknown as { sendFile(p?: unknown): void }).sendFile(42),
      (_q, res) => res.sendFile(file('todo.txt'), { dotfiles: 'bogus' as 'allow' }),
      (_q, res) => {
        res.statusCode = 201;
        res.sendFile(file('todo.txt'));
      },
      (_q, res) => res.sendFile(file('data.json')),
      (_q, res) => res.sendFile(file('empty.txt')),
      (_q, res) => res.sendFile(file('todo.txt'), { root: '/' }),
      (_q, res) => res.sendFile(file('nums.txt'), { start: 2, end: 5 } as object),
      (_q, res) => res.sendFile(file('todo.txt'), { etag: false } as object),
      (_q, res) => res.sendFile(file('noext'), { extensions: ['txt'] } as object),
      (_q, res) => {
        res.setHeader('Content-Type', 'text/x-preset');
        res.setHeader('ETag', '"preset"');
        res.sendFile(file('todo.txt'));
      },
      (_q, res) => {
        // Once the head is out, the file's headers cannot be set: the callback gets a 500 error.
        res.write('partial;');
        res.sendFile(file('todo.txt'), (err?: Error & { status?: number; expose?: boolean }) => {
          res.end(err ? ` ${err.message} ${err.status} ${err.expose}` : ' no error');
        });
      },
    ];
    const requests: RequestSpec[] = cases.map((_c, n) => ({ path: '/case/' + n }));
    requests.push({ method: 'HEAD', path: '/case/0' });
    await assertSameResponses(appWith(cases), requests);
  });

  it('Windows drive and UNC paths count as absolute, as in Express (a 404 below the working directory)', async () => {
    const paths = ['C:\\a.txt', 'a:/etc/passwd', 'C:/tmp/x', '\\\\server\\share'];
    const cases: Case[] = [
      ...paths.map(
        (path): Case =>
          (_req, res) =>
            res.sendFile(path, reportingCallback(res)),
      ),
      ...paths.map(
        (path): Case =>
          (_req, res) =>
            res.sendFile(path),
      ),
      (_req, res) => res.sendFile('relative.txt'),
    ];
    const answers = await assertSameResponses(
      appWith(cases),
      cases.map((_c, n) => ({ path: `/case/${n}` })),
    );
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 200, 200, 404, 404, 404, 404, 500],
    );
    // The callback got the 404 of a file below the working directory.
    assert.deepEqual(JSON.parse(answers[0].body).status, 404);
  });

  it("an empty `maxage` string throws, as send 0.19's ms() does; an empty `maxAge` means 0", async () => {
    const cases: Case[] = [
      (_req, res) => res.sendFile('todo.txt', { root: fx.root, maxage: '' } as object, reportingCallback(res)),
      (_req, res) => res.sendFile('todo.txt', { root: fx.root, maxAge: '' }, reportingCallback(res)),
      (_req, res) => res.download(join(fx.root, 'todo.txt'), 'x.txt', { maxage: '' } as object),
    ];
    const answers = await assertSameResponses(
      appWith(cases),
      cases.map((_c, n) => ({ path: `/case/${n}` })),
    );
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [500, 200, 500],
    );
  });

  it('answers conditional and Range requests as send does', async () => {
    const cases: Case[] = [(_q, res) => res.sendFile(join(fx.root, 'nums.txt'))];
    const etag = 'W/"9-' + FILE_TIME.getTime().toString(16) + '"';
    const headers: Array<Record<string, string>> = [
      { Range: 'bytes=0-2' },
      { Range: 'bytes=-2' },
      { Range: 'bytes=50-' },
      { Range: 'bytes=0-1,5-6' },
      { Range: 'bytes=1-2', 'If-Range': etag },
      { Range: 'bytes=1-2', 'If-Range': '"other"' },
      { 'If-None-Match': etag },
      { 'If-Modified-Since': FILE_TIME.toUTCString() },
      { 'If-Match': '"x"' },
      { 'If-Unmodified-Since': new Date(0).toUTCString() },
    ];
    await assertSameResponses(
      appWith(cases),
      headers.map((h) => ({ path: '/case/0', headers: h })),
    );
  });
});

describe('files sent into a response the app makes itself', () => {
  // A page-capture or sub-request wrapper: a second ServerResponse for the live request,
  // whose output is collected and then sent in the real one. It has no socket and never
  // gets one, so it is not queued behind the request's own response on the connection.
  it('res.sendFile, res.download and static answer it at once, as with express@4', async () => {
    await assertSameResponses(
      (framework) => {
        const app = framework();
        app.get('/file', (_req, res) => res.sendFile(join(fx.root, 'nums.txt')));
        app.get('/with-callback', (_req, res) =>
          res.sendFile(join(fx.root, 'nums.txt'), (err) => err && res.status(500).end('callback: ' + err.message)),
        );
        app.get('/download', (_req, res) => res.download(join(fx.root, 'nums.txt')));
        app.use('/static', framework.static(fx.root));
        app.get('/capture', (req, res, next) => {
          const captured = new http.ServerResponse(req);
          let body = '';
          captured.write = (chunk: unknown) => ((body += String(chunk)), true);
          captured.end = ((chunk?: unknown) => {
            if (chunk) body += String(chunk);
            res.json({ status: captured.statusCode, type: captured.getHeader('Content-Type'), body });
            return captured;
          }) as typeof captured.end;
          // What the wrapper does when the app never answers: a hang would show as this.
          const timer = setTimeout(() => res.headersSent || res.status(504).end('never answered'), 3000);
          res.on('finish', () => clearTimeout(timer));
          req.url = String(req.query.path);
          (app as unknown as { handle(...args: unknown[]): void }).handle(req, captured, next);
        });
        return app;
      },
      ['/file', '/with-callback', '/download', '/static/nums.txt'].map((path) => ({
        path: '/capture?path=' + encodeURIComponent(path),
      })),
    ).then((answers) => {
      for (const answer of answers) assert.match(answer.body, /^\{"status":200,.*"body":"123456789"\}$/);
    });
  });
});

describe('res.sendFile callback and errors (webapp)', () => {
  async function run(handler: Case, path = '/'): Promise<{ status: number; body: string; nextErr?: unknown }> {
    const app = webapp();
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
      const response = await rawRequest(port, path);
      return { status: response.status, body: response.text, nextErr };
    } finally {
      await close(server);
    }
  }

  it('calls back without error after sending', async () => {
    let got: unknown = 'not called';
    const { status, body } = await run((_q, res) =>
      res.sendFile(join(fx.root, 'todo.txt'), (err) => {
        got = err;
      }),
    );
    assert.equal(status, 200);
    assert.equal(body, '- groceries');
    assert.equal(await eventually(() => got !== 'not called'), true);
    assert.equal(got, undefined);
  });

  it('calls back with a 404 error for a missing file and leaves the response to the callback', async () => {
    let got: (Error & { status?: number; code?: string; expose?: boolean }) | undefined;
    const { status, body } = await run((_q, res) =>
      res.sendFile(join(fx.root, 'missing.txt'), (err) => {
        got = err as typeof got;
        res.statusCode = 418;
        res.end('handled');
      }),
    );
    assert.equal(status, 418);
    assert.equal(body, 'handled');
    assert.equal(got?.status, 404);
    assert.equal(got?.code, 'ENOENT');
    assert.equal(got?.expose, false);
  });

  it('calls back with the open error when the file goes away or cannot be opened after its stat', async () => {
    // A file removed (or descriptors exhausted) between stat and open: the error, not a half response.
    const target = fs as unknown as { open: (...args: any[]) => void };
    const original = target.open;
    const victim = join(fx.root, 'vanishing.txt');
    writeFileSync(victim, 'soon gone');
    target.open = function (this: unknown, ...args: any[]) {
      if (args[0] === victim) unlinkSync(victim);
      if (args[0] === join(fx.root, 'todo.txt')) {
        return process.nextTick(
          args[args.length - 1],
          Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' }),
        );
      }
      return original.apply(this, args);
    };
    const outcomes: Array<{ status?: number; code?: string; expose?: boolean; headersSent: boolean } | undefined> = [];
    const report = (res: Response) => (err?: Error & { status?: number; code?: string; expose?: boolean }) => {
      outcomes.push(err && { status: err.status, code: err.code, expose: err.expose, headersSent: res.headersSent });
      // The file's headers are still set, as with send: the callback answers in their place.
      res.removeHeader('Content-Length');
      res.statusCode = 418;
      res.end('handled');
    };
    try {
      const gone = await run((_q, res) => res.sendFile(victim, report(res)));
      const exhausted = await run((_q, res) => res.sendFile(join(fx.root, 'todo.txt'), report(res)));
      assert.deepEqual([gone.status, gone.body, exhausted.status, exhausted.body], [418, 'handled', 418, 'handled']);
    } finally {
      target.open = original;
    }
    assert.deepEqual(outcomes, [
      { status: 404, code: 'ENOENT', expose: false, headersSent: false },
      { status: 500, code: 'EMFILE', expose: false, headersSent: false },
    ]);
    const again = await run((_q, res) => res.sendFile(join(fx.root, 'todo.txt')));
    assert.deepEqual([again.status, again.body], [200, '- groceries']);
  });

  it('passes errors to next without a callback, and directories to next()', async () => {
    const missing = await run((_q, res) => res.sendFile(join(fx.root, 'missing.txt')));
    assert.equal(missing.status, 599);
    assert.equal((missing.nextErr as { status: number }).status, 404);
    const dir = await run((_q, res) => res.sendFile(join(fx.root, 'users')));
    assert.equal(dir.status, 404);
    assert.match(dir.body, /Cannot GET \//);
    const traversal = await run((_q, res) => res.sendFile('../outside/secret.txt', { root: fx.root }));
    assert.equal(traversal.status, 599);
    assert.equal((traversal.nextErr as { status: number }).status, 403);
    assert.doesNotMatch(traversal.body, /SECRET/);
  });

  it('calls back with EISDIR for a directory', async () => {
    let code: string | undefined;
    await run((_q, res) =>
      res.sendFile(join(fx.root, 'users'), (err) => {
        code = (err as NodeJS.ErrnoException).code;
        res.end();
      }),
    );
    assert.equal(code, 'EISDIR');
  });

  it('throws for a relative path without root, before anything is sent', async () => {
    const result = await run((_q, res) => res.sendFile('todo.txt'));
    assert.equal(result.status, 599);
    assert.equal((result.nextErr as Error).message, 'path must be absolute or specify root to res.sendFile');
  });

  it('calls back with ECONNABORTED when the client aborts, and closes the file', async () => {
    const before = openFdCount();
    // Widened by `as`: the callback assigns it, so it must not stay narrowed to 'pending'.
    let callbackErr = 'pending' as NodeJS.ErrnoException | undefined | 'pending';
    const app = webapp();
    app.get('/large', (_req: Request, res: Response) =>
      res.sendFile(fx.large, (err) => {
        callbackErr = err;
      }),
    );
    const server = http.createServer(app);
    const port = await listen(server);
    try {
      await new Promise<void>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port, path: '/large', agent: false }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve() : reject(err)));
      });
      assert.equal(await eventually(() => callbackErr !== 'pending'), true, 'callback was called');
      assert.equal((callbackErr as NodeJS.ErrnoException).code, 'ECONNABORTED');
      assert.equal((callbackErr as Error).message, 'Request aborted');
    } finally {
      await close(server);
    }
    assert.equal(
      await eventually(() => openFdCount() <= before),
      true,
      `descriptors: before ${before}, after ${openFdCount()}`,
    );
  });

  it('calls back with ECONNABORTED for a pipelined request whose client left before its turn', async () => {
    // `/slow` holds the connection; the file requests behind it wait for their turn
    // (their files are opened then) and the client leaves first: nothing was sent.
    const outcomes = new Map<string, string>();
    const app = webapp();
    app.get('/slow', () => undefined);
    const report = (name: string) => (err?: NodeJS.ErrnoException) =>
      outcomes.set(name, err ? String(err.code) : 'sent');
    const queued: Response[] = [];
    const files: Record<string, string> = { small: join(fx.root, 'todo.txt'), large: fx.large, download: fx.large };
    app.get('/:name', (req: Request, res: Response) => {
      queued.push(res);
      const name = req.params.name!;
      if (name === 'download') res.download(files[name]!, report(name));
      else res.sendFile(files[name]!, report(req.method === 'HEAD' ? 'head' : name));
    });
    const server = http.createServer(app);
    const port = await listen(server);
    try {
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        ['GET /slow', 'GET /small', 'GET /large', 'GET /download', 'HEAD /small']
          .map((line) => `${line} HTTP/1.1\r\nHost: x\r\n\r\n`)
          .join(''),
      );
      // Each file found and its head made (a Content-Length), its response waiting for its turn.
      const headsMade = () => queued.length === 4 && queued.every((res) => res.getHeader('Content-Length'));
      assert.equal(await eventually(headsMade), true, 'the three responses queued');
      socket.destroy();
      assert.equal(await eventually(() => outcomes.size === 4), true, `callbacks: ${[...outcomes.keys()]}`);
      // The HEAD answer was made (ended) but never written out.
      assert.deepEqual(Object.fromEntries(outcomes), {
        small: 'ECONNABORTED',
        large: 'ECONNABORTED',
        download: 'ECONNABORTED',
        head: 'ECONNABORTED',
      });
    } finally {
      await close(server);
    }
  });
});

describe('res.sendFile robustness', () => {
  it('answers start/end options fs cannot read by with a 500 (express@4 ends the process)', async () => {
    const app = webapp();
    const windows: Record<string, object> = {
      negative: { start: -1 },
      fraction: { start: 1.5 },
      text: { start: '2' },
      // A negative length: send 0.19 writes it as the Content-Length.
      'end-before-start': { start: 5, end: 2 },
      'end-fraction': { end: 5.5 },
      'end-bigint': { end: BigInt(5) },
    };
    app.get('/:window', (req: Request, res: Response) =>
      res.sendFile(join(fx.root, 'nums.txt'), windows[req.params.window] as object),
    );
    app.use(((err, _req, res, _next) => {
      res.statusCode = 599;
      res.end(`${err.status} ${err.message}`);
    }) as ErrorRequestHandler);
    const server = http.createServer(app);
    const port = await listen(server);
    try {
      for (const name of Object.keys(windows)) {
        const response = await rawRequest(port, '/' + name);
        assert.equal(response.status, 599, name);
        assert.match(response.text, /^500 Invalid file window: "(start|end)" must be (an integer|a number)/, name);
      }
      assert.equal((await rawRequest(port, '/negative')).status, 599, 'and the server goes on');
    } finally {
      await close(server);
    }
  });

  it('start/end windows express@4 serves are served alike: `end` read as a number, NaN limiting nothing', async () => {
    const windows: Record<string, object> = {
      window: { start: 2, end: 5 },
      'to-infinity': { start: 4, end: Infinity },
      'past-the-end': { start: 100 },
      'start-nan': { start: NaN, end: 3 },
      'end-nan': { end: NaN },
      'end-text': { start: 2, end: '9' },
      'end-null': { end: null },
      'end-false': { end: false },
      'end-true': { end: true },
      'end-empty-text': { end: '' },
      'end-huge': { end: 2 ** 53 },
    };
    const [, ...answers] = await assertSameResponses(
      (framework: Framework) => {
        const app = framework();
        app.get('/:window', (req: Request, res: Response) =>
          res.sendFile(join(fx.root, 'nums.txt'), windows[req.params.window] as object),
        );
        return app;
      },
      ['/window', ...Object.keys(windows).flatMap((name) => ['/' + name, '/window'])].map((path) => ({ path })),
    );
    const content = fs.readFileSync(join(fx.root, 'nums.txt'), 'latin1');
    const body = (name: string) => answers[Object.keys(windows).indexOf(name) * 2].body;
    assert.equal(body('end-text'), content.slice(2, 10));
    assert.equal(body('end-nan'), content);
    assert.equal(body('end-null'), content.slice(0, 1));
  });

  it('an empty start/end window is an empty 200, and nothing more is written on the connection', async () => {
    // express@4 says Content-Length: 0, then streams one byte (fs reads `end` inclusive):
    // the next response on the connection starts with it.
    const app = webapp();
    const windows: Record<string, object> = { 'one-before': { start: 3, end: 2 }, 'end-negative': { end: -1 } };
    app.get('/after', (_req: Request, res: Response) => res.send('next'));
    app.get('/:window', (req: Request, res: Response) =>
      res.sendFile(join(fx.root, 'nums.txt'), windows[req.params.window] as object),
    );
    const server = http.createServer(app);
    const port = await listen(server);
    try {
      // One keep-alive connection, one request after the other.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const answers: Array<[number, string | undefined, string]> = [];
      try {
        for (const path of ['/one-before', '/after', '/end-negative', '/after']) {
          answers.push(
            await new Promise((resolve, reject) => {
              http
                .get({ host: '127.0.0.1', port, path, agent }, (res) => {
                  let text = '';
                  res.setEncoding('latin1');
                  res.on('data', (chunk: string) => (text += chunk));
                  res.on('end', () => resolve([res.statusCode!, res.headers['content-length'], text]));
                })
                .on('error', reject);
            }),
          );
        }
      } finally {
        agent.destroy();
      }
      assert.deepEqual(answers, [
        [200, '0', ''],
        [200, '4', 'next'],
        [200, '0', ''],
        [200, '4', 'next'],
      ]);
    } finally {
      await close(server);
    }
  });

  for (const size of ['short', 'long'] as const) {
    it(`a head Node refuses for a ${size} file: its error goes to the callback, the server goes on`, async () => {
      // A short file's write threw out of an fs callback, and a long file's out of the
      // stream's 'data' event inside Node's pipe (on Node 24 and later the pipe destroys
      // the response and reports the error, as for express@4 there; on Node 20 and 22
      // the throw ends express@4's process): the process ended.
      const { app, seen, report } = recordingApp();
      const file = size === 'short' ? join(fx.root, 'nums.txt') : fx.large;
      app.get('/status', (_req: Request, res: Response) => res.status(1000).sendFile(file, report));
      app.get('/message', (_req: Request, res: Response) => {
        res.statusMessage = 'a\nb';
        res.sendFile(file, report);
      });
      app.get('/trailer', (_req: Request, res: Response) => {
        res.set('Trailer', 'X-Sum');
        res.addTrailers({ 'X-Sum': '1' });
        res.sendFile(file, report);
      });
      // A body on a 204, which the server below refuses.
      app.get('/no-content', (_req: Request, res: Response) => res.status(204).sendFile(file, report));
      app.use(
        '/static',
        (_req: Request, res: Response, next: () => void) => {
          res.statusMessage = 'bad\r\nX: y';
          next();
        },
        webapp.static(fx.root),
      );
      app.get('/ok', (_req: Request, res: Response) => res.send('still serving'));
      const server = http.createServer({ rejectNonStandardBodyWrites: true }, app);
      const port = await listen(server);
      try {
        for (const path of ['/status', '/message', '/trailer', '/no-content', '/static/' + basename(file)]) {
          assert.equal(await bytesUntilClose(port, path), '', path);
        }
        assert.deepEqual(seen, [
          'ERR_HTTP_INVALID_STATUS_CODE',
          'ERR_INVALID_CHAR',
          'ERR_HTTP_TRAILER_INVALID',
          'ERR_HTTP_BODY_NOT_ALLOWED',
        ]);
        assert.equal((await rawRequest(port, '/ok')).text, 'still serving');
      } finally {
        await close(server);
      }
    });
  }

  it("a long file's first write comes before its head, for middleware that rewrites the body", async () => {
    // What express-interceptor, livereload injectors and minifiers do: decide on the first
    // write, while headers can still be set. webapp made the head of a file over 64 KB
    // before the pipe's first write, and such a middleware's setHeader threw out of the
    // stream's 'data' event: the process ended.
    const longFile = join(fx.root, 'long.txt');
    writeFileSync(longFile, 'x'.repeat(100_000));
    try {
      await assertSameResponses(
        (framework: Framework) => {
          const app = framework();
          app.use((_req: Request, res: Response, next: () => void) => {
            const write = res.write;
            res.write = function (this: Response, ...args: Parameters<Response['write']>) {
              res.write = write;
              res.setHeader('X-First-Write-Headers-Sent', String(res.headersSent));
              res.removeHeader('Content-Length');
              return (write as (...args: unknown[]) => boolean).apply(this, args);
            } as Response['write'];
            next();
          });
          app.get('/file', (_req: Request, res: Response) => res.sendFile(longFile));
          app.get('/download', (_req: Request, res: Response) => res.download(longFile));
          app.use('/static', framework.static(fx.root));
          return app;
        },
        ['/file', '/download', '/static/long.txt'].map((path) => ({ path })),
        undefined,
        (res) => {
          assert.equal(res.headers['x-first-write-headers-sent'], 'false');
          assert.equal(res.body.length, 100_000);
          return res;
        },
      );
    } finally {
      unlinkSync(longFile);
    }
  });

  it('a long file emptied after its stat: its head, then the callback without an error, as on express@4', async () => {
    // The stream reads nothing, so there is no first write: the response still ends (as
    // the pipe ends it in Express), before the callback hears of the end.
    const target = fs as unknown as { stat: (...args: any[]) => void };
    const original = target.stat;
    const shrinking = join(fx.root, 'shrinking.txt');
    target.stat = function (this: unknown, ...args: any[]) {
      const callback = args[args.length - 1] as (...results: unknown[]) => void;
      if (args[0] !== shrinking) return original.apply(this, args);
      return original.call(this, args[0], (err: unknown, stats: unknown) => {
        writeFileSync(shrinking, '');
        callback(err, stats);
      });
    };
    const outcome = async (framework: Framework) => {
      writeFileSync(shrinking, 'x'.repeat(100_000));
      const heard: unknown[] = [];
      const app = framework();
      app.get('/', (_req: Request, res: Response) =>
        res.sendFile(shrinking, (err) => heard.push(err ? String(err) : 'no error', res.writableEnded)),
      );
      const server = http.createServer(app);
      const port = await listen(server);
      try {
        const raw = await bytesUntilClose(port, '/');
        await eventually(() => heard.length === 2);
        return {
          status: raw.split(' ')[1],
          length: /content-length: (\d+)/i.exec(raw)?.[1],
          body: raw.split('\r\n\r\n')[1],
          heard,
        };
      } finally {
        await close(server);
      }
    };
    try {
      const ours = await outcome(webapp as unknown as Framework);
      const theirs = await outcome(require('express') as Framework);
      assert.deepEqual(ours, theirs);
      assert.deepEqual(ours, { status: '200', length: '100000', body: '', heard: ['no error', true] });
    } finally {
      target.stat = original;
      unlinkSync(shrinking);
    }
  });

  it('a long file waits for the drain its first write asks for, in a write wrapper too, as on express@4', async () => {
    // A wrapper that keeps the body itself (compression's does, in its zlib stream) says
    // false and emits 'drain' when it can take more; the response's own
    // writableNeedDrain knows nothing of it. No chunk may be read into it before then.
    const writesBeforeDrain = async (framework: Framework) => {
      const app = framework();
      let writes = 0;
      let seen = -1;
      app.use((_req: Request, res: Response, next: () => void) => {
        const write = res.write.bind(res) as (chunk: unknown) => boolean;
        const end = res.end.bind(res) as (chunk?: unknown) => Response;
        const held: unknown[] = [];
        let drained = false;
        res.write = ((chunk: unknown) => {
          writes++;
          if (drained) return write(chunk);
          held.push(chunk);
          if (writes === 1) {
            setTimeout(() => {
              seen = writes;
              drained = true;
              for (const chunk of held.splice(0)) write(chunk);
              res.emit('drain');
            }, 300);
          }
          return false;
        }) as Response['write'];
        res.end = ((chunk?: unknown) => {
          for (const chunk of held.splice(0)) write(chunk);
          return end(chunk);
        }) as Response['end'];
        next();
      });
      app.get('/file', (_req: Request, res: Response) => res.sendFile(fx.large));
      const server = http.createServer(app);
      const port = await listen(server);
      try {
        const body = await rawRequest(port, '/file');
        return { status: body.status, length: body.body.length, seen };
      } finally {
        await close(server);
      }
    };
    const ours = await writesBeforeDrain(webapp as unknown as Framework);
    const theirs = await writesBeforeDrain(require('express') as Framework);
    assert.deepEqual(theirs, { status: 200, length: fx.largeSize, seen: 1 });
    assert.deepEqual(ours, theirs);
  });

  it("a long file's 'pipe' event comes before its head and its first chunk, as on express@4", async () => {
    // A listener that sets a header once it knows a stream comes, and counts its bytes.
    const counted: number[] = [];
    const answers = await assertSameResponses(
      (framework: Framework) => {
        const app = framework();
        app.use((_req: Request, res: Response, next: () => void) => {
          res.on('pipe', (source: NodeJS.ReadableStream) => {
            res.setHeader('X-Piped-Before-Head', String(!res.headersSent));
            let bytes = 0;
            source.on('data', (chunk: Buffer) => (bytes += chunk.length));
            res.on('finish', () => counted.push(bytes));
          });
          next();
        });
        app.get('/file', (_req: Request, res: Response) => res.sendFile(fx.large));
        app.get('/download', (_req: Request, res: Response) => res.download(fx.large));
        app.use('/static', framework.static(fx.root));
        return app;
      },
      ['/file', '/download', '/static/large.bin'].map((path) => ({ path })),
    );
    for (const answer of answers) assert.equal(answer.headers['x-piped-before-head'], 'true');
    await eventually(() => counted.length === 6);
    assert.deepEqual(counted, Array(6).fill(fx.largeSize));
  });

  it("a value thrown by an app's res.write for a long file goes to the callback, the server goes on", async () => {
    // The guard of the first write catches whatever it throws, not only Node's errors.
    const { app, seen } = recordingApp();
    const received: unknown[] = [];
    app.use((_req: Request, res: Response, next: () => void) => {
      res.write = (() => {
        throw 'refused by a wrapper';
      }) as unknown as Response['write'];
      next();
    });
    app.get('/file', (_req: Request, res: Response) =>
      res.sendFile(fx.large, (err) => {
        received.push(err && { status: (err as { status?: number }).status, message: err.message });
        seen.push('called back');
      }),
    );
    const server = http.createServer(app);
    const port = await listen(server);
    try {
      assert.equal(await bytesUntilClose(port, '/file'), '');
      await eventually(() => seen.length === 1);
      assert.deepEqual(seen, ['called back']);
      assert.deepEqual(received, [{ status: 500, message: 'refused by a wrapper' }]);
    } finally {
      await close(server);
    }
  });

  it('a head Node refuses, for an answer without a body (HEAD, 304) or a directory redirect', async () => {
    // Each of these ended the process: the response was ended bare inside an fs callback.
    const { app, seen, report } = recordingApp();
    const file = join(fx.root, 'nums.txt');
    app.use((req: Request, res: Response, next: () => void) => {
      if (req.query.code) res.status(Number(req.query.code));
      if (req.query.message) res.statusMessage = String(req.query.message);
      next();
    });
    app.get('/file', (_req: Request, res: Response) => res.sendFile(file, report));
    app.get('/download', (_req: Request, res: Response) => res.download(file, report));
    app.use('/static', webapp.static(fx.root));
    app.use(((err, _req, res, next) => {
      seen.push('next: ' + String(err.code));
      next(err);
    }) as ErrorRequestHandler);
    app.get('/ok', (_req: Request, res: Response) => res.send('still serving'));
    const server = http.createServer(app);
    const port = await listen(server);
    try {
      const answers = [
        await bytesUntilClose(port, '/file?code=1000', 'HEAD'),
        await bytesUntilClose(port, '/download?message=a%0d%0ab', 'HEAD'),
        await bytesUntilClose(port, '/file?message=a%0ab', 'GET', 'If-None-Match: *\r\n'),
        await bytesUntilClose(port, '/static/nums.txt?code=99', 'HEAD'),
        await bytesUntilClose(port, '/static/users?message=a%0d%0ab'),
      ];
      assert.deepEqual(answers, ['', '', '', '', '']);
      assert.deepEqual(seen, [
        'ERR_HTTP_INVALID_STATUS_CODE',
        'ERR_INVALID_CHAR',
        'ERR_INVALID_CHAR',
        'next: ERR_HTTP_INVALID_STATUS_CODE',
        'next: ERR_INVALID_CHAR',
      ]);
      assert.equal((await rawRequest(port, '/ok')).text, 'still serving');
    } finally {
      await close(server);
    }
  });

  it('passes an invalid headers option value to next(err) instead of crashing', async () => {
    const app = webapp();
    app.get('/', (_req: Request, res: Response) =>
      res.sendFile(join(fx.root, 'todo.txt'), { headers: { 'X-Bad': 'a\r\nb' } }),
    );
    app.use(((err, _req, res, _next) => {
      res.statusCode = 599;
      res.end(String(err.status));
    }) as ErrorRequestHandler);
    const server = http.createServer(app);
    const port = await listen(server);
    try {
      const response = await rawRequest(port, '/');
      assert.equal(response.status, 599);
      assert.equal(response.text, '500');
    } finally {
      await close(server);
    }
  });
});

/** What the server writes for `method` `path` on a connection of its own until it closes the connection. */
/**
 * An app for the refused-head tests, and what reached a file answer's callback: the
 * error's code, or `sent`.
 */
function recordingApp() {
  const app = webapp();
  app.set('env', 'test');
  const seen: string[] = [];
  const report = (err?: NodeJS.ErrnoException) => seen.push(err ? String(err.code) : 'sent');
  return { app, seen, report };
}

function bytesUntilClose(port: number, path: string, method = 'GET', headers = ''): Promise<string> {
  return exchange(port, `${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${headers}Connection: close\r\n\r\n`);
}
