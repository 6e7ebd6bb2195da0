/**
 * examples/cluster when things go wrong around it: a rolling restart whose new
 * worker cannot start (Redis gone) is abandoned and the running workers keep
 * serving; SIGTERM to a primary whose workers are still waiting for Redis ends
 * it all at once rather than never.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { watchChild } from '../support/child-output';
import { rawRequest } from '../support/raw-http';
import { freePort, startRedis } from '../support/redis-server';

const root = resolve(__dirname, '../..');

function startPrimary(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [resolve(root, 'examples/cluster/cluster.js')], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, HOST: '127.0.0.1', WORKERS: '2', SHUTDOWN_TIMEOUT: '3000', ...env },
  });
}

/** Ends the primary's whole process group, whatever state the test left it in. */
function killGroup(primary: ChildProcess): void {
  try {
    process.kill(-primary.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

describe('examples/cluster: failures', { timeout: 60000 }, () => {
  it('a rolling restart whose new worker cannot start is abandoned; the running workers keep serving', async () => {
    const redis = await startRedis();
    const primary = startPrimary({ PORT: '0', REDIS_URL: redis.url, WORKER_START_TIMEOUT: '1500' });
    const watched = watchChild(primary, { stderr: true });
    try {
      const port = Number((await watched.printed(/cluster of 2 listening on http:\/\/localhost:(\d+)/))[1]);
      // New workers connect to Redis before they listen: with it gone, none can start.
      await redis.stop();
      const mark = watched.output().length;
      primary.kill('SIGHUP');
      await watched.printed(
        /rolling restart: stopped, the running workers keep serving: .*did not listen within 1500 ms/,
        mark,
      );
      assert.equal(primary.exitCode, null, 'the primary goes on');
      for (let i = 0; i < 4; i++) assert.equal((await rawRequest(port, { path: '/' })).status, 200);
      // The failed candidate is not replaced in a loop: no other worker is started.
      await new Promise((r) => setTimeout(r, 1500));
      assert.doesNotMatch(watched.output().slice(mark), /starting a new one/);
      // A later restart, with Redis back, goes through.
      await redis.start();
      const again = watched.output().length;
      primary.kill('SIGHUP');
      await watched.printed(/rolling restart: done/, again);
      assert.equal((await rawRequest(port, { path: '/' })).status, 200);
      const exited = once(primary, 'exit');
      primary.kill('SIGTERM');
      assert.deepEqual(await exited, [0, null]);
    } finally {
      killGroup(primary);
      await redis.stop();
    }
  });

  it('SIGTERM to a primary whose workers still wait for Redis ends them all at once', async () => {
    // A port nothing listens on: the workers' Redis client retries for ever, never listening.
    const primary = startPrimary({ PORT: '0', REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    const watched = watchChild(primary, { stderr: true });
    try {
      await watched.printed(/redis: /);
      const started = Date.now();
      const exited = once(primary, 'exit');
      primary.kill('SIGTERM');
      const [code] = await exited;
      assert.equal(code, 0);
      assert.ok(Date.now() - started < 2000, `exited after ${Date.now() - started} ms`);
    } finally {
      killGroup(primary);
    }
  });
});
