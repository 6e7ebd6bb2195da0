/** The final handler's pages, differential against express@4. */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import express = require('express');
import webapp = require('../../src/index');
import webapp3 = require('../../src/v3/index');
import webappMiddleware = require('../../src/middleware/index');
import { assertSameResponses, type Framework } from '../support/differential';
import { watchProcessEvents } from '../support/process-events';

/**
 * Writes `request` on one connection to a server running `app` and resolves with all it
 * answered once the connection closes. The client half-closes at once, or, given
 * `complete`, once what arrived satisfies it (pipelined requests answered in turn).
 */
function exchange(app: http.RequestListener, request: string, complete?: (text: string) => boolean): Promise<string> {
  const server = http.createServer(app);
  return new Promise((resolve, reject) => {
    server.listen(0, '127.0.0.1', () => {
      const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        text += chunk;
        if (complete?.(text)) socket.end();
      });
      socket.on('error', reject);
      socket.on('close', () => {
        server.close();
        resolve(text);
      });
      if (complete) socket.write(request);
      else socket.end(request);
    });
  });
}

/** The whole answer, status line included (the differential helpers compare the code only). */
async function rawAnswer(app: http.RequestListener, path: string, version = '1.1'): Promise<string> {
  const text = await exchange(app, `GET ${path} HTTP/${version}\r\nHost: x\r\nConnection: close\r\n\r\n`);
  return text.replace(/^Date: .*\r\n/im, '').replace(/^X-Powered-By: .*\r\n/im, '');
}

describe('final handler', () => {
  it('names an unparsable absolute-form target "resource" in its 404, and keeps serving', async () => {
    // `url.parse` throws on an unclosed IPv6 host; Node's HTTP parser lets the target through.
    const [broken, plain] = await assertSameResponses(
      (framework: Framework) => {
        const app = framework();
        app.get('/known', (_req, res) => res.send('known'));
        return app;
      },
      [{ path: 'http://[::1/x' }, { path: '/unknown' }, { path: '/known' }],
    );
    assert.equal(broken.status, 404);
    assert.match(broken.body, /Cannot GET resource/);
    assert.match(plain.body, /Cannot GET \/unknown/);
  });

  it("an error's stack that is not a string is printed as text outside production, as express@4 does", async () => {
    const stacks: Record<string, unknown> = {
      number: 5,
      array: ['a', 'b'],
      object: { toString: () => 'custom stack' },
      true: true,
      empty: '',
      zero: 0,
    };
    await assertSameResponses(
      (framework: Framework) => {
        const app = framework();
        app.set('env', 'development');
        app.get('/:kind', (req, _res, next) => {
          const err = Object.assign(new Error('msg'), { status: 400 });
          Object.defineProperty(err, 'stack', { value: stacks[req.params.kind] });
          next(err);
        });
        return app;
      },
      Object.keys(stacks).map((kind) => ({ path: '/' + kind })),
    );
  });

  it('an error status without a reason phrase (499, 450, 404.5): the same status line and page', async () => {
    const define = (framework: Framework) => {
      const app = framework();
      app.set('env', 'production');
      app.get('/status/:code', (req, res) => {
        res.status(Number(req.params.code));
        throw new Error('boom');
      });
      app.get('/error/:code', (req, _res, next) =>
        next(Object.assign(new Error('boom'), { status: Number(req.params.code) })),
      );
      return app;
    };
    const paths = ['/status/499', '/error/450', '/error/599', '/status/404.5', '/error/418', '/error/503'];
    for (const path of paths) {
      const expected = await rawAnswer(define(express as unknown as Framework) as http.RequestListener, path);
      const actual = await rawAnswer(define(webapp as unknown as Framework) as http.RequestListener, path);
      assert.equal(actual, expected, path);
    }
    assert.match(
      await rawAnswer(define(webapp as unknown as Framework) as http.RequestListener, '/status/499'),
      /^HTTP\/1.1 499 unknown\r\n[^]*<pre>undefined<\/pre>/,
    );
  });

  it('answers a request line saying HTTP/2.0 on an HTTP/1 connection as HTTP/1, as express@4 does', async () => {
    // Node's HTTP/1 parser takes the version and reports major version 2: the page keeps
    // its Connection header and status phrase (only real HTTP/2 responses drop them).
    const define = (framework: Framework) => {
      const app = framework();
      app.set('env', 'production');
      app.get('/error', (_req, _res, next) => next(Object.assign(new Error('boom'), { status: 503 })));
      return app;
    };
    for (const path of ['/missing', '/error']) {
      const expected = await rawAnswer(define(express as unknown as Framework) as http.RequestListener, path, '2.0');
      const actual = await rawAnswer(define(webapp as unknown as Framework) as http.RequestListener, path, '2.0');
      assert.equal(actual, expected, path);
      assert.match(actual, /^HTTP\/1.1 (404 Not Found|503 Service Unavailable)\r\n[^]*\r\nConnection: close\r\n/);
    }
  });

  // express@4 dies on both: finalhandler sets the bad status or header after the
  // request was read, outside any handler, and Node's throw is uncaught.
  it('a NaN response status (res.status(parseInt(query))) answers 500 and the server keeps serving', async () => {
    const app = webapp();
    app.set('env', 'production');
    app.get('/code', (req, res) => {
      res.status(parseInt(String(req.query.c), 10)).send('ok');
    });
    app.get('/fail', (req, res) => {
      res.status(Number(req.query.c));
      throw new Error('boom');
    });
    for (const path of ['/code?c=abc', '/fail?c=abc', '/fail?c=']) {
      assert.match(
        await rawAnswer(app as unknown as http.RequestListener, path),
        /^HTTP\/1\.1 500 Internal Server Error\r\n/,
        path,
      );
    }
    assert.match(await rawAnswer(app as unknown as http.RequestListener, '/code?c=201'), /^HTTP\/1\.1 201 Created\r\n/);
  });

  it('leaves out an error header Node refuses and still sends the error page', async () => {
    const app = webapp();
    app.set('env', 'production');
    app.get('/value', (req, _res, next) =>
      next(
        Object.assign(new Error('no'), {
          status: 401,
          headers: { 'WWW-Authenticate': 'Basic', 'X-Realm': `a\r\n${String(req.query.r)}` },
        }),
      ),
    );
    app.get('/name', (_req, _res, next) =>
      next(Object.assign(new Error('no'), { status: 401, headers: { 'X\r\nBad': 'x' } })),
    );
    const value = await rawAnswer(app as unknown as http.RequestListener, '/value?r=Set-Cookie:%20a=1');
    assert.match(value, /^HTTP\/1\.1 401 Unauthorized\r\n/);
    assert.match(value, /\r\nWWW-Authenticate: Basic\r\n/);
    assert.doesNotMatch(value, /X-Realm|Set-Cookie/);
    assert.match(
      await rawAnswer(app as unknown as http.RequestListener, '/name'),
      /^HTTP\/1\.1 401 Unauthorized\r\n[^]*<pre>Unauthorized<\/pre>/,
    );
  });

  it('closes the connection when its page cannot be written either, and keeps serving (express@4 throws)', async () => {
    // A Trailer header makes Node refuse to end a response that is not chunked: the
    // route's res.send throws, and so would the error page with the header still set.
    // Express 4's finalhandler throws that out of its callback, ending the process.
    const app = webapp();
    app.set('env', 'test'); // no error log
    app.get('/trailer', (_req, res) => {
      res.set('Trailer', 'X-Checksum');
      res.addTrailers({ 'X-Checksum': 'abc' });
      res.send('hello');
    });
    app.get('/ok', (_req, res) => res.send('ok'));
    const listener = app as unknown as http.RequestListener;
    assert.equal(await rawAnswer(listener, '/trailer'), '');
    assert.match(await rawAnswer(listener, '/ok'), /^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nok$/);
  });

  it('logs a failure to write its own page (a writeHead listener throws), closes, serves on', async () => {
    // on-headers runs its listeners inside writeHead: one that throws on the 404 page made
    // express@4 throw out of finalhandler (an uncaught exception); the page is closed
    // instead, and the error goes to the app's log as its other errors do.
    const logged: unknown[] = [];
    const log = console.error;
    console.error = (...args: unknown[]) => void logged.push(...args);
    const answers: string[] = [];
    try {
      for (const env of ['development', 'test']) {
        const app = webapp();
        app.set('env', env);
        app.use((req, res, next) => {
          if (req.path !== '/ok') {
            res.writeHead = () => {
              throw new Error('header listener failed');
            };
          }
          next();
        });
        app.get('/ok', (_req, res) => res.send('ok'));
        const listener = app as unknown as http.RequestListener;
        answers.push(await rawAnswer(listener, '/missing'), await rawAnswer(listener, '/ok'));
      }
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      console.error = log;
    }
    assert.equal(answers[0], '');
    assert.match(answers[1], /^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nok$/);
    assert.equal(answers[2], '');
    assert.equal(logged.length, 1, 'logged once, and not in the test env');
    assert.match(String(logged[0]), /^Error: header listener failed\n\s+at /);
  });

  it('logs and answers a thrown value without a usable toString or stack, and keeps serving', async () => {
    // Express 4's final handler reads both, and its process ends when either throws.
    const bare = () => Object.create(null) as object;
    const throwing = () => ({
      toString(): string {
        throw new Error('toString');
      },
    });
    const stackThrows = () =>
      Object.defineProperty(new Error('stack getter fails'), 'stack', {
        get() {
          throw new Error('stack');
        },
      });
    const answers: string[] = [];
    const logged: unknown[] = [];
    const log = console.error;
    console.error = (...args: unknown[]) => void logged.push(...args);
    try {
      for (const env of ['production', 'development']) {
        const app = webapp();
        app.set('env', env);
        app.get('/bare', () => {
          throw bare();
        });
        app.get('/throwing', (_req, _res, next) => next(throwing()));
        app.get('/async', async () => Promise.reject(bare()));
        app.get('/stack', (_req, _res, next) => next(stackThrows()));
        app.get('/ok', (_req, res) => res.send('ok'));
        const listener = app as unknown as http.RequestListener;
        for (const path of ['/bare', '/throwing', '/async', '/stack', '/ok'])
          answers.push(await rawAnswer(listener, path));
      }
      // The error logger runs from setImmediate, after the answer.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      console.error = log;
    }
    assert.deepEqual(
      answers.map((answer) => answer.slice(0, answer.indexOf('\r\n'))),
      Array(2)
        .fill([...Array(4).fill('500 Internal Server Error'), '200 OK'])
        .flat()
        .map((s) => 'HTTP/1.1 ' + s),
    );
    assert.match(answers[6], /<pre>Internal Server Error<\/pre>/);
    // Outside production the page shows what can be read of the error: its name and message.
    assert.match(answers[8], /<pre>Error: stack getter fails<\/pre>/);
    assert.deepEqual(logged.slice(0, 4), ['[object Object]', '[object Object]', '[object Object]', '[object Error]']);
  });

  it('answers an error whose status, statusCode or headers getter throws, or a Proxy of throwing traps', async () => {
    // Read after the app's stack, each throw ended the process (as it does with Express 4):
    // such a field is read as absent, and the page is the one an error without it gets.
    const withGetter = (name: string, status?: number) => {
      const error = Object.assign(new Error(`${name} getter fails`), status ? { status } : {});
      return Object.defineProperty(error, name, {
        get() {
          throw new Error(name);
        },
      });
    };
    const headerGetterThrows = () => {
      const headers = Object.defineProperty({}, 'X-Reason', {
        enumerable: true,
        get() {
          throw new Error('header');
        },
      });
      return Object.assign(new Error('a header getter fails'), { status: 409, headers });
    };
    const trapsThrow = () =>
      new Proxy(new Error('hidden'), {
        get(_target, key) {
          throw new Error(`trap ${String(key)}`);
        },
      });
    const errors: Record<string, () => unknown> = {
      '/status': () => withGetter('status'),
      '/status-code': () => withGetter('statusCode'),
      '/headers': () => withGetter('headers', 429),
      '/header': headerGetterThrows,
      '/proxy': trapsThrow,
    };
    const answers: string[] = [];
    const logged: unknown[] = [];
    const log = console.error;
    console.error = (...args: unknown[]) => void logged.push(...args);
    const events = watchProcessEvents();
    try {
      const app = webapp();
      app.set('env', 'development');
      for (const [path, make] of Object.entries(errors)) app.get(path, (_req, _res, next) => next(make()));
      app.get('/ok', (_req, res) => res.send('ok'));
      const listener = app as unknown as http.RequestListener;
      for (const path of [...Object.keys(errors), '/ok']) answers.push(await rawAnswer(listener, path));
      // The error logger runs from setImmediate, after the answer.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      console.error = log;
      events.stop();
    }
    assert.deepEqual(events.uncaught, []);
    assert.deepEqual(
      answers.map((answer) => answer.slice(0, answer.indexOf('\r\n'))),
      [
        '500 Internal Server Error',
        '500 Internal Server Error',
        '429 Too Many Requests',
        '409 Conflict',
        '500 Internal Server Error',
        '200 OK',
      ].map((line) => 'HTTP/1.1 ' + line),
    );
    assert.match(answers[0]!, /<pre>Error: status getter fails<br>/);
    assert.doesNotMatch(answers[3]!, /X-Reason/i);
    assert.match(answers[4]!, /<pre>Internal Server Error<\/pre>/);
    assert.equal(logged.length, 5);
    assert.equal(logged[4], '[object Object]');
  });

  it('an error after the response ended leaves the connection and the next response on it alone', async () => {
    // An `async` handler that throws once it has answered reaches the final handler (in
    // Express 4 the rejection goes unhandled); closing the connection then cut the
    // response pipelined behind it, which behind a proxy may be another client's.
    const logged: unknown[] = [];
    const late = () => new Promise((resolve) => setTimeout(resolve, 30));
    const slowResponse = (_req: unknown, res: http.ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '4' });
      res.write('b1');
      setTimeout(() => res.end('b2'), 100);
    };
    const modern = webapp();
    modern.get('/a', async (_req, res) => {
      res.send('done');
      await late();
      throw new Error('failed after answering');
    });
    const legacy = webapp3();
    legacy.get('/a', (_req: unknown, res: { send(body: string): void }, next: (err: Error) => void) => {
      res.send('done');
      setTimeout(next, 30, new Error('failed after answering'));
    });
    const withErrorHandler = webapp();
    withErrorHandler.get('/a', (_req, res, next) => {
      res.send('done');
      setTimeout(next, 30, new Error('failed after answering'));
    });
    withErrorHandler.use(webappMiddleware.errorHandler({ log: (err) => logged.push((err as Error).message) }));
    for (const app of [modern, legacy, withErrorHandler] as unknown as Array<
      http.RequestListener & { get(path: string, handler: typeof slowResponse): void; set(k: string, v: string): void }
    >) {
      app.get('/b', slowResponse);
      app.set('env', 'test');
      const answer = await pipelined(app, ['/a', '/b', '/b']);
      assert.equal(answer.match(/HTTP\/1\.1 200 OK\r\n/g)?.length, 3, answer);
      assert.equal(answer.match(/\r\n\r\nb1b2/g)?.length, 2, answer);
    }
    assert.deepEqual(logged, ['failed after answering']);
  });
});

/** Sends `paths` pipelined on one connection, half-closing only after the last `/b` answer is complete. */
function pipelined(app: http.RequestListener, paths: string[]): Promise<string> {
  const slow = paths.filter((path) => path === '/b').length;
  const request = paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`).join('');
  return exchange(app, request, (text) => text.split('b1b2').length - 1 === slow);
}
