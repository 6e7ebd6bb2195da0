/**
 * What an app puts on its prototypes (`app.request`, `app.response`, or the module's
 * `request`/`response`) meets the fields Express gives every request as in Express.
 * Express gives a request `query`, `params`, `baseUrl`, `originalUrl`, `_parsedUrl`,
 * `res` and `next` as its own before it takes the app's prototype, so an accessor of
 * the app's for one of them (an Express 5 style read-only `req.query`) is never reached;
 * it sets `res.locals` after, through the app's accessor; and it sets X-Powered-By
 * before, through the `setHeader` the response had then. webapp's requests are born
 * with the app's prototype (src/server-classes.ts) and its leading layers run in place
 * (src/router/dispatch.ts): the same answers through `app.listen` and through
 * `http.createServer(app)`, and the server keeps serving (a getter alone once threw
 * inside Node's parser, which ended the process).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import express from 'express';
import webapp = require('../../src/index');
import { withoutStackFrames, type Framework } from '../support/differential';
import { close, rawRequest, type RawResponse, type RequestSpec } from '../support/raw-http';

type Any = any;

/** How a test starts an app: as `app.listen` does, or as a listener of a plain server. */
type Start = (app: Any) => http.Server;
const STARTS: Array<[string, Start]> = [
  ['app.listen', (app) => app.listen(0, '127.0.0.1')],
  ['http.createServer(app)', (app) => http.createServer(app).listen(0, '127.0.0.1')],
];

/** The answers (status and body) of `requests`, one after the other, from a server `start` makes for `app`. */
async function answersOf(
  app: Any,
  start: Start,
  requests: RequestSpec[],
  between?: (index: number) => void,
): Promise<Array<{ status: number; body: string }>> {
  const server = start(app);
  try {
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    const out = [];
    for (let i = 0; i < requests.length; i++) {
      between?.(i);
      const answer: RawResponse = withoutStackFrames(await rawRequest(port, requests[i]));
      out.push({ status: answer.status, body: answer.body.replace(/Express|webapp/g, 'FRAMEWORK') });
    }
    return out;
  } finally {
    await close(server);
  }
}

const REQUEST_FIELDS = ['query', 'params', 'baseUrl', 'originalUrl', '_parsedUrl', 'res', 'next'] as const;

/**
 * An app with a sub-app whose handlers show what the request carries, and an accessor
 * for `field` on `where`'s request prototype (a getter, with a setter that logs when
 * `withSetter`). Undoes the accessor when the returned function is called.
 */
function appWithRequestAccessor(
  framework: Framework,
  field: string,
  withSetter: boolean,
  onModule: boolean,
): { app: Any; undo: () => void } {
  const log: string[] = [];
  const app: Any = framework();
  const sub: Any = framework();
  const target = onModule ? (framework as Any).request : app.request;
  const accessor: PropertyDescriptor = {
    configurable: true,
    get(this: Record<string, unknown>) {
      return this[`_${field}`];
    },
  };
  if (withSetter) {
    accessor.set = function (this: Record<string, unknown>, value: unknown) {
      log.push(`set ${field}: ${typeof value}`);
      this[`_${field}`] = value;
    };
  }
  Object.defineProperty(target, field, accessor);
  const show = (req: Any, res: Any) =>
    res.json({ query: req.query, params: req.params, base: req.baseUrl, url: req.originalUrl, log: log.splice(0) });
  sub.get('/item/:id', show);
  app.use('/sub', sub);
  app.get('/item/:id', show);
  return { app, undo: () => delete target[field] };
}

const ACCESSOR_REQUESTS: RequestSpec[] = [
  { path: '/item/1?a=1' },
  { path: '/sub/item/2?b=2' },
  { path: '/item/3?c=3' },
];

describe("an app's accessors for the fields Express gives every request", () => {
  for (const field of REQUEST_FIELDS) {
    it(`\`${field}\`: a getter (and setter) on app.request or the module's request is never reached`, async () => {
      for (const withSetter of [false, true]) {
        for (const onModule of [false, true]) {
          const oracle = appWithRequestAccessor(express, field, withSetter, onModule);
          let expected;
          try {
            expected = await answersOf(oracle.app, STARTS[1][1], ACCESSOR_REQUESTS);
          } finally {
            oracle.undo();
          }
          assert.deepEqual(
            expected.map((answer) => answer.status),
            [200, 200, 200],
          );
          for (const [how, start] of STARTS) {
            const subject = appWithRequestAccessor(webapp as unknown as Framework, field, withSetter, onModule);
            try {
              const actual = await answersOf(subject.app, start, ACCESSOR_REQUESTS);
              assert.deepEqual(actual, expected, `${how}, setter: ${withSetter}, on the module: ${onModule}`);
            } finally {
              subject.undo();
            }
          }
        }
      }
    });
  }

  it('a getter put on app.request after the first request: the server keeps serving, as Express does', async () => {
    const define = (framework: Framework) => {
      const app: Any = framework();
      app.get('/', (req: Any, res: Any) => res.json({ query: req.query, params: req.params }));
      const addGetter = (index: number) => {
        if (index === 1) Object.defineProperty(app.request, 'query', { configurable: true, get: () => 'shim' });
        if (index === 2) Object.defineProperty(app.request, 'params', { configurable: true, get: () => 'shim' });
      };
      return { app, addGetter };
    };
    const requests = [{ path: '/?a=1' }, { path: '/?b=2' }, { path: '/?c=3' }, { path: '/?d=4' }];
    const oracle = define(express);
    const expected = await answersOf(oracle.app, STARTS[0][1], requests, oracle.addGetter);
    assert.deepEqual(JSON.parse(expected[3].body), { query: { d: '4' }, params: {} });
    for (const [how, start] of STARTS) {
      const subject = define(webapp as unknown as Framework);
      assert.deepEqual(await answersOf(subject.app, start, requests, subject.addGetter), expected, how);
    }
  });
});

describe("an app's accessor for res.locals", () => {
  const define = (framework: Framework, withSetter: boolean) => {
    const log: string[] = [];
    const app: Any = framework();
    // The final handler of 'development' would log each 500's stack.
    app.set('env', 'test');
    const accessor: PropertyDescriptor = {
      configurable: true,
      get(this: Record<string, unknown>) {
        return this._locals;
      },
    };
    if (withSetter) {
      accessor.set = function (this: Record<string, unknown>, value: unknown) {
        log.push(`set locals: ${typeof value}`);
        this._locals = value;
      };
    }
    Object.defineProperty(app.response, 'locals', accessor);
    app.get('/', (_req: Any, res: Any) => res.json({ locals: typeof res.locals, log: log.splice(0) }));
    return app;
  };
  const requests = [{ path: '/' }, { path: '/' }];

  it('is reached as in Express: a getter alone refuses it (500, still serving), a setter is called once', async () => {
    for (const withSetter of [false, true]) {
      const expected = await answersOf(define(express, withSetter), STARTS[1][1], requests);
      assert.deepEqual(
        expected.map((answer) => answer.status),
        withSetter ? [200, 200] : [500, 500],
      );
      if (withSetter) assert.deepEqual(JSON.parse(expected[0].body), { locals: 'object', log: ['set locals: object'] });
      for (const [how, start] of STARTS) {
        const actual = await answersOf(define(webapp as unknown as Framework, withSetter), start, requests);
        assert.deepEqual(actual, expected, `${how}, setter: ${withSetter}`);
      }
    }
  });
});

describe('X-Powered-By and an app.response.setHeader of the app', () => {
  /** An app and a sub-app whose `setHeader` replacements note each name they are given, on `owners`. */
  const define = (framework: Framework, owners: ReadonlyArray<'app' | 'sub'>) => {
    const seen: string[] = [];
    const app: Any = framework();
    const sub: Any = framework();
    for (const [owner, target] of [
      ['app', app],
      ['sub', sub],
    ] as const) {
      if (!owners.includes(owner)) continue;
      target.response.setHeader = function setHeader(this: http.ServerResponse, name: string, value: string) {
        seen.push(`${owner}: ${name}`);
        return http.ServerResponse.prototype.setHeader.call(this, name, value);
      };
    }
    const show = (_req: Any, res: Any) => res.end(JSON.stringify(seen.splice(0)));
    sub.get('/', show);
    app.use('/sub', sub);
    app.get('/', show);
    return app;
  };
  const requests = [{ path: '/' }, { path: '/sub/' }];

  it("is set through the setHeader the response had before the app's prototype: never the app's own", async () => {
    for (const owners of [['app'], ['sub'], ['app', 'sub']] as const) {
      const expected = await answersOf(define(express, owners), STARTS[1][1], requests);
      for (const [how, start] of STARTS) {
        const actual = await answersOf(define(webapp as unknown as Framework, owners), start, requests);
        assert.deepEqual(actual, expected, `${how}, replaced on ${owners.join(' and ')}`);
      }
    }
    const both = await answersOf(define(webapp as unknown as Framework, ['app', 'sub']), STARTS[0][1], requests);
    assert.deepEqual(JSON.parse(both[1].body), ['app: X-Powered-By']);
    assert.deepEqual(JSON.parse(both[0].body), []);
  });

  it('is still sent, by both ways of starting', async () => {
    for (const [how, start] of STARTS) {
      const app = webapp();
      app.get('/', (_req, res) => res.send('ok'));
      const server = start(app);
      try {
        await once(server, 'listening');
        const answer = await rawRequest((server.address() as AddressInfo).port, { path: '/' });
        assert.equal(answer.headers['x-powered-by'], 'webapp', how);
      } finally {
        await close(server);
      }
    }
  });
});

describe("an automatic OPTIONS answer's req.params", () => {
  it("is the leading layers' empty params, as in Express: in an app and a sub-app mounted with params", async () => {
    const define = (framework: Framework) => {
      const seen: string[] = [];
      const app: Any = framework();
      // What res.send is given req.params with: the automatic answer is sent through it.
      const send = (framework as Any).response.send;
      app.response.send = function (this: Any, body: unknown) {
        if (this.req.method === 'OPTIONS') seen.push(JSON.stringify(this.req.params));
        return send.call(this, body);
      };
      app.get('/seen', (_req: Any, res: Any) => res.json(seen.splice(0)));
      app.get('/items/:id', (_req: Any, res: Any) => res.send('item'));
      const sub: Any = framework();
      sub.get('/items/:id', (_req: Any, res: Any) => res.send('item'));
      app.use('/tenants/:tenant', sub);
      return app;
    };
    const requests: RequestSpec[] = [
      { method: 'OPTIONS', path: '/tenants/acme/items/7' },
      { method: 'OPTIONS', path: '/items/7' },
      { path: '/seen' },
    ];
    const expected = await answersOf(define(express), STARTS[1][1], requests);
    assert.deepEqual(JSON.parse(expected[2].body), ['{}', '{}']);
    for (const [how, start] of STARTS) {
      assert.deepEqual(await answersOf(define(webapp as unknown as Framework), start, requests), expected, how);
    }
  });
});
