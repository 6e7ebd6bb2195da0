/**
 * SIGTERM to a node:cluster worker under webapp.graceful(), with connections
 * arriving all the time: under round-robin scheduling the primary accepts each
 * connection and hands it to a worker over IPC, so one can be on its way to a
 * worker whose server has just closed. The worker must still be there to refuse
 * it (the primary then gives it to the other worker); a worker that exits at
 * once leaves it unanswered in the primary, and that client waits forever.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { it } from 'node:test';
import { watchChild } from '../support/child-output';
import { startLoad } from '../support/load';

const STOPS = 8;

it('workers stopped by SIGTERM under load leave no connection unanswered', { timeout: 120000 }, async () => {
  const primary = spawn(process.execPath, ['--require', 'tsx/cjs', join(__dirname, 'fixtures/cluster-primary.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const watched = watchChild(primary);
  try {
    const port = Number((await watched.printed(/cluster listening (\d+)/))[1]);
    const load = startLoad({
      port,
      path: '/',
      concurrency: 8,
      maxRequests: 200000,
      maxMs: 100000,
      requestTimeoutMs: 10000,
      check: (body) => body === 'ok',
    });
    const listening = () => [...watched.output().matchAll(/worker (\d+) listening/g)].map((m) => Number(m[1]));
    try {
      for (let stop = 0; stop < STOPS; stop++) {
        const answered = load.result.ok;
        // Stop the newest worker once the cluster has answered a few more requests.
        while (load.result.ok < answered + 200 && load.result.failures.length === 0)
          await new Promise((r) => setTimeout(r, 5));
        const victim = listening().at(-1)!;
        const mark = watched.output().length;
        process.kill(victim, 'SIGTERM');
        await watched.printed(new RegExp(`worker ${victim} exited \\(0\\)`), mark);
        await watched.printed(/worker \d+ listening/, mark);
      }
    } finally {
      const result = await load.stop();
      assert.deepEqual(result.failures, []);
      assert.ok(result.ok > STOPS * 200);
    }
    primary.kill('SIGTERM');
    assert.deepEqual(await watched.exited, [0, null]);
  } finally {
    primary.kill('SIGKILL');
  }
});
