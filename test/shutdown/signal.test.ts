/**
 * SIGTERM to a process whose server is under webapp.graceful(): the request in
 * flight gets its full answer (with Connection: close), the shutdown hook runs,
 * and the process exits with code 0.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { it } from 'node:test';
import { watchChild, type WatchedChild } from '../support/child-output';
import { connect, parseResponses } from './connection';

/**
 * Runs test/shutdown/fixtures/sigterm-server.ts (its modes set by `env`) and
 * `body` with it and the port it listens on; the process is killed after.
 */
async function withServer(
  env: Record<string, string>,
  body: (server: WatchedChild & { child: ChildProcess }, port: number) => Promise<void>,
  stderr: 'inherit' | 'ignore' = 'inherit',
): Promise<void> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', join(__dirname, 'fixtures/sigterm-server.ts')], {
    stdio: ['ignore', 'pipe', stderr],
    env: { ...process.env, ...env },
  });
  const watched = watchChild(child);
  try {
    const port = Number((await watched.printed(/listening (\d+)/))[1]);
    await body({ ...watched, child }, port);
  } finally {
    child.kill('SIGKILL');
  }
}

/** Sends GET `path` on a connection of its own, and resolves once the route has begun. */
async function inFlight(server: WatchedChild, port: number, path: string) {
  const client = await connect(port);
  client.socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  await server.printed(/entered/);
  return client;
}

it('SIGTERM drains the request in flight, runs the hook and exits with code 0', { timeout: 30000 }, async () => {
  await withServer({}, async (server, port) => {
    const client = await inFlight(server, port, '/slow');
    server.child.kill('SIGTERM');
    const [answer] = parseResponses(await client.received);
    assert.equal(answer!.body.toString(), 'finished after SIGTERM');
    assert.equal(answer!.headers.connection, 'close');
    assert.deepEqual(await server.exited, [0, null]);
    assert.match(server.output(), /shutdown hook ran/);
  });
});

it(
  'SIGTERM during a drain already begun waits for it: the request in flight is answered',
  { timeout: 30000 },
  async () => {
    // cluster's worker.disconnect(), or the app's own close(), began the drain; a signal then
    // (systemd stopping the service mid-deploy) ran the hooks and exited at once.
    await withServer({ CLOSE_FIRST: '1' }, async (server, port) => {
      const client = await inFlight(server, port, '/slow');
      server.child.kill('SIGTERM');
      const [answer] = parseResponses(await client.received);
      assert.equal(answer?.body.toString(), 'finished after SIGTERM');
      assert.deepEqual(await server.exited, [0, null]);
      assert.match(server.output(), /shutdown hook ran/);
    });
  },
);

it('at the deadline, the cut responses close before the shutdown hook runs', { timeout: 30000 }, async () => {
  // Their `close` handlers end spans and release what the app holds; the hook flushes
  // telemetry. The exit came between the server's close and the connections'.
  await withServer({ TIMEOUT: '200' }, async (server, port) => {
    await inFlight(server, port, '/hang');
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.exited, [0, null]);
    assert.deepEqual(server.output().split('\n').slice(-3), ['response closed', 'shutdown hook ran', '']);
  });
});

it('a failing shutdown hook makes the exit code 1', { timeout: 30000 }, async () => {
  await withServer(
    { HOOK_FAILS: '1' },
    async (server) => {
      server.child.kill('SIGTERM');
      assert.deepEqual(await server.exited, [1, null]);
    },
    'ignore', // the hook's error, printed as it should be
  );
});

it('an exit code the app set itself is kept', { timeout: 30000 }, async () => {
  await withServer({ EXIT_CODE: '3' }, async (server) => {
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.exited, [3, null]);
  });
});

it('a second signal while a shutdown hook hangs exits at once with code 1', { timeout: 30000 }, async () => {
  // Nothing bounds a hook (the deadline is the connections'): one that never settles
  // left the process deaf to every later signal, Ctrl-C included.
  await withServer(
    { HOOK_HANGS: '1' },
    async (server) => {
      server.child.kill('SIGTERM');
      await server.printed(/shutdown hook ran/);
      server.child.kill('SIGINT');
      assert.deepEqual(await server.exited, [1, null]);
    },
    'ignore', // the notice that the hooks were not waited for
  );
});
