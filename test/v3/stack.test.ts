/**
 * The 3.x middleware stack and last handler (Connect 2.30's), differential
 * against express@3.21.2: mounting a server-like object or an http.Server, a
 * request-target the URL parser rejects, HEAD and production answers of the last
 * handler, an error after the head was sent, and the deprecated createServer().
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { captureStderr } from '../support/capture-stderr';
import { assertSameResponses, withoutStackFrames, type RequestSpec } from '../support/differential';
import { close, listen, rawRequest, withServer, type RawResponse } from '../support/raw-http';
import { express3, express3Pair as pair } from '../support/legacy-oracles';
import { itWithLiveOracle } from '../support/oracle-recording';
import webapp3 = require('../../src/v3/index');

type Any = any;

const get = (path: string): RequestSpec => ({ path });

function reply(tag: string) {
  return (req: Any, res: Any) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ tag, url: req.url, originalUrl: req.originalUrl }));
  };
}

/** An error page reduced to the error's class: url.parse's messages differ from one Node line to another. */
function errorClassOnly(res: RawResponse): RawResponse {
  if (res.status < 500) return res;
  const headers = { ...res.headers };
  delete headers['content-length'];
  return { ...res, headers, body: res.body.split(/[ :[]/)[0] };
}

/** The status, the body received and whether the response ended, or how the connection broke off. */
function partialAnswer(port: number, path: string): Promise<{ status: number; body: string; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      let ended = false;
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => (ended = true));
      res.on('error', () => undefined);
      res.on('close', () => resolve({ status: res.statusCode ?? 0, body, ended }));
    });
    req.on('error', reject);
  });
}

describe('webapp/v3 middleware stack compatibility with express@3', () => {
  it('mounts an object with handle() and an http.Server, through their handler', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        const server = { handle: reply('server-like') } as { handle: unknown; route?: string };
        app.use('/server-like/', server);
        app.use('/http-server', http.createServer(reply('http.Server')));
        app.use('/route-of-server', (_req: Any, res: Any) => res.end(String(server.route)));
        return app;
      },
      ['/server-like', '/server-like/a?b=1', '/http-server/x', '/route-of-server'].map(get),
      pair,
    );
  });

  it('passes over a value use() took that has no arity: a RegExp (4.x style), an object, a number', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        // 3.x reads `use(regexp, fn)` as `use(regexp)`: fn is dropped, the RegExp is the layer.
        app.use(/^\/foo/, reply('never: the function after a RegExp'));
        app.use({});
        app.use(new Date(0));
        app.use('/x', 42);
        app.use('/fail', (_req: Any, _res: Any, next: Any) => next(new Error('failed')));
        app.use(/^\/fail/);
        app.use((err: Any, _req: Any, res: Any, _next: Any) => res.end('handled: ' + err.message));
        app.use(reply('last'));
        return app;
      },
      ['/foo', '/x', '/x/y', '/other', '/fail'].map(get),
      pair,
    );
  });

  it('a request-target the URL parser rejects goes to the last handler as an error', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.use(reply('never'));
        return app;
      },
      [get('http://[::1/x'), get('/after')],
      pair,
      errorClassOnly,
    );
  });

  // The page shows the error (webapp/v3 hides it in an app set to production: test/v3/security.test.ts).
  it('the last handler: HEAD gets the head only; the status from status or statusCode', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.use('/fail', (_req: Any, _res: Any, next: Any) =>
          next(Object.assign(new Error('secret'), { status: 503 })),
        );
        // Answered, then next() without an error: the last handler leaves the response alone.
        app.use('/answered', (_req: Any, res: Any, next: Any) => {
          res.end('answered');
          next();
        });
        app.use('/teapot', (_req: Any, _res: Any, next: Any) =>
          next(Object.assign(new Error('x'), { statusCode: 418 })),
        );
        return app;
      },
      [
        { method: 'HEAD', path: '/nothing' },
        get('/fail'),
        get('/teapot'),
        get('/answered'),
        { method: 'POST', path: '/nothing', body: 'some body' },
      ],
      pair,
      withoutStackFrames,
    );
  });

  it('a thrown value without a usable toString is a 500, as in 3.21, and the server keeps serving', async () => {
    const log = console.error;
    console.error = () => undefined;
    try {
      await assertSameResponses(
        (framework: Any) => {
          const app = framework();
          app.set('env', 'development');
          app.get('/bare', () => {
            throw Object.create(null);
          });
          app.get('/throwing', (_req: Any, _res: Any, next: Any) =>
            next({
              toString() {
                throw new Error('toString');
              },
            }),
          );
          app.get('/ok', reply('ok'));
          return app;
        },
        [get('/bare'), get('/throwing'), get('/ok')],
        pair,
        // 3.21 shows the TypeError its router met converting the value; webapp its type.
        (res) => ({ status: res.status, headers: {}, body: res.status === 500 ? '' : res.body }),
      );
    } finally {
      console.error = log;
    }
  });

  it('the last handler logs the error outside the test env, and only there', async () => {
    const logged: string[] = [];
    const log = console.error;
    console.error = (...args: unknown[]) => logged.push(args.map(String).join(' '));
    try {
      for (const env of ['development', 'test']) {
        const app: Any = webapp3();
        app.set('env', env);
        app.use(() => {
          throw new Error('failed in ' + env);
        });
        await withServer(app, async (port) => {
          assert.equal((await rawRequest(port, { path: '/' })).status, 500);
        });
      }
    } finally {
      console.error = log;
    }
    assert.deepEqual(
      logged.map((line) => line.split('\n')[0]),
      ['Error: failed in development'],
    );
  });

  itWithLiveOracle(
    'an error after the head was sent cuts the connection, and the server keeps serving',
    'a response broken off midway',
    async () => {
      const define = (framework: Any) => {
        const app = framework();
        app.set('env', 'production');
        app.use('/late', (_req: Any, res: Any, next: Any) => {
          res.writeHead(200, { 'Content-Type': 'text/plain' });
          res.write('partial');
          next(new Error('too late'));
        });
        app.use((_req: Any, res: Any) => res.end('still serving'));
        return app;
      };
      // A server of its own, not withServer: a recording proxy would not pass on a response broken off midway.
      for (const framework of [express3, webapp3]) {
        const server = http.createServer(define(framework));
        const port = await listen(server);
        try {
          assert.deepEqual(await partialAnswer(port, '/late'), { status: 200, body: 'partial', ended: false });
          assert.deepEqual(await partialAnswer(port, '/ok'), { status: 200, body: 'still serving', ended: true });
        } finally {
          await close(server);
        }
      }
    },
  );

  itWithLiveOracle(
    'createServer(): a deprecated app factory, with the notice 3.x printed',
    'its log lines',
    async () => {
      const notices: string[] = [];
      await assertSameResponses(
        (framework: Any) => {
          let app: Any;
          const lines = captureStderr(() => (app = framework.createServer()));
          notices.push(
            lines
              .join('')
              .replace(/^.*? (express|webapp) deprecated /, '')
              .replace(/ at [^ ]*\n$/, ''),
          );
          app.get('/', reply('created'));
          return app;
        },
        [get('/')],
        pair,
      );
      assert.equal(notices.length, 2);
      assert.equal(notices[1], notices[0]);
      assert.match(notices[1], /^createServer\(\) is deprecated\n/);
    },
  );
});
