/**
 * Node's header API on webapp's responses (src/response/header-store.ts): every
 * method answers as on an express@4 response (which is Node's own store), the
 * head on the wire has the same lines in the same order and casing, headers set
 * outside the app survive in both directions, and where Node's store cannot be
 * found the store is not installed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import diagnostics_channel from 'node:diagnostics_channel';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import express from 'express';
import { assertSameResponses, withServer, type Framework } from '../support/differential';
import webapp = require('../../src/index');
import { onHeaders } from '../../src/middleware/on-headers';
import { exchange } from '../support/raw-http';

type Res = http.ServerResponse & Record<string, any>;

/** What a call threw, as `code: message`, or `ok` and its result. */
function attempt(fn: () => unknown): string {
  try {
    const result = fn();
    return 'ok ' + JSON.stringify(result === undefined ? null : result instanceof http.ServerResponse ? 'res' : result);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return `${e.code}: ${e.message}`;
  }
}

/** The header API's answers, gathered in a handler (before and after sending) and read back by `/report`. */
function headerApiApp(framework: Framework): http.RequestListener {
  const app = framework();
  // The brand differs (Express, webapp) and would show in getHeaders().
  app.disable('x-powered-by');
  // The oracle is Node's own API: where the test support loads Connect 2 (to replay
  // its recorded answers on Node 26), its patch replaces setHeader and appendHeader
  // on ServerResponse.prototype for every app in the process.
  if (framework === express) {
    const response = app.response as Res;
    response.setHeader = http.OutgoingMessage.prototype.setHeader as Res['setHeader'];
    response.appendHeader = http.OutgoingMessage.prototype.appendHeader as Res['appendHeader'];
  }
  let afterSend: Record<string, unknown> = {};

  app.get('/api', (_req, res: Res) => {
    res.setHeader('X-One', '1');
    res.setHeader('x-one', 'one');
    res.setHeader('X-Num', 42);
    res.setHeader('X-List', ['a', 'b']);
    res.appendHeader('X-List', 'c');
    res.appendHeader('x-list', ['d', 'e']);
    res.appendHeader('X-New', ['p', 'q']);
    res.appendHeader('X-Single', 's');
    res.setHeader('Set-Cookie', ['a=1']);
    res.appendHeader('Set-Cookie', 'b=2');
    const report = {
      one: res.getHeader('X-ONE'),
      num: res.getHeader('x-num'),
      list: res.getHeader('X-List'),
      missing: res.getHeader('x-missing') ?? 'undefined',
      has: [res.hasHeader('X-Num'), res.hasHeader('x-missing')],
      names: res.getHeaderNames(),
      raw: res.getRawHeaderNames(),
      all: { ...res.getHeaders() },
      nullPrototype: Object.getPrototypeOf(res.getHeaders()) === null,
      afterRemove: undefined as unknown,
    };
    res.removeHeader('X-NUM');
    res.removeHeader('x-not-there');
    report.afterRemove = res.getHeaderNames();
    res.json(report);
  });

  app.get('/invalid', (_req, res: Res) => {
    res.json({
      name: attempt(() => res.setHeader('bad name', 'x')),
      emptyName: attempt(() => res.setHeader('', 'x')),
      nonStringName: attempt(() => res.setHeader(7 as never, 'x')),
      newline: attempt(() => res.setHeader('X-Bad', 'a\nb')),
      undefinedValue: attempt(() => res.setHeader('X-Bad', undefined as never)),
      badInArray: attempt(() => res.setHeader('X-Bad', ['ok', 'no\r\n'])),
      latin1: attempt(() => res.setHeader('X-Latin', 'caf\xe9')),
      unicode: attempt(() => res.setHeader('X-Uni', 'caf\u0113')),
      getNumber: attempt(() => res.getHeader(1 as never)),
      hasUndefined: attempt(() => res.hasHeader(undefined as never)),
      removeNumber: attempt(() => res.removeHeader(5 as never)),
      appendUndefined: attempt(() => res.appendHeader('X-Bad', undefined as never)),
      appendBadName: attempt(() => res.appendHeader('b d', 'x')),
      badKept: res.getHeader('X-Bad') ?? 'undefined',
    });
  });

  app.get('/sent', (_req, res: Res) => {
    res.set('X-Before', 'b');
    res.send('sent');
    afterSend = {
      set: attempt(() => res.setHeader('X-After', '1')),
      append: attempt(() => res.appendHeader('X-After', '1')),
      remove: attempt(() => res.removeHeader('X-Before')),
      writeHead: attempt(() => res.writeHead(200)),
      get: res.getHeader('x-before'),
      length: res.getHeader('Content-Length'),
      type: res.get('Content-Type'),
      names: res.getHeaderNames(),
      sent: res.headersSent,
    };
  });

  app.get('/report', (_req, res) => res.json(afterSend));

  app.get('/write-head/object', (_req, res: Res) => {
    res.setHeader('X-A', '1');
    res.setHeader('X-B', '2');
    res.writeHead(201, { 'x-b': 'two', 'X-C': 3 });
    afterSend = { c: res.getHeader('x-c'), b: res.getHeader('X-B'), names: res.getHeaderNames() };
    res.end('object');
  });

  app.get('/write-head/array', (_req, res: Res) => {
    res.setHeader('X-A', '1');
    res.setHeader('X-Keep', 'k');
    res.writeHead(200, ['X-A', 'x', 'X-A', 'y', 'X-D', 'd']);
    res.end('array');
  });

  app.get('/write-head/reason', (_req, res: Res) => {
    res.set('X-A', '1');
    res.writeHead(202, 'Fine Indeed');
    res.end();
  });

  app.get('/write-head/only', (_req, res: Res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 4 });
    res.end('only');
  });

  app.get('/no-length', (_req, res: Res) => {
    res.setHeader('Content-Length', 5);
    res.removeHeader('content-length');
    res.end('hello');
  });

  app.get('/no-chunking', (_req, res: Res) => {
    res.removeHeader('Transfer-Encoding');
    res.write('a');
    res.end('b');
  });

  app.get('/close', (_req, res: Res) => {
    res.setHeader('Connection', 'close');
    res.send('closing');
  });

  app.get('/flush', (_req, res: Res) => {
    res.set('X-Flushed', 'yes');
    res.flushHeaders();
    res.end('flushed');
  });

  // res.send sets a string body's Content-Type again, in Express's casing; a Buffer's it leaves.
  app.get('/type-lower/:kind', (req, res: Res) => {
    const kind = (req as unknown as { params: { kind: string } }).params.kind;
    res.set(kind === 'json' ? 'content-TYPE' : 'content-type', kind === 'json' ? 'application/json' : 'text/plain');
    res.send(kind === 'buffer' ? Buffer.from('bytes') : kind === 'json' ? '{}' : 'text');
  });

  app.get('/web-headers', (_req, res: Res) => {
    res.setHeaders(
      new Map<string, string | string[]>([
        ['X-Map', 'm'],
        ['set-cookie', ['c=3', 'd=4']],
      ]),
    );
    res.send(String(res.getHeader('x-map')));
  });

  return app;
}

const apiRequests = [
  '/api',
  '/invalid',
  '/sent',
  '/report',
  '/write-head/object',
  '/report',
  '/write-head/array',
  '/write-head/reason',
  '/write-head/only',
  '/no-length',
  '/no-chunking',
  '/close',
  '/flush',
  '/web-headers',
].map((path) => ({ path }));

/** The whole answer as sent, without the clock and the brand (Node's client would refuse some of its heads). */
async function rawAnswer(port: number, path: string): Promise<string> {
  const data = await exchange(port, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  return data.replace(/^(date|x-powered-by): .*\r\n/gim, '');
}

/** The response head as sent: status line and header lines, without the clock and the brand. */
function rawHead(port: number, path: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      data += chunk;
      const end = data.indexOf('\r\n\r\n');
      if (end === -1) return;
      socket.destroy();
      resolve(
        data
          .slice(0, end)
          .split('\r\n')
          .filter((line) => !/^date:/i.test(line))
          .map((line) => line.replace(/^(x-powered-by): .*/i, '$1: (brand)')),
      );
    });
    socket.on('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  });
}

describe('the response header API', () => {
  it('answers every call as Node does on an express@4 response: values, names, errors, after sending', async () => {
    await assertSameResponses(headerApiApp, apiRequests);
  });

  it('writes the same head, line for line, in the same order and casing', async () => {
    const paths = ['/api', '/write-head/object', '/write-head/array', '/write-head/reason', '/no-length', '/close'];
    paths.push('/type-lower/text', '/type-lower/json', '/type-lower/buffer');
    const heads = async (framework: Framework) => {
      const app = headerApiApp(framework);
      return withServer(app, async (port) => Promise.all(paths.map((path) => rawHead(port, path))));
    };
    const [expected, actual] = [await heads(express), await heads(webapp as unknown as Framework)];
    assert.deepEqual(actual, expected);
    assert.ok(actual[3][0].startsWith('HTTP/1.1 202 Fine Indeed'));
  });

  it('removes headers as Node does: the first, one between, Content-Length and Date, the rest in order', async () => {
    const removing = (framework: Framework) => {
      const app = framework();
      app.get('/remove/:which', (req, res) => {
        res.set('X-One', '1').set('X-Two', '2').set('X-Three', '3');
        const which = req.params.which;
        if (which === 'first') res.removeHeader('X-Powered-By');
        if (which === 'between') res.removeHeader('x-two');
        if (which === 'date') res.removeHeader('Date');
        if (which === 'absent') res.removeHeader('X-Never-Set');
        if (which === 'length') {
          // Node notes the removal: the body goes chunked instead.
          res.setHeader('Content-Length', '5');
          res.removeHeader('content-length');
          res.set('X-After', 'set after the removal');
          res.end('hello');
          return;
        }
        res.set('X-After', 'set after the removal');
        res.send('removed ' + which);
      });
      return app;
    };
    const answers = (framework: Framework) =>
      withServer(removing(framework), (port) =>
        Promise.all(
          ['first', 'between', 'date', 'absent', 'length'].map(async (which) => {
            const text = await exchange(port, `GET /remove/${which} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`);
            return text.replace(/^(date): .*$/gim, '$1: (now)').replace(/^(x-powered-by): .*$/gim, '$1: (brand)');
          }),
        ),
      );
    const [expected, actual] = [await answers(express), await answers(webapp as unknown as Framework)];
    assert.deepEqual(actual, expected);
    assert.doesNotMatch(actual[0], /x-powered-by/i);
    assert.match(actual[1], /X-One: 1\r\nX-Three: 3\r\n/);
    assert.doesNotMatch(actual[2], /^date:/im);
    assert.match(actual[4], /Transfer-Encoding: chunked/);
  });

  it('checks long values once each: written again, refused with a line break, past the values kept', async () => {
    // Values of 32 characters or more found printable are remembered (a bounded set): the
    // same value again is not tested, any other is, a Set-Cookie value is never kept.
    const longValues = (framework: Framework) => {
      const app = framework();
      app.get('/long/:n', (req, res) => {
        res.set('X-Long', 'v'.repeat(40) + req.params.n);
        res.set('Set-Cookie', 'session=' + 's'.repeat(40) + req.params.n);
        res.send('ok');
      });
      app.get('/bad/:n', (req, res) => {
        try {
          res.set('X-Long', 'v'.repeat(40) + req.params.n + '\r\nInjected: 1');
          res.send('taken');
        } catch (err) {
          res.status(500).send(String((err as NodeJS.ErrnoException).code));
        }
      });
      return app as unknown as http.RequestListener;
    };
    const requests = ['1', '1', '2', '1'].map((n) => ({ path: `/long/${n}` }));
    for (let n = 0; n < 300; n++) requests.push({ path: `/long/${1000 + n}` });
    // Past the longest value kept (4,096 characters): tested each time, written the same.
    requests.push({ path: `/long/${'9'.repeat(5000)}` }, { path: `/long/${'9'.repeat(5000)}` });
    requests.push({ path: '/bad/1' }, { path: '/long/1' }, { path: '/bad/1' });
    const answers = await assertSameResponses(longValues, requests);
    assert.equal(answers.at(-1)!.body, 'ERR_INVALID_CHAR');
  });

  it("keeps no long value of a header that is no policy's: a redirect's token, a token handed out, a cookie", () => {
    // Long values found printable were remembered whatever their header: a login's
    // redirect with its token, an API's token header stayed in memory after their
    // responses, up to 256 of them. Looked for in a heap snapshot taken once the
    // responses are done (the tokens are made at run time: the script's text has none).
    const script = `
      const http = require('node:http');
      const v8 = require('node:v8');
      const { readFileSync, unlinkSync } = require('node:fs');
      const { tmpdir } = require('node:os');
      const { join } = require('node:path');
      const { randomBytes } = require('node:crypto');
      const webapp = require('./src/index');
      const app = webapp();
      app.get('/', (req, res) => {
        const token = randomBytes(24).toString('hex');
        res.set('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'");
        res.set('X-Auth-Token', 'Bearer.' + token);
        res.cookie('session', 'sid.' + token);
        res.redirect('/done?token=' + token);
      });
      app.get('/plain', (req, res) => res.send('plain'));
      const tokens = /(\\/done\\?token=|Bearer\\.|sid\\.)[0-9a-f]{48}/g;
      // How many tokens each answer had (the client keeps no header).
      const get = (port, path) => new Promise((done) =>
        http.get({ port, host: '127.0.0.1', path, agent: false }, (res) => {
          res.resume();
          const { location, 'x-auth-token': handedOut, 'set-cookie': cookies = [] } = res.headers;
          res.on('end', () => done(([location, handedOut, ...cookies].join(' ').match(tokens) || []).length));
        }));
      const server = app.listen(0, '127.0.0.1', async () => {
        const sent = [];
        for (let i = 0; i < 3; i++) sent.push(await get(server.address().port, '/'));
        // Then others: Node's parsers and free lists may hold on to the last request of a connection.
        for (let i = 0; i < 3; i++) sent.push(await get(server.address().port, '/plain'));
        server.close(async () => {
          await new Promise((resolve) => setTimeout(resolve, 50));
          global.gc();
          // Written to a file: the stream of getHeapSnapshot() keeps no event loop alive on Node 20.9.
          const file = join(tmpdir(), 'webapp-heap-' + process.pid + '.heapsnapshot');
          v8.writeHeapSnapshot(file);
          const heap = readFileSync(file, 'latin1');
          unlinkSync(file);
          console.log(JSON.stringify({ sent, kept: (heap.match(tokens) || []).length }));
        });
      });`;
    assert.deepEqual(runInOwnProcess(script, ['--expose-gc']), { sent: [3, 3, 3, 0, 0, 0], kept: 0 });
  });

  it('keeps the store one object of fast properties when a header other than the last is removed', () => {
    // V8 turns an object whose property other than the last is deleted into a dictionary,
    // which every header set, read and written after it then goes through.
    const script = `
      const http = require('node:http');${GET_ONCE}
      const webapp = require('./src/index');
      const app = webapp();
      app.get('/', (req, res) => {
        res.set('Content-Security-Policy', "default-src 'self'").set('X-Frame-Options', 'SAMEORIGIN');
        res.removeHeader('X-Powered-By');
        res.set('X-After', '1');
        const slot = Object.getOwnPropertySymbols(res).find((symbol) => symbol.description === 'kOutHeaders');
        res.json({ fast: %HasFastProperties(res[slot]), names: res.getHeaderNames() });
      });
      const server = app.listen(0, '127.0.0.1', async () => {
        const { body } = await getOnce(server, '/');
        server.close();
        console.log(body);
      });`;
    assert.deepEqual(runInOwnProcess(script, ['--allow-natives-syntax']), {
      fast: true,
      names: ['content-security-policy', 'x-frame-options', 'x-after'],
    });
  });

  it('keeps headers set before the app (by a wrapper around it), in their order', async () => {
    await assertSameResponses(
      (framework) => {
        const app = framework();
        app.get('/', (_req, res) => {
          res.set('X-App', 'a');
          res.send(`${res.getHeader('x-wrapper')} ${res.getHeaderNames().join(',')}`);
        });
        return (req, res) => {
          res.setHeader('X-Wrapper', 'w');
          res.setHeader('X-Second', 's');
          app(req, res);
        };
      },
      [{ path: '/' }],
    );
  });

  it('gives its headers back when an app mounted in express@4 passes the request on', async () => {
    await assertSameResponses(
      (framework) => {
        const inner = framework();
        inner.use((_req, res, next) => {
          res.set('X-Inner', 'i');
          res.removeHeader('X-Outer-Removed');
          next();
        });
        const outer = express();
        outer.use((_req, res, next) => {
          res.setHeader('X-Outer', 'o');
          res.setHeader('X-Outer-Removed', 'r');
          next();
        });
        outer.use(inner as unknown as express.Application);
        outer.use((_req, res) => {
          res.setHeader('X-Last', 'l');
          res.send(`${res.getHeader('X-Inner')} ${res.getHeaderNames().join(',')}`);
        });
        return outer;
      },
      [{ path: '/' }, { path: '/x' }],
    );
  });

  it('keeps headers through webapp sub-apps and routers that pass the request on', async () => {
    await assertSameResponses(
      (framework) => {
        const app = framework();
        const sub = framework();
        sub.use((_req, res, next) => {
          res.set('X-Sub', 's');
          next();
        });
        app.use((_req, res, next) => {
          res.set('X-Top', 't');
          next();
        });
        app.use('/sub', sub);
        app.use((_req, res) => res.send(res.getHeaderNames().join(',')));
        return app;
      },
      [{ path: '/sub/x' }, { path: '/other' }],
    );
  });

  it("merges headers set through Node's own setHeader, called directly on a response the app holds", async () => {
    await assertSameResponses(
      (framework) => {
        const app = framework();
        app.get('/', (_req, res) => {
          res.set('X-App', 'a');
          http.OutgoingMessage.prototype.setHeader.call(res, 'X-Direct', 'd');
          res.set('X-After', 'z');
          res.send(`${res.getHeader('x-direct')} ${res.getHeaderNames().join(',')}`);
        });
        return app;
      },
      [{ path: '/' }],
    );
  });

  it('keeps its headers for an express@4 app called as a function that answers (vhost, a legacy app)', async () => {
    await assertSameResponses(
      (framework) => {
        // express@4's own app: its init gives the response a prototype over Node's methods.
        const legacy = express();
        legacy.get('/legacy', (_req, res) => {
          res.set('X-Legacy', 'l');
          res.cookie('legacy', '1');
          res.send(`${res.getHeader('x-frame-options')} ${res.getHeaderNames().join(',')}`);
        });
        const app = framework();
        app.use((_req, res, next) => {
          res.set('X-Frame-Options', 'SAMEORIGIN');
          res.set('Access-Control-Allow-Origin', 'https://good.example');
          res.cookie('sid', 'abc');
          next();
        });
        app.use((req, res, next) => legacy(req, res, next));
        app.use((_req, res) => res.send(`after ${res.getHeaderNames().join(',')}`));
        return app;
      },
      [{ path: '/legacy' }, { path: '/other' }],
    );
  });

  it('keeps the headers of a webapp app called as a function from express@4, for a sub-app that answers', async () => {
    await assertSameResponses(
      (framework) => {
        const helper = framework();
        helper.use((_req, res, next) => {
          res.set('X-Helper', 'h');
          next();
        });
        const answering = express();
        answering.get('/', (_req, res) => res.send(res.getHeaderNames().join(',')));
        const outer = express();
        outer.use((req, res, next) => helper(req, res, next));
        outer.use((_req, res, next) => {
          res.set('X-Outer-After', 'o');
          res.cookie('late', '1');
          next();
        });
        outer.use(answering);
        return outer;
      },
      [{ path: '/' }],
    );
  });

  it('merges headers given to writeHead as Node does after every header set was removed', async () => {
    await assertSameResponses(
      (framework) => {
        const app = framework();
        app.get('/:form', (req, res) => {
          // As helmet.hidePoweredBy() does: the store is left with no header in it.
          res.removeHeader('X-Powered-By');
          if (req.params.form === 'object')
            res.writeHead(200, {
              'Content-Type': 'text/event-stream',
              'Cache-Control': 'no-cache',
              'cache-control': 'no-transform',
            });
          else res.writeHead(200, ['X-B', '1', 'x-b', '2']);
          res.end(`${res.getHeader('content-type')} ${JSON.stringify(res.getHeaders())}`);
        });
        return app;
      },
      [{ path: '/object' }, { path: '/array' }],
    );
  });

  it('takes thousands of headers from one res.set, each once and in order, and lets them be removed', async () => {
    await assertSameResponses(
      (framework) => {
        const app = framework();
        app.disable('x-powered-by');
        app.get('/', (_req, res) => {
          const fields: Record<string, string> = {};
          for (let i = 0; i < 3000; i++) fields[`x-${i % 1500}-${i < 1500 ? 'a' : 'b'}`] = String(i);
          fields['X-0-A'] = 'again';
          res.set(fields);
          const names = res.getHeaderNames();
          const answer = `${names.length} ${names[0]} ${names[2999]} ${res.getHeader('x-0-a')}`;
          // Taken out again: a head this large is more than the client reads.
          for (const name of names) res.removeHeader(name);
          res.send(answer);
        });
        return app;
      },
      [{ path: '/' }],
    );
  });

  it('sets X-Powered-By through a setHeader a wrapper put on the response', async () => {
    await assertSameResponses(
      (framework) => {
        const app = framework();
        app.get('/', (_req, res) => res.send((res as Res).seen.join(',')));
        return (req, res) => {
          const wrapped = res as Res;
          const setHeader = wrapped.setHeader;
          wrapped.seen = [];
          wrapped.setHeader = function (this: Res, name: string, value: unknown) {
            this.seen.push(name);
            return setHeader.call(this, name, value as string);
          } as Res['setHeader'];
          app(req, res);
        };
      },
      [{ path: '/' }],
    );
  });

  it('sets X-Powered-By through a setHeader put on the response at http.server.request.start', async () => {
    // An agent hiding the framework's header from a diagnostics_channel subscriber: the
    // server adopted by the app makes its responses with the app's prototype from the
    // second request on, and the wrapper on the response must still see every header.
    const channel = diagnostics_channel.channel('http.server.request.start');
    const hide = ({ response }: { response: Res }) => {
      const setHeader = response.setHeader;
      response.seen = [];
      response.setHeader = function (this: Res, name: string, value: unknown) {
        this.seen.push(name);
        if (name.toLowerCase() === 'x-powered-by') return this;
        return setHeader.call(this, name, value as string);
      } as Res['setHeader'];
    };
    channel.subscribe(hide as (message: unknown) => void);
    try {
      const answers = await assertSameResponses(
        (framework) => {
          const app = framework();
          app.get('/', (_req, res) => res.send((res as Res).seen.join(',')));
          return app;
        },
        [{ path: '/' }, { path: '/' }, { path: '/' }],
      );
      for (const answer of answers) {
        assert.equal(answer.headers['x-powered-by'], undefined);
        assert.equal(answer.body, 'X-Powered-By');
      }
    } finally {
      channel.unsubscribe(hide as (message: unknown) => void);
    }
  });

  it('writes every header through wrappers of the header methods put on the response before the app', async () => {
    // What response-time, morgan or onHeaders() do when a plain server's handler runs them
    // around the app: each wrapper holds the method Node gave the response.
    const wrapped = [
      'writeHead',
      'getHeader',
      'setHeader',
      'removeHeader',
      'hasHeader',
      'getHeaders',
      'getHeaderNames',
      'appendHeader',
    ];
    for (const name of wrapped) {
      await assertSameResponses(
        (framework) => {
          const app = framework();
          app.use((_req, res, next) => {
            res.set('X-Dropped', 'soon').cookie('sid', 'x', { httpOnly: true });
            next();
          });
          app.get('/', (_req, res) => {
            res.removeHeader('X-Dropped');
            res.set('Cache-Control', 'no-store');
            const seen = [res.get('Cache-Control'), res.hasHeader('set-cookie'), res.getHeaderNames().join(',')];
            res.set('X-Seen', JSON.stringify([...seen, Object.keys(res.getHeaders()).join(',')]));
            res.json({ wrapped: name });
          });
          app.get('/status', (_req, res) => res.sendStatus(404));
          return (req, res) => {
            const target = res as Res;
            const own = target[name] as (...args: unknown[]) => unknown;
            target[name] = function (this: Res, ...args: unknown[]) {
              return own.apply(this, args);
            };
            app(req, res);
          };
        },
        [{ path: '/' }, { path: '/status' }],
      );
    }
  });

  it('lets wrappers of res.get, res.set, res.type and setHeader see the headers of res.send and res.json', async () => {
    // res.send stages its headers directly only while these methods are the response's
    // own; a wrapper on any of them gets the calls, with the names Express makes them with.
    const wrapped = ['get', 'set', 'type', 'setHeader', 'getHeader'] as const;
    await assertSameResponses(
      (framework) => {
        const app = framework();
        const seen = new Map<string, Set<string>>(wrapped.map((method) => [method, new Set<string>()]));
        app.use((req, res, next) => {
          const methods = (req.query.wrap as string).split(',').filter(Boolean);
          for (const method of methods) {
            const original = (res as Res)[method] as (...args: unknown[]) => unknown;
            (res as Res)[method] = function (this: Res, name: string, ...rest: unknown[]) {
              seen.get(method)!.add(String(name));
              return original.call(this, name, ...rest);
            };
          }
          next();
        });
        app.get('/text', (_req, res) => res.send('hello'));
        app.get('/typed', (_req, res) => res.type('txt').send('hello'));
        app.get('/json', (_req, res) => res.json({ hello: 'world' }));
        app.get('/buffer', (_req, res) => res.send(Buffer.from('bytes')));
        app.get('/report', (_req, res) => {
          const report = wrapped.map((method) => `${method}: ${[...seen.get(method)!].sort().join(',')}`);
          for (const names of seen.values()) names.clear();
          res.type('txt').send(report.join('\n'));
        });
        return app;
      },
      ['get', 'set', 'type', 'setHeader', 'getHeader', 'set,setHeader'].flatMap((wrap) =>
        ['/text', '/typed', '/json', '/buffer'].flatMap((path) => [
          // A validator to compare makes req.fresh read the response's (Express reads them always).
          { path: `${path}?wrap=${wrap}`, headers: { 'if-none-match': '"other"' } },
          { path: '/report?wrap=' },
        ]),
      ),
    );
  });

  it('calls a wrapped res.set with the Content-Type of a string body as often as Express does', async () => {
    // A wrapper that rewrites what it is given sees Express's last call: the type with its charset.
    await assertSameResponses(
      (framework) => {
        const app = framework();
        app.use((_req, res, next) => {
          const set = res.set;
          const calls: string[] = [];
          res.set = function (this: Res, field: unknown, value?: unknown) {
            if (typeof field === 'string' && field.toLowerCase() === 'content-type') {
              calls.push(String(value));
              res.setHeader('X-Content-Type-Calls', calls.join(' | '));
              return set.call(this, field, String(value).replace('charset=utf-8', 'charset=UTF-8'));
            }
            return set.call(this, field as string, value as string);
          } as Res['set'];
          next();
        });
        app.get('/text', (_req, res) => res.send('hello'));
        app.get('/typed', (_req, res) => res.type('txt').send('hello'));
        app.get('/json', (_req, res) => res.json({ hello: 'world' }));
        app.get('/jsonp', (_req, res) => res.jsonp({ hello: 'world' }));
        app.get('/status', (_req, res) => res.sendStatus(201));
        return app;
      },
      ['/text', '/typed', '/json', '/jsonp?callback=cb', '/status'].map((path) => ({ path })),
    );
  });

  it("gives a wrapped res.set the body's Content-Length as a number, as Express does", async () => {
    // A test's spy (`expect(spy).toHaveBeenCalledWith('Content-Length', 7)`) or a wrapper
    // that does arithmetic on it sees what Express passes.
    await assertSameResponses(
      (framework) => {
        const app = framework();
        app.use((_req, res, next) => {
          const set = res.set;
          res.set = function (this: Res, field: unknown, value?: unknown) {
            if (typeof field === 'string' && field.toLowerCase() === 'content-length')
              res.setHeader('X-Content-Length-Given', `${typeof value} ${String(value)}`);
            return set.call(this, field as string, value as string);
          } as Res['set'];
          next();
        });
        app.get('/text', (_req, res) => res.send('hello'));
        app.get('/json', (_req, res) => res.json({ hello: 'world' }));
        app.get('/buffer', (_req, res) => res.send(Buffer.from('bytes')));
        app.get('/status', (_req, res) => res.sendStatus(201));
        return app;
      },
      ['/text', '/json', '/buffer', '/status'].map((path) => ({ path })),
    ).then((answers) => assert.equal(answers[0]!.headers['x-content-length-given'], 'number 5'));
  });

  it('writeHead(status, undefined or null, headers) writes those headers, as Node reads its arguments', async () => {
    const [redirect] = await assertSameResponses(
      (framework: Framework) => {
        const app = framework();
        app.get('/undefined', (_req, res) => {
          res.setHeader('X-Set', 'before');
          res.writeHead(200, undefined, { 'Content-Type': 'text/plain', 'X-A': '1' }).end('hi');
        });
        app.get('/null', (_req, res) => res.writeHead(302, null as never, { Location: '/elsewhere' }).end());
        // A fresh response's statusMessage is undefined: passed along, it is no reason either.
        app.get('/status-message', (_req, res) =>
          res.writeHead(201, res.statusMessage, { 'Content-Type': 'application/json' }).end('{}'),
        );
        return app;
      },
      [{ path: '/null' }, { path: '/undefined' }, { path: '/status-message' }, { method: 'HEAD', path: '/null' }],
    );
    assert.equal(redirect!.headers.location, '/elsewhere');
  });

  it('keeps its headers when writeHead refuses a status code, for the answer that follows', async () => {
    await assertSameResponses(
      (framework) => {
        const app = framework();
        app.get('/', (_req, res) => {
          res.set('X-Kept', 'k');
          const refused = attempt(() => res.writeHead(1000));
          res.set('X-Refused', refused.split(':')[0]);
          res.removeHeader('X-Gone');
          res.status(201).send(res.getHeaderNames().join(','));
        });
        return app;
      },
      [{ path: '/' }],
    );
  });

  it("takes or refuses a control character in a value as the server's parser setting says, as Node does", async () => {
    // Node 26 lets a server created with insecureHTTPParser send such values; Node 20 refuses them everywhere.
    const answer = (framework: Framework) => {
      const app = framework();
      app.get('/', (_req, res) => res.set('X-Legacy', 'a\x01b').send(`${res.get('X-Legacy')}`.length.toString()));
      app.get('/list', (_req, res) => res.set('X-Legacy', ['a', 'b\x01']).send('listed'));
      app.use(((err, _req, res, _next) => res.status(500).send(err.code)) as express.ErrorRequestHandler);
      const server = http.createServer({ insecureHTTPParser: true }, app);
      return new Promise<string[]>((resolve, reject) => {
        server.listen(0, '127.0.0.1', async () => {
          try {
            const port = (server.address() as net.AddressInfo).port;
            resolve([await rawAnswer(port, '/'), await rawAnswer(port, '/list')]);
          } catch (err) {
            reject(err);
          } finally {
            server.close();
          }
        });
      });
    };
    assert.deepEqual(await answer(webapp as unknown as Framework), await answer(express as unknown as Framework));
  });

  it('writes no header from an enumerable property added to Object.prototype', async () => {
    const polluted = Object.prototype as Record<string, unknown>;
    polluted['x-polluted'] = ['X-Polluted', 'yes'];
    try {
      await assertSameResponses(
        (framework) => {
          const app = framework();
          app.get('/', (_req, res) => res.send('clean'));
          return app;
        },
        [{ path: '/' }],
      );
      const heads = await withServer(
        (() => {
          const app = webapp();
          app.get('/', (_req, res) => res.send('clean'));
          return app;
        })(),
        (port) => rawHead(port, '/'),
      );
      assert.ok(!heads.some((line) => /polluted/i.test(line)), heads.join('\n'));
    } finally {
      delete polluted['x-polluted'];
    }
  });

  it('writes a latin1 header value as Express does, with and without an ETag, short and long bodies', async () => {
    const long = 'x'.repeat(2000);
    await assertSameResponses(
      (framework) => {
        const tagged = framework();
        const untagged = framework();
        untagged.set('etag', false);
        for (const app of [tagged, untagged]) {
          app.get('/short', (_req, res) => res.set('X-Latin', 'caf\xe9').send('short'));
          app.get('/long', (_req, res) => res.set('X-Latin', ['caf\xe9', 'ok']).send(long));
          app.get('/json', (_req, res) => res.set('Content-Disposition', 'inline; x=\xe9').json({ a: 1 }));
        }
        return (req, res) => (req.headers['x-untagged'] ? untagged(req, res) : tagged(req, res));
      },
      ['/short', '/long', '/json'].flatMap((path) => [{ path }, { path, headers: { 'x-untagged': '1' } }]),
    );
  });

  it('writes a latin1 value reaching the head without res.set as Express does (on-headers, appendHeader)', async () => {
    // The body is decided before on-headers' listeners run (webapp/middleware's on-headers,
    // the same hook as the package's); appendHeader onto a header writes the store directly.
    await assertSameResponses(
      (framework) => {
        const app = framework();
        app.get('/on-headers', (_req, res) => {
          onHeaders(res, () => res.setHeader('X-User', 'Jos\xe9'));
          res.send('hi');
        });
        app.get('/on-headers-json', (_req, res) => {
          onHeaders(res, () => res.setHeader('Content-Disposition', 'inline; x=\xe9'));
          res.json({ a: 1 });
        });
        app.get('/append', (_req, res) => {
          res.setHeader('X-List', 'a');
          res.appendHeader('X-List', 'Jos\xe9');
          res.send('hi');
        });
        return app;
      },
      ['/on-headers', '/on-headers-json', '/append'].map((path) => ({ path })),
    );
  });

  it('writes a latin1 value in a String object as Express does, the first such value in the process', () => {
    // In a process of its own: until a value beyond ASCII has gone through the store,
    // webapp sends a string body with the head unchecked.
    const script = `
      const http = require('node:http');${GET_ONCE}
      const answer = (framework) => new Promise((resolve) => {
        const app = framework();
        app.get('/', (req, res) => res.setHeader('X-Name', new String('caf\\u00e9')).send('hello'));
        const server = app.listen(0, '127.0.0.1', async () => {
          const { res, body } = await getOnce(server, '/');
          server.close();
          resolve({ name: Buffer.from(res.headers['x-name'], 'latin1').toString('hex'), body });
        });
      });
      (async () => {
        const webapp = require('./src/index');
        const express = require('express');
        console.log(JSON.stringify([await answer(express), await answer(webapp)]));
      })();`;
    const [expected, actual] = runInOwnProcess(script);
    assert.deepEqual(expected, { name: '636166e9', body: 'hello' });
    assert.deepEqual(actual, expected);
  });

  it('writes a status message beyond ASCII as Express does (latin1), whatever the body', async () => {
    const heads = async (framework: Framework) => {
      const app = framework();
      const untagged = framework();
      untagged.set('etag', false);
      untagged.get('/', (_req, res) => {
        res.statusMessage = 'Caf\xe9 ferm\xe9';
        res.send('short');
      });
      app.use('/untagged', untagged);
      app.get('/:kind', (req, res) => {
        res.statusMessage = 'Caf\xe9 ferm\xe9';
        if (req.params.kind === 'long') res.send('x'.repeat(2000));
        else if (req.params.kind === 'json') res.json({ a: 1 });
        else res.send('short');
      });
      return withServer(app as unknown as http.RequestListener, async (port) => {
        const lines: string[] = [];
        for (const kind of ['short', 'long', 'json', 'untagged/']) lines.push((await rawHead(port, '/' + kind))[0]!);
        return lines;
      });
    };
    const theirs = await heads(express);
    assert.deepEqual(await heads(webapp as unknown as Framework), theirs);
    // Express writes head and body together as UTF-8 only for a short string without an ETag.
    assert.deepEqual(theirs, [
      ...Array(3).fill('HTTP/1.1 200 Caf\xe9 ferm\xe9'),
      'HTTP/1.1 200 Caf\xc3\xa9 ferm\xc3\xa9',
    ]);
  });

  it('keeps ETags right for bodies of up to 20,000 characters, past what is remembered', async () => {
    // 120 bodies of 3,000 to 20,000 characters: more characters than the tags remembered may cover.
    const bodies = Array.from({ length: 120 }, (_, i) => String(i % 40).padEnd(3000 + (i % 12) * 1500, '\u00e9x'));
    await assertSameResponses(
      (framework) => {
        const app = framework();
        app.get('/:i', (req, res) => res.send(bodies[Number(req.params.i)]));
        return app;
      },
      bodies.map((_, i) => ({ path: `/${i}` })),
    );
  });

  it('keeps ETags right for many different short bodies, strong and weak', async () => {
    const bodies = Array.from({ length: 300 }, (_, i) => `body ${i % 150} ${'é'.repeat(i % 7)}`);
    const requests = bodies.map((_, i) => ({ path: `/${i}`, headers: { 'x-strong': i % 2 ? '1' : '' } }));
    await assertSameResponses((framework) => {
      const weak = framework();
      const strong = framework();
      strong.set('etag', 'strong');
      for (const app of [weak, strong]) app.get('/:i', (req, res) => res.send(bodies[Number(req.params.i)]));
      return (req, res) => (req.headers['x-strong'] ? strong(req, res) : weak(req, res));
    }, requests);
  });
});

/**
 * Runs `script` in a process of its own from the repository root (what it does before
 * requiring webapp is what webapp finds at load) and returns the JSON it prints.
 */
/**
 * For the scripts `runInOwnProcess` runs (after their `const http = require('node:http')`):
 * `getOnce(server, path)` sends one GET to a listening server and gives `{ res, body }`.
 */
const GET_ONCE = `
      const getOnce = (server, path) => new Promise((done) => {
        http.get({ port: server.address().port, host: '127.0.0.1', path }, (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => done({ res, body }));
        });
      });`;

function runInOwnProcess(script: string, nodeOptions: string[] = []) {
  const child = spawnSync(process.execPath, [...nodeOptions, '--import', 'tsx', '-e', script], {
    cwd: join(__dirname, '..', '..'),
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout.trim());
}

describe("a patch of Node's header methods on http.ServerResponse.prototype", () => {
  it('a patched setHeader (and getHeader with it) sees the headers of later responses, as on express@4', async () => {
    // What a security tool or instrumentation does: drop a header, harden cookies, watch reads.
    const proto = http.ServerResponse.prototype;
    const nodeSetHeader = proto.setHeader;
    const nodeGetHeader = proto.getHeader;
    let reads = 0;
    const patched = {
      setHeader(this: http.ServerResponse, name: string, value: number | string | readonly string[]) {
        if (/^x-powered-by$/i.test(name)) return this;
        if (/^set-cookie$/i.test(name)) value = ([] as string[]).concat(value as string).map((c) => c + '; Secure');
        return nodeSetHeader.call(this, name, value);
      },
      getHeader(this: http.ServerResponse, name: string) {
        reads++;
        return nodeGetHeader.call(this, name);
      },
    };
    const define = (framework: Framework) => {
      const app = framework();
      app.get('/', (_req, res) => {
        res.cookie('sid', 'abc');
        res.set('X-Custom', 'kept');
        res.send('hi');
      });
      return app as unknown as http.RequestListener;
    };
    const answer = (framework: Framework) =>
      withServer(define(framework), async (port) => {
        const res = await fetch(`http://127.0.0.1:${port}/`);
        return {
          poweredBy: res.headers.has('x-powered-by'),
          cookie: res.headers.get('set-cookie'),
          custom: res.headers.get('x-custom'),
          body: await res.text(),
        };
      });
    Object.assign(proto, patched);
    let expected, actual, expressReads, webappReads;
    try {
      expected = await answer(express as unknown as Framework);
      expressReads = reads;
      reads = 0;
      actual = await answer(webapp as unknown as Framework);
      webappReads = reads;
    } finally {
      Object.assign(proto, { setHeader: nodeSetHeader, getHeader: nodeGetHeader });
    }
    assert.deepEqual(expected, { poweredBy: false, cookie: 'sid=abc; Path=/; Secure', custom: 'kept', body: 'hi' });
    assert.deepEqual(actual, expected);
    assert.ok(expressReads > 0 && webappReads > 0, `reads: express ${expressReads}, webapp ${webappReads}`);
    // The patch removed: webapp's own store again, and its headers.
    const after = await withServer(define(webapp as unknown as Framework), async (port) => {
      const res = await fetch(`http://127.0.0.1:${port}/`);
      return { poweredBy: res.headers.get('x-powered-by'), cookie: res.headers.get('set-cookie') };
    });
    assert.deepEqual(after, { poweredBy: 'webapp', cookie: 'sid=abc; Path=/' });
  });

  it('a getHeader patched alone (redacting a value) answers res.get and getHeader, as on express@4', async () => {
    const proto = http.ServerResponse.prototype;
    const nodeGetHeader = proto.getHeader;
    proto.getHeader = function getHeader(this: http.ServerResponse, name: string) {
      return /^x-secret$/i.test(name) ? '[redacted]' : nodeGetHeader.call(this, name);
    };
    try {
      await assertSameResponses(
        (framework) => {
          const app = framework();
          app.get('/', (_req, res) => {
            res.set('X-Secret', 's3cret');
            res.json({ get: res.get('X-Secret'), getHeader: res.getHeader('x-secret') });
          });
          return app;
        },
        [{ path: '/' }],
      );
    } finally {
      proto.getHeader = nodeGetHeader;
    }
  });

  it('a setHeader patch that cleans values gets them before any check, as on express@4', async () => {
    // A header sanitizer: line breaks taken out of a value that Node would refuse.
    const proto = http.ServerResponse.prototype;
    const nodeSetHeader = proto.setHeader;
    proto.setHeader = function setHeader(this: http.ServerResponse, name: string, value: unknown) {
      const clean = typeof value === 'string' ? value.replace(/[\r\n]/g, '') : value;
      return nodeSetHeader.call(this, name, clean as string);
    };
    try {
      await assertSameResponses(
        (framework) => {
          const app = framework();
          app.get('/', (req, res) => res.set('X-User', req.query.u as string).send('ok'));
          app.use(((err, _req, res, _next) => res.status(500).send(err.code)) as express.ErrorRequestHandler);
          return app;
        },
        [{ path: '/?u=a%0d%0ab' }, { path: '/?u=plain' }],
      );
    } finally {
      proto.setHeader = nodeSetHeader;
    }
  });

  it('a patch made before webapp loaded (a preloaded script) sees every header, as on express@4', () => {
    // `node -r ./secure-cookies.js app.js`: the patch is what webapp finds at load.
    const script = `
      const http = require('node:http');${GET_ONCE}
      const proto = http.OutgoingMessage.prototype;
      const nodeSetHeader = proto.setHeader;
      const nodeGetHeader = proto.getHeader;
      let calls = 0;
      proto.setHeader = function (name, value) {
        calls++;
        if (/^set-cookie$/i.test(name)) value = [].concat(value).map((c) => c + '; Secure');
        return nodeSetHeader.call(this, name, value);
      };
      proto.getHeader = function (name) {
        return /^x-secret$/i.test(name) ? '[redacted]' : nodeGetHeader.call(this, name);
      };
      const answer = (framework) => new Promise((resolve) => {
        calls = 0;
        const app = framework();
        app.get('/', (req, res) => res.cookie('sid', 'abc').set('X-Secret', 's').send(res.get('X-Secret')));
        const server = app.listen(0, '127.0.0.1', async () => {
          const { res, body } = await getOnce(server, '/');
          server.close();
          resolve({ cookie: res.headers['set-cookie'], body, patchCalled: calls > 0 });
        });
      });
      (async () => {
        const webapp = require('./src/index');
        const express = require('express');
        console.log(JSON.stringify([await answer(express), await answer(webapp)]));
      })();`;
    const [expected, actual] = runInOwnProcess(script);
    assert.deepEqual(expected, { cookie: ['sid=abc; Path=/; Secure'], body: '[redacted]', patchCalled: true });
    assert.deepEqual(actual, expected);
  });

  it('end and writeHead patched before webapp loaded (an agent preloaded) run as on express@4', () => {
    // `node -r agent.js app.js`: what webapp finds at load are the patches. `end` is
    // given bytes and runs before the head is made (its header goes out, on-headers or
    // not); a latin1 value set while the head is made goes out as latin1.
    const script = `
      const http = require('node:http');${GET_ONCE}
      const proto = http.ServerResponse.prototype;
      const nodeEnd = proto.end;
      const nodeWriteHead = proto.writeHead;
      proto.end = function (chunk) {
        const kind = chunk == null ? 'none' : Buffer.isBuffer(chunk) ? 'Buffer ' + chunk.length : typeof chunk;
        if (!this.headersSent) this.setHeader('X-End-Got', kind);
        return nodeEnd.apply(this, arguments);
      };
      // Named as Node's: webapp calls it on a probe at load to tell, and must not take it for Node's.
      proto.writeHead = function writeHead() {
        this.setHeader('X-Info', 'caf\u00e9');
        return nodeWriteHead.apply(this, arguments);
      };
      const answer = (framework, onHeaders) => new Promise((resolve) => {
        const app = framework();
        if (onHeaders) app.use(require('response-time')());
        app.get('/json', (req, res) => res.json({ name: 'caf\u00e9' }));
        app.get('/text', (req, res) => res.send('hello'));
        app.use((err, req, res, next) => res.status(500).send(String(err.code)));
        const server = app.listen(0, '127.0.0.1', async () => {
          const heads = [];
          for (const path of ['/json', '/text', '/json']) {
            const { res, body } = await getOnce(server, path);
            const info = Buffer.from(res.rawHeaders[res.rawHeaders.indexOf('X-Info') + 1], 'latin1');
            heads.push([res.statusCode, res.headers['x-end-got'], info.toString('hex'), body]);
          }
          server.close();
          resolve(heads);
        });
      });
      (async () => {
        const webapp = require('./src/index');
        const express = require('express');
        const answers = [];
        for (const onHeaders of [false, true]) {
          answers.push([await answer(express, onHeaders), await answer(webapp, onHeaders)]);
        }
        console.log(JSON.stringify(answers));
      })();`;
    const answers = runInOwnProcess(script);
    const json = [200, 'Buffer 16', '636166e9', '{"name":"caf\u00e9"}'];
    assert.deepEqual(answers[0][0], [json, [200, 'Buffer 5', '636166e9', 'hello'], json]);
    for (const [expected, actual] of answers) assert.deepEqual(actual, expected);
  });

  it('a patched writeHead that reads and sets headers (as APM agents do) writes them all, as express@4', async () => {
    // elastic-apm-node's wrapper reads getHeaders() before calling Node's writeHead;
    // others add a header of their own there, or read one back.
    const proto = http.ServerResponse.prototype;
    const nodeWriteHead = proto.writeHead;
    const seen: string[] = [];
    proto.writeHead = function writeHead(this: http.ServerResponse, ...args: unknown[]) {
      seen.push(Object.keys(this.getHeaders()).sort().join(','));
      if (!this.hasHeader('x-agent')) this.setHeader('X-Agent', 'seen');
      if (this.hasHeader('content-type')) this.setHeader('X-Trace', String(this.getHeader('content-length')));
      return (nodeWriteHead as (...a: unknown[]) => http.ServerResponse).apply(this, args);
    } as typeof proto.writeHead;
    try {
      await assertSameResponses(
        (framework) => {
          const app = framework();
          app.disable('x-powered-by');
          app.get('/json', (_req, res) => res.json({ a: 1 }));
          app.get('/cookie', (_req, res) => res.cookie('sid', 'abc').set('X-Custom', 'kept').send('hi'));
          app.get('/redirect', (_req, res) => res.redirect('/json'));
          app.get('/status', (_req, res) => res.status(201).end());
          // Nothing staged before the head goes out (X-Powered-By is off).
          app.get('/stream', (_req, res) => {
            res.write('a');
            res.end('b');
          });
          app.get('/explicit', (_req, res) => {
            res.setHeader('X-Set', 'early');
            res.writeHead(202, { 'X-Passed': 'along' });
            res.end(`${res.getHeader('x-set')} ${res.getHeader('x-passed')}`);
          });
          return app;
        },
        [
          { path: '/json' },
          { path: '/cookie' },
          { path: '/redirect' },
          { path: '/status' },
          { path: '/stream' },
          { path: '/explicit' },
          { path: '/missing' },
          { path: '/json', method: 'HEAD' },
        ],
      );
    } finally {
      proto.writeHead = nodeWriteHead;
    }
    // The wrapper saw the staged headers on webapp's responses as on Express's.
    const half = seen.length / 2;
    assert.deepEqual(seen.slice(half), seen.slice(0, half));
    assert.ok(
      seen.some((names) => names.includes('etag')),
      seen.join(' | '),
    );
  });

  it('a patched writeHead reads the headers back after the response is sent', async () => {
    const proto = http.ServerResponse.prototype;
    const nodeWriteHead = proto.writeHead;
    proto.writeHead = function writeHead(this: http.ServerResponse, ...args: unknown[]) {
      this.getHeaders();
      return (nodeWriteHead as (...a: unknown[]) => http.ServerResponse).apply(this, args);
    } as typeof proto.writeHead;
    const app = webapp();
    let afterSend = '';
    app.get('/', (_req, res) => {
      res.set('X-Read', 'later').send('x');
      afterSend = [res.getHeader('x-read'), res.getHeader('content-length'), res.getHeaderNames().join(',')].join(' ');
    });
    try {
      await withServer(app as unknown as http.RequestListener, async (port) => {
        const res = await fetch(`http://127.0.0.1:${port}/`);
        assert.equal(res.headers.get('x-read'), 'later');
        assert.equal(await res.text(), 'x');
      });
    } finally {
      proto.writeHead = nodeWriteHead;
    }
    assert.equal(afterSend, 'later 1 x-powered-by,x-read,content-type,content-length,etag');
  });
});

describe('where Node keeps no header slot webapp can find', () => {
  it('installs no store, and responses use Node own API with the same answers', () => {
    // A child process in which `Symbol(kOutHeaders)` is hidden while webapp loads.
    const script = `
      const realSymbols = Object.getOwnPropertySymbols;
      Object.getOwnPropertySymbols = (o) => realSymbols(o).filter((s) => s.description !== 'kOutHeaders');
      const webapp = require('./src/index');
      Object.getOwnPropertySymbols = realSymbols;
      const http = require('node:http');
      const app = webapp();
      app.get('/', (req, res) => {
        res.set('X-A', '1');
        res.send('hi');
        app.locals.after = res.getHeader('content-length');
      });
      const server = app.listen(0, '127.0.0.1', () => {
        http.get({ port: server.address().port, host: '127.0.0.1', path: '/' }, (res) => {
          res.resume();
          res.on('end', () => {
            console.log(JSON.stringify({
              installed: Object.getOwnPropertyDescriptor(webapp.response, 'setHeader') !== undefined,
              status: res.statusCode, a: res.headers['x-a'], etag: res.headers.etag, after: app.locals.after,
            }));
            server.close();
          });
        });
      });`;
    assert.deepEqual(runInOwnProcess(script), {
      installed: false,
      status: 200,
      a: '1',
      etag: `W/"2-${createHash('sha1').update('hi').digest('base64').slice(0, 27)}"`,
      after: '2',
    });
  });

  it("is installed on this Node line, and takes Node's methods there for Node's own", async () => {
    assert.notEqual(Object.getOwnPropertyDescriptor(webapp.response, 'setHeader'), undefined);
    // A store of webapp's (a class instance) where Node's own store has no prototype at all.
    const app = webapp();
    app.get('/', (_req, res) => {
      const slot = Object.getOwnPropertySymbols(res).find((symbol) => symbol.description === 'kOutHeaders')!;
      res.send(String(Object.getPrototypeOf((res as Res)[slot as unknown as string]) !== null));
    });
    const answer = await withServer(app, async (port) => (await fetch(`http://127.0.0.1:${port}/`)).text());
    assert.equal(answer, 'true');
  });
});
