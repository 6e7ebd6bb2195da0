/**
 * The shutdown libraries people already use with Express work unchanged on a
 * webapp server: http-terminator and stoppable in this process, and
 * @godaddy/terminus (which owns the process's signals) in a child process.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createHttpTerminator } from 'http-terminator';
import stoppable from 'stoppable';
import webapp = require('../../src/index');
import { watchChild } from '../support/child-output';
import { rawRequest } from '../support/raw-http';
import { connect, parseResponses, refused, signal } from './connection';

type Any = any;
const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`;

/** A listening webapp server with an idle keep-alive socket and a request held in its handler. */
async function serverWithRequestInFlight<T>(install: (server: http.Server) => T) {
  const entered = signal();
  const release = signal();
  const app = webapp();
  app.get('/quick', (_req: Any, res: Any) => res.send('quick'));
  app.get('/slow', async (_req: Any, res: Any) => {
    entered.resolve();
    await release.promise;
    res.send('slow done');
  });
  const server: http.Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  server.keepAliveTimeout = 10 * 60 * 1000;
  // As users do: the library wraps the server before any connection arrives.
  const installed = install(server);
  const port = (server.address() as AddressInfo).port;
  const idle = await connect(port);
  const answered = new Promise<void>((resolve) => idle.socket.once('data', () => resolve()));
  idle.socket.write(get('/quick'));
  await answered;
  const busy = await connect(port);
  busy.socket.write(get('/slow'));
  await entered.promise;
  return { server, installed, port, idle, busy, release };
}

describe('shutdown libraries on a webapp server', () => {
  // http-terminator closes the listener only once the sockets have drained (as it does with Express).
  it(
    'http-terminator: the request in flight completes with Connection: close, idle sockets close, then the server',
    { timeout: 15000 },
    async () => {
      const {
        server,
        installed: terminator,
        port,
        idle,
        busy,
        release,
      } = await serverWithRequestInFlight((server) =>
        createHttpTerminator({ server, gracefulTerminationTimeout: 5000 }),
      );
      const terminated = terminator.terminate();
      assert.deepEqual(
        parseResponses(await idle.received).map((r) => r.body.toString()),
        ['quick'],
      );
      release.resolve();
      const [answer] = parseResponses(await busy.received);
      assert.equal(answer!.body.toString(), 'slow done');
      assert.equal(answer!.headers.connection, 'close');
      await terminated;
      assert.equal(server.listening, false);
      assert.equal(await refused(port), 'ECONNREFUSED');
    },
  );

  it(
    'stoppable: server.stop() lets the request in flight complete and closes every socket',
    { timeout: 15000 },
    async () => {
      const {
        installed: stoppableServer,
        port,
        idle,
        busy,
        release,
      } = await serverWithRequestInFlight((server) => stoppable(server, 5000));
      const stopped = new Promise<[Error | undefined, boolean]>((resolve) =>
        stoppableServer.stop((err, graceful) => resolve([err, graceful])),
      );
      await idle.received;
      assert.equal(await refused(port), 'ECONNREFUSED');
      release.resolve();
      const [answer] = parseResponses(await busy.received);
      assert.equal(answer!.body.toString(), 'slow done');
      assert.deepEqual(await stopped, [undefined, true]);
    },
  );

  it(
    '@godaddy/terminus: health checks answer, 503 during shutdown, in-flight request completes, exit code 0',
    { timeout: 30000 },
    async () => {
      const child = spawn(process.execPath, ['--require', 'tsx/cjs', join(__dirname, 'fixtures/terminus-server.ts')], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const { printed, exited, output } = watchChild(child);
      try {
        const port = Number((await printed(/listening (\d+)/))[1]);
        const healthy = await rawRequest(port, { path: '/healthcheck' });
        assert.equal(healthy.status, 200);
        assert.deepEqual(JSON.parse(healthy.body).info, { db: 'up' });

        const busy = await connect(port);
        const answered = new Promise<void>((resolve) => busy.socket.once('data', () => resolve()));
        busy.socket.write(get('/slow'));
        await printed(/entered/);
        child.kill('SIGTERM');
        await answered;
        assert.equal((await rawRequest(port, { path: '/healthcheck' })).status, 503);
        assert.equal((await rawRequest(port, { path: '/probed' })).body, 'ok');

        const [answer] = parseResponses(await busy.received);
        assert.equal(answer!.body.toString(), 'finished after SIGTERM');
        assert.deepEqual(await exited, [0, null]);
        assert.match(output(), /terminus onShutdown/);
      } finally {
        child.kill('SIGKILL');
      }
    },
  );
});
