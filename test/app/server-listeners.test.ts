/**
 * What code around an app sees of the app's server, against express@4 on the same
 * code (src/server-classes.ts): `app.listen` calling `http.createServer(app)`, `emit`
 * wrappers of each server's own, and the listeners that run before the app or instead
 * of it (prepended `request` listeners, `checkContinue`, `checkExpectation`,
 * `dropRequest`), which Express's server gives Node's plain request and response.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import express from 'express';
import webapp = require('../../src/index');
import { exchange } from '../support/raw-http';

type Req = http.IncomingMessage & Record<string, any>;
type Res = http.ServerResponse & Record<string, any>;
type Framework = 'express' | 'webapp';
type App = ReturnType<typeof express>;

const frameworks: Framework[] = ['express', 'webapp'];
const starts = ['app.listen', 'http.createServer(app)'] as const;

/** The same app on either framework: echoes the client address it trusts and a probe header. */
function makeApp(framework: Framework): App {
  const app = (framework === 'express' ? express() : webapp()) as App;
  app.set('trust proxy', true);
  app.get('/', (req: Req, res: Res) => res.send(`${req.ip} ${req.get('x-probe') ?? ''}`));
  app.post('/', (req: Req, res: Res) => {
    let length = 0;
    req.on('data', (chunk: Buffer) => (length += chunk.length));
    req.on('end', () => res.send(`read ${length}`));
  });
  return app;
}

async function serve(app: App, start: (typeof starts)[number]): Promise<http.Server> {
  const server = start === 'app.listen' ? app.listen(0, '127.0.0.1') : http.createServer(app as http.RequestListener);
  if (start === 'app.listen') await new Promise((resolve) => server.once('listening', resolve));
  else await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const portOf = (server: http.Server) => (server.address() as AddressInfo).port;

async function get(server: http.Server, probe: string): Promise<string> {
  return (await fetch(`http://127.0.0.1:${portOf(server)}/`, { headers: { 'x-probe': probe } })).text();
}

/**
 * Ordinary requests, after which a webapp server builds with the app's classes (its own
 * `emit` tells: express's server has none), as the scenarios mean to test.
 */
async function warm(server: http.Server, framework?: Framework): Promise<string[]> {
  const answers = [await get(server, 'a'), await get(server, 'b')];
  if (framework === 'webapp') assert.ok(Object.hasOwn(server, 'emit'), 'the server builds with the app classes');
  return answers;
}

/** What a listener that is not the app finds on a request (and its response). */
function factsOf(req: Req, res?: Res) {
  return {
    nodeRequest: Object.getPrototypeOf(req) === http.IncomingMessage.prototype,
    app: typeof req.app,
    fresh: Object.getOwnPropertyDescriptor(Object.getPrototypeOf(req), 'fresh') === undefined,
    ownKeys: Object.keys(req).filter((key) => ['next', 'baseUrl', 'originalUrl', 'params', 'res'].includes(key)),
    ...(res && {
      nodeResponse: Object.getPrototypeOf(res) === http.ServerResponse.prototype,
      json: typeof res.json,
      locals: Object.hasOwn(res, 'locals'),
    }),
  };
}

/** Runs `scenario` on express@4 and webapp and asserts both came out the same. */
async function sameOnBoth(scenario: (framework: Framework) => Promise<unknown>): Promise<void> {
  const results: Record<string, unknown> = {};
  for (const framework of frameworks) results[framework] = await scenario(framework);
  assert.deepEqual(results.webapp, results.express);
}

describe("the app's server, as code around the app sees it", () => {
  it('app.listen makes its server with http.createServer(app), as Express does', async () => {
    // A patch written for the one-argument form, as Application Insights' browser snippet is:
    // it wraps the request listener it is given.
    const createServer = http.createServer;
    await sameOnBoth(async (framework) => {
      const calls: unknown[][] = [];
      let wrapped = 0;
      (http as { createServer: unknown }).createServer = function (this: unknown, ...args: unknown[]) {
        calls.push(args.map((arg) => typeof arg));
        const listener = args[0] as http.RequestListener;
        return (createServer as (listener: http.RequestListener) => http.Server).call(this, (req, res) => {
          wrapped++;
          try {
            listener.call(this, req, res);
          } catch (err) {
            res.end(String(err));
          }
        });
      };
      let server: http.Server | undefined;
      try {
        server = await serve(makeApp(framework), 'app.listen');
        return { calls, answers: await warm(server), wrapped };
      } finally {
        (http as { createServer: unknown }).createServer = createServer;
        server?.close();
      }
    });
  });

  it('an emit wrapper put on each new server by a createServer patch sees every request', async () => {
    const createServer = http.createServer;
    await sameOnBoth(async (framework) => {
      const seen: string[] = [];
      (http as { createServer: unknown }).createServer = function (this: unknown, ...args: unknown[]) {
        const server = (createServer as (...args: unknown[]) => http.Server).apply(this, args);
        const emit = server.emit;
        server.emit = function (this: http.Server, event: string | symbol, ...rest: unknown[]) {
          if (event === 'request') seen.push((rest[0] as Req).headers['x-probe'] as string);
          return (emit as (...args: unknown[]) => boolean).apply(this, [event, ...rest]);
        } as typeof server.emit;
        return server;
      };
      let server: http.Server | undefined;
      try {
        server = await serve(makeApp(framework), 'app.listen');
        return { answers: await warm(server), seen };
      } finally {
        (http as { createServer: unknown }).createServer = createServer;
        server?.close();
      }
    });
  });

  for (const configurable of [true, false]) {
    const kind = configurable ? 'configurable' : 'not configurable';
    it(`an emit wrapper of the server's own (${kind}) stays, and is left when the app goes`, async () => {
      await sameOnBoth(async (framework) => {
        const server = http.createServer(makeApp(framework) as http.RequestListener);
        const seen: string[] = [];
        const emit = server.emit;
        const counting = function (this: http.Server, event: string | symbol, ...rest: unknown[]) {
          if (event === 'request') seen.push((rest[0] as Req).headers['x-probe'] as string);
          return (emit as (...args: unknown[]) => boolean).apply(this, [event, ...rest]);
        };
        Object.defineProperty(server, 'emit', { value: counting, writable: true, configurable, enumerable: true });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        try {
          const answers = [...(await warm(server)), await get(server, 'c')];
          // A development server reloading: the app goes, another listener answers.
          server.removeAllListeners('request');
          server.on('request', (req: Req, res: Res) => res.end(JSON.stringify(factsOf(req, res))));
          const facts = JSON.parse(await get(server, 'd'));
          return { answers, facts, seen, ownEmit: Object.getOwnPropertyDescriptor(server, 'emit')?.value === counting };
        } finally {
          server.close();
        }
      });
    });
  }

  for (const start of starts) {
    it(`${start}: a request listener prepended to the app gets Node's objects, and what it sets stays`, async () => {
      await sameOnBoth(async (framework) => {
        const server = await serve(makeApp(framework), start);
        try {
          const answers = await warm(server, framework);
          const facts: unknown[] = [];
          // A proxy fix in front of the app, strict mode (this module): on the app's
          // prototype `req.ip` is a getter, and assigning it would throw.
          server.prependListener('request', (req: Req, res: Res) => {
            facts.push(factsOf(req, res));
            try {
              req.ip = '203.0.113.7';
            } catch (err) {
              facts.push(String(err));
            }
          });
          answers.push(await get(server, 'c'), await get(server, 'd'));
          return { answers, facts };
        } finally {
          server.close();
        }
      });
    });

    it(`${start}: checkContinue and checkExpectation listeners get Node's objects, and can pass them on`, async () => {
      await sameOnBoth(async (framework) => {
        const app = makeApp(framework);
        const server = await serve(app, start);
        try {
          const answers = await warm(server, framework);
          const facts: unknown[] = [];
          server.on('checkContinue', (req: Req, res: Res) => {
            facts.push(factsOf(req, res));
            res.writeContinue();
            (app as http.RequestListener)(req, res);
          });
          server.on('checkExpectation', (req: Req, res: Res) => {
            facts.push(factsOf(req, res));
            res.writeHead(417, { 'content-length': '0' }).end();
          });
          const post = 'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nConnection: close\r\n';
          for (const expect of ['100-continue', 'something']) {
            const text = await exchange(portOf(server), `${post}Expect: ${expect}\r\n\r\nhello`);
            answers.push(text.replace(/\r\nDate: [^\r]*/, '').replace(/\r\nX-Powered-By: [^\r]*/, ''));
          }
          answers.push(...(await warm(server)));
          return { answers, facts };
        } finally {
          server.close();
        }
      });
    });

    it(`${start}: a dropRequest listener gets Node's request`, async () => {
      await sameOnBoth(async (framework) => {
        const server = await serve(makeApp(framework), start);
        try {
          const answers = await warm(server, framework);
          const facts: unknown[] = [];
          server.maxRequestsPerSocket = 1;
          server.on('dropRequest', (req: Req) => facts.push(factsOf(req)));
          const request = 'GET / HTTP/1.1\r\nHost: a\r\nX-Probe: p\r\n\r\n';
          const text = await exchange(
            portOf(server),
            request + request.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'),
          );
          answers.push(text.match(/^HTTP\/1\.1 \d+/gm)!.join(', '));
          return { answers, facts };
        } finally {
          server.close();
        }
      });
    });
  }
});
