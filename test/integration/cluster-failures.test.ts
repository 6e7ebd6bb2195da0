/**
 * examples/cluster when things go wrong around it: a rolling restart whose new
 * worker cannot start (Redis gone) is abandoned and the running workers keep
 * serving; a worker with an uncaught exception is replaced while it drains;
 * SIGTERM to a primary whose workers are still waiting for Redis ends
 * it all at once rather than never.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { watchChild, type WatchedChild } from '../support/child-output';
import { rawRequest } from '../support/raw-http';
import { freePort, startRedis } from '../support/redis-server';

const root = resolve(__dirname, '../..');

/** `nodeArgs` go to the primary and, through node:cluster's execArgv, to every worker. */
function startPrimary(env: Record<string, string>, nodeArgs: string[] = []): ChildProcess {
  return spawn(process.execPath, [...nodeArgs, resolve(root, 'examples/cluster/cluster.js')], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, HOST: '127.0.0.1', WORKERS: '2', SHUTDOWN_TIMEOUT: '3000', ...env },
  });
}

/**
 * Preloaded into the primary and its workers: requests announced as they arrive,
 * SIGUSR2 crashes a worker, TEST_LISTEN_DELAY slows the first workers' start.
 */
const crashHook = resolve(__dirname, 'fixtures/cluster-crash-hook.cjs');

/** The primary with the crash hook, its output (stderr too) watched. */
function startHooked(env: Record<string, string>): { primary: ChildProcess; watched: WatchedChild } {
  const primary = startPrimary(env, ['--require', crashHook]);
  return { primary, watched: watchChild(primary, { stderr: true }) };
}

/** The port the primary printed once its two workers listen. */
async function clusterPort(watched: WatchedChild): Promise<number> {
  return Number((await watched.printed(/cluster of 2 listening on http:\/\/localhost:(\d+)/))[1]);
}

/** Ends the primary's whole process group, whatever state the test left it in. */
function killGroup(primary: ChildProcess): void {
  try {
    process.kill(-primary.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** SIGTERM to the primary: it drains its workers and exits with code 0. */
async function stopsCleanly(primary: ChildProcess): Promise<void> {
  const exited = once(primary, 'exit');
  primary.kill('SIGTERM');
  assert.deepEqual(await exited, [0, null]);
}

/** Resolves once no process has the pid (10 s at most). */
async function waitForExit(pid: number): Promise<void> {
  for (const deadline = Date.now() + 10000; Date.now() < deadline;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`process ${pid} still runs`);
}

describe('examples/cluster: failures', { timeout: 60000 }, () => {
  it('a rolling restart whose new worker cannot start is abandoned; the running workers keep serving', async () => {
    const redis = await startRedis();
    // The start timeout is also what the later restart, with Redis back, must start a
    // worker within: room for a machine busy with other work (1.5 s failed once).
    const primary = startPrimary({ PORT: '0', REDIS_URL: redis.url, WORKER_START_TIMEOUT: '5000' });
    const watched = watchChild(primary, { stderr: true });
    try {
      const port = await clusterPort(watched);
      // New workers connect to Redis before they listen: with it gone, none can start.
      await redis.stop();
      const mark = watched.output().length;
      primary.kill('SIGHUP');
      await watched.printed(
        /rolling restart: stopped, the running workers keep serving: .*did not listen within 5000 ms/,
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
      await stopsCleanly(primary);
    } finally {
      killGroup(primary);
      await redis.stop();
    }
  });

  it('a worker with an uncaught exception is replaced while it drains, not after', async () => {
    const { primary, watched } = startHooked({ PORT: '0', SHUTDOWN_TIMEOUT: '20000' });
    try {
      const port = await clusterPort(watched);
      const mark = watched.output().length;
      let slowSettled = false;
      const slow = rawRequest(port, { path: '/work?ms=8000' }).finally(() => (slowSettled = true));
      const victim = (await watched.printed(/worker (\d+) received \/work/, mark))[1]!;
      process.kill(Number(victim), 'SIGUSR2');
      await watched.printed(new RegExp(`worker ${victim} crashed and is draining, starting a new one`), mark);
      await watched.printed(/listening \(replacement\)/, mark);
      // Until the fix, the cluster ran one worker short for as long as the crashed one
      // drained (here the 8 s request it holds): the replacement started at its exit.
      const answering = new Set<string>();
      for (let i = 0; i < 6; i++) {
        const res = await rawRequest(port, { path: '/' });
        assert.equal(res.status, 200);
        answering.add(String(res.headers['x-worker']));
      }
      assert.equal(slowSettled, false, 'the crashed worker still holds its request');
      assert.equal(answering.size, 2, `answers came from ${[...answering].join(', ')}`);
      assert.ok(!answering.has(victim), 'the crashed worker takes no new connection');
      // It finishes what it holds, then exits; that exit starts no second replacement.
      const held = await slow;
      assert.equal(held.status, 200);
      assert.equal(String(held.headers['x-worker']), victim);
      await waitForExit(Number(victim));
      await new Promise((r) => setTimeout(r, 300));
      const since = watched.output().slice(mark);
      assert.doesNotMatch(since, /exited \(/);
      assert.equal(since.match(/listening \(replacement\)/g)?.length, 1);
      await stopsCleanly(primary);
    } finally {
      killGroup(primary);
    }
  });

  it('SIGHUP while the first workers start: the cluster comes up, then restarts', async () => {
    const flagDir = mkdtempSync(join(tmpdir(), 'cluster-start-'));
    const flag = join(flagDir, 'slow');
    writeFileSync(flag, '');
    const { primary, watched } = startHooked({ PORT: '0', TEST_LISTEN_DELAY: '2000', TEST_LISTEN_DELAY_FLAG: flag });
    try {
      // Workers print once the primary has its signal handlers and has forked them.
      await watched.printed(/worker \d+ starting[\s\S]*worker \d+ starting/);
      // The restart's new worker listens at once, while the first ones still start.
      rmSync(flag);
      primary.kill('SIGHUP');
      // Until the fix, the restart retired a worker the start-up waited for, and the
      // primary exited with code 1 without ever serving.
      const port = await clusterPort(watched);
      await watched.printed(/rolling restart: done/);
      assert.equal(primary.exitCode, null);
      assert.equal((await rawRequest(port, { path: '/' })).status, 200);
      await stopsCleanly(primary);
    } finally {
      killGroup(primary);
      rmSync(flagDir, { recursive: true, force: true });
    }
  });

  it('SIGHUP to the whole process group restarts the workers without cutting a request in flight', async () => {
    const { primary, watched } = startHooked({ PORT: '0' });
    try {
      const port = await clusterPort(watched);
      const mark = watched.output().length;
      const slow = rawRequest(port, { path: '/work?ms=1500' });
      await watched.printed(/worker \d+ received \/work/, mark);
      // As dumb-init or `kill -HUP -PGID` send it: to the primary and every worker.
      process.kill(-primary.pid!, 'SIGHUP');
      assert.equal((await slow).status, 200, 'the request in flight is answered');
      await watched.printed(/rolling restart: done/, mark);
      assert.equal((await rawRequest(port, { path: '/' })).status, 200);
      assert.doesNotMatch(watched.output().slice(mark), /exited \(SIGHUP\)/);
      await stopsCleanly(primary);
    } finally {
      killGroup(primary);
    }
  });

  it('a worker that crashes while a rolling restart retires it is not replaced a second time', async () => {
    const { primary, watched } = startHooked({ PORT: '0' });
    try {
      const port = await clusterPort(watched);
      const mark = watched.output().length;
      const slow = rawRequest(port, { path: '/work?ms=3000' });
      const victim = (await watched.printed(/worker (\d+) received \/work/, mark))[1]!;
      primary.kill('SIGHUP');
      // Its successor listens, it is asked to drain (it holds the slow request), and it crashes.
      await watched.printed(new RegExp(`retiring ${victim}`), mark);
      process.kill(Number(victim), 'SIGUSR2');
      assert.equal((await slow).status, 200, 'the crashed worker still finishes what it holds');
      await watched.printed(/rolling restart: done/, mark);
      // Until the fix, the crash started a replacement beside the successor: three workers, for good.
      await new Promise((r) => setTimeout(r, 500));
      const since = watched.output().slice(mark);
      assert.doesNotMatch(since, /starting a new one/);
      const answering = new Set<string>();
      for (let i = 0; i < 8; i++) answering.add(String((await rawRequest(port, { path: '/' })).headers['x-worker']));
      assert.equal(answering.size, 2, `answers came from ${[...answering].join(', ')}`);
      await stopsCleanly(primary);
    } finally {
      killGroup(primary);
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

  it('a port another program holds: the workers fail to start, the primary exits 1, none starts again', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    // A long drain deadline: a worker that waited to drain a server that never listened,
    // while the primary started its replacement at once, kept the primary up past the test.
    const primary = startPrimary({ PORT: String(port), SHUTDOWN_TIMEOUT: '60000' });
    const watched = watchChild(primary, { stderr: true });
    try {
      const [code] = await once(primary, 'exit');
      assert.equal(code, 1);
      const output = watched.output();
      assert.match(output, /could not start: bind EADDRINUSE/);
      assert.doesNotMatch(output, /starting a new one|uncaught exception/);
      // The two first workers, each started once (the second may still be starting as the primary exits).
      const starts = output.match(/could not start/g)?.length ?? 0;
      assert.ok(starts >= 1 && starts <= 2, output);
    } finally {
      killGroup(primary);
      taken.close();
    }
  });
});
