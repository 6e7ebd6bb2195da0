/**
 * Sessions in a real Redis: express-session with connect-redis (current major,
 * `redis` client) on a 4.x app, webapp/middleware's session with the same
 * store, and a 3.x app with a store written as require('connect-redis')(express).
 * A Redis outage reaches the app's error handler through next(err), the server
 * keeps serving, and sessions work again once Redis is back.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { RedisStore } from 'connect-redis';
import expressSession from 'express-session';
import { createClient, type RedisClientType } from 'redis';
import webapp = require('../../src/index');
import webappV3 = require('../../src/v3');
import { session as webappSession } from '../../src/middleware';
import { rawRequest, type RawResponse } from '../support/raw-http';
import { startRedis, type RedisServer } from '../support/redis-server';
import { sharedSetup } from '../support/shared-setup';

type Any = any;
let redis: RedisServer;
let client: RedisClientType;

/** Redis and a connected client, started once for the suites below. */
const redisStarted = sharedSetup(connectToNewRedis);

async function connectToNewRedis(): Promise<void> {
  redis = await startRedis();
  // disableOfflineQueue: while Redis is away, commands fail at once (and reach
  // next(err)) instead of queueing until it returns, which would hang requests.
  client = createClient({
    url: redis.url,
    disableOfflineQueue: true,
    socket: { reconnectStrategy: (retries: number) => Math.min(50 * retries, 300) },
  });
  client.on('error', () => {}); // reconnects on its own; each failed command reports its own error
  await client.connect();
}

after(async () => {
  await client.close?.();
  await redis.stop();
});

function listen(app: Any): Promise<http.Server> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}
const portOf = (server: http.Server) => (server.address() as AddressInfo).port;

/** The session cookie of a response, ready to send back. */
function cookieFrom(res: RawResponse, name: string): string {
  const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${name}=`));
  assert.ok(cookie, `a ${name} cookie is set`);
  return cookie!.split(';')[0]!;
}

/** The app every 4.x stack shares: a visit counter, and an error handler that names the error. */
function counterApp(sessionMiddleware: Any) {
  const app = webapp();
  app.get('/alive', (_req: Any, res: Any) => res.send('alive'));
  app.use(sessionMiddleware);
  app.get('/visit', (req: Any, res: Any) => {
    req.session.views = (req.session.views ?? 0) + 1;
    res.json({ views: req.session.views });
  });
  app.use((err: Error, _req: Any, res: Any, _next: Any) => res.status(503).json({ error: err.message }));
  return app;
}

async function visitsTwiceThroughRedis(server: http.Server, cookieName: string, prefix: string) {
  const port = portOf(server);
  const first = await rawRequest(port, { path: '/visit' });
  assert.equal(first.status, 200);
  assert.deepEqual(JSON.parse(first.body), { views: 1 });
  const cookie = cookieFrom(first, cookieName);
  const second = await rawRequest(port, { path: '/visit', headers: { cookie } });
  assert.deepEqual(JSON.parse(second.body), { views: 2 });
  // The data is in Redis, not in the process.
  const sid = decodeURIComponent(cookie.split('=')[1]!).replace(/^s:/, '').split('.')[0]!;
  assert.equal(JSON.parse((await client.get(`${prefix}${sid}`)) as string).views, 2);
}

describe('express-session + connect-redis on a webapp 4.x app', () => {
  before(redisStarted);

  it('keeps the session in Redis across requests', async () => {
    const store = new RedisStore({ client, prefix: 'es:' });
    const server = await listen(
      counterApp(expressSession({ store, secret: 'k', resave: false, saveUninitialized: false })),
    );
    try {
      await visitsTwiceThroughRedis(server, 'connect.sid', 'es:');
    } finally {
      server.close();
    }
  });
});

describe("webapp/middleware's session with connect-redis", () => {
  before(redisStarted);

  it('keeps the session in Redis across requests', async () => {
    const store = new RedisStore({ client, prefix: 'wm:' });
    const server = await listen(counterApp(webappSession({ store: store as Any, secret: 'k' })));
    try {
      await visitsTwiceThroughRedis(server, 'connect.sid', 'wm:');
    } finally {
      server.close();
    }
  });
});

describe("webapp/v3 with require('connect-redis')(express) (connect-redis 1.x)", () => {
  before(redisStarted);

  it('builds its store on express.session.Store and keeps the session in Redis', async () => {
    const express = webappV3;
    const RedisStore3 = require('connect-redis1')(express);
    const store = new RedisStore3({ host: '127.0.0.1', port: redis.port, prefix: 'v3:' });
    assert.ok(store instanceof (express as Any).session.Store);
    const app = express();
    app.use(express.cookieParser());
    app.use(express.session({ store, secret: 'k' }));
    app.get('/visit', (req: Any, res: Any) => {
      req.session.views = (req.session.views ?? 0) + 1;
      res.json({ views: req.session.views });
    });
    const server = await listen(app);
    try {
      await visitsTwiceThroughRedis(server, 'connect.sid', 'v3:');
    } finally {
      server.close();
      store.client.quit();
    }
  });
});

describe('a Redis restart mid-run', () => {
  before(redisStarted);

  for (const [name, make] of [
    [
      'express-session',
      () =>
        expressSession({
          store: new RedisStore({ client, prefix: 'o1:' }),
          secret: 'k',
          resave: false,
          saveUninitialized: false,
        }),
    ],
    [
      'webapp/middleware session',
      () => webappSession({ store: new RedisStore({ client, prefix: 'o2:' }) as Any, secret: 'k' }),
    ],
  ] as const) {
    it(
      `${name}: errors go through next(err), the server keeps serving, sessions resume`,
      { timeout: 30000 },
      async () => {
        const server = await listen(counterApp(make()));
        const port = portOf(server);
        try {
          const before = await rawRequest(port, { path: '/visit' });
          const cookie = cookieFrom(before, 'connect.sid');

          await redis.stop();
          const during = await rawRequest(port, { path: '/visit', headers: { cookie } });
          assert.equal(during.status, 503, 'the error handler answered');
          assert.ok(JSON.parse(during.body).error.length > 0);
          assert.equal((await rawRequest(port, { path: '/alive' })).body, 'alive');

          await redis.start();
          // Bounded: the client reconnects within its backoff (at most 300 ms a try).
          // Resumed means a new session is stored and read back through Redis.
          let resumed: unknown;
          for (let attempt = 0; attempt < 100 && resumed === undefined; attempt++) {
            const first = await rawRequest(port, { path: '/visit' });
            const second =
              first.status === 200 &&
              (await rawRequest(port, { path: '/visit', headers: { cookie: cookieFrom(first, 'connect.sid') } }));
            // (express-session still answers when its save fails, passing the error on after the response.)
            if (second && second.status === 200 && JSON.parse(second.body).views === 2)
              resumed = JSON.parse(second.body);
            else await new Promise((resolve) => setTimeout(resolve, 100));
          }
          assert.deepEqual(resumed, { views: 2 });
        } finally {
          server.close();
        }
      },
    );
  }
});
