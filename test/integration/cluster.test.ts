/**
 * examples/cluster under load, with its state in a real Redis: a session
 * written through one worker is read through the other, the rate limit counts
 * across workers, a Redis restart is answered with 503s and crashes no worker,
 * a rolling restart (SIGHUP) and a worker stopped with SIGTERM lose no request
 * and reset no connection, a crashed worker is replaced, the IPC message also
 * restarts, and SIGTERM to the whole process group answers the requests in
 * flight and ends it all with exit code 0.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { watchChild, type WatchedChild } from '../support/child-output';
import { rawRequest, type RawResponse } from '../support/raw-http';
import { startLoad } from '../support/load';
import { startRedis, type RedisServer } from '../support/redis-server';

const root = resolve(__dirname, '../..');
let redis: RedisServer;
let primary: ChildProcess;
let port: number;
let watched: WatchedChild;
/** Waits (30 s at most) until the primary has printed a line matching `pattern`. */
const printed = (pattern: RegExp, from?: number) => watched.printed(pattern, from);
const printedSoFar = () => watched.output().length;

const workerOf = (res: RawResponse) => String(res.headers['x-worker']);
/** POSTs `body` as JSON to the app's `/session`. */
const postSession = (port: number, body: string) =>
  rawRequest(port, { method: 'POST', path: '/session', headers: { 'content-type': 'application/json' }, body });

describe('examples/cluster', { timeout: 90000 }, () => {
  before(async () => {
    redis = await startRedis();
    primary = spawn(process.execPath, [resolve(root, 'examples/cluster/cluster.js')], {
      cwd: root,
      // A process group of its own: the last test signals the whole group, as systemd does.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: {
        ...process.env,
        // Port 0: the primary picks a free one and every worker, replacements too, gets
        // the same (Node's cluster); nothing can take it between choosing and binding.
        PORT: '0',
        HOST: '127.0.0.1',
        WORKERS: '2',
        REDIS_URL: redis.url,
        RATE_LIMIT: '5',
        SHUTDOWN_TIMEOUT: '5000',
      },
    });
    watched = watchChild(primary, { stderr: true });
    primary.stderr!.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    port = Number((await printed(/cluster of 2 listening on http:\/\/localhost:(\d+)/))[1]);
  });
  after(async () => {
    if (primary.exitCode === null && primary.signalCode === null) primary.kill('SIGKILL');
    await redis.stop();
  });

  it('a session written through one worker is read through the other', async () => {
    const written = await postSession(port, '{"value":"shared"}');
    assert.equal(written.status, 200);
    const cookie = String(written.headers['set-cookie']).split(';')[0]!;
    // Round-robin hands each new connection to the next worker; bounded tries.
    let read: RawResponse | undefined;
    for (let attempt = 0; attempt < 20; attempt++) {
      read = await rawRequest(port, { path: '/session', headers: { cookie } });
      if (workerOf(read) !== workerOf(written)) break;
    }
    assert.notEqual(workerOf(read!), workerOf(written));
    assert.deepEqual(JSON.parse(read!.body), { worker: Number(workerOf(read!)), value: 'shared' });
  });

  it("answers a client's mistake with its own status and a bug with 500, logging each on one line", async () => {
    const mark = watched.output().length;
    const broken = await postSession(port, '{"value":\n"x');
    // Until the fix, every error was a 503 "temporarily unavailable", and the parse
    // error's piece of the body broke the log line at its line break.
    assert.equal(broken.status, 400);
    assert.deepEqual(JSON.parse(broken.body), { error: 'Bad Request' });
    const line = await watched.printed(/worker \d+: POST \/session: 400 "[^\n]*"\n/, mark);
    assert.ok(line);
  });

  it('the rate limit counts one client across both workers', async () => {
    const answers: RawResponse[] = [];
    for (let i = 0; i < 8; i++) answers.push(await rawRequest(port, { path: '/limited' }));
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 200, 200, 200, 200, 429, 429, 429],
    );
    assert.equal(new Set(answers.slice(0, 5).map(workerOf)).size, 2, 'both workers counted into one limit');
  });

  it('Redis stopped and restarted: the workers answer 503 meanwhile, none crashes, sessions resume', async () => {
    const post = (value: string) =>
      rawRequest(port, {
        method: 'POST',
        path: '/session',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ value }),
      });
    const read = (cookie: string) => rawRequest(port, { path: '/session', headers: { cookie } });
    const cookie = String((await post('before')).headers['set-cookie']).split(';')[0]!;
    const workersBefore = new Set<string>();
    for (let i = 0; i < 4; i++) workersBefore.add(workerOf(await rawRequest(port, { path: '/' })));
    const mark = printedSoFar();
    await redis.stop();
    try {
      for (let i = 0; i < 4; i++) {
        const answer = await read(cookie);
        assert.equal(answer.status, 503);
        assert.deepEqual(JSON.parse(answer.body), { error: 'temporarily unavailable' });
      }
    } finally {
      await redis.start();
    }
    // Bounded: each worker's client reconnects within its backoff. Resumed means
    // a session is stored and read back, through both workers.
    const resumedOn = new Set<string>();
    for (let attempt = 0; attempt < 150 && resumedOn.size < 2; attempt++) {
      const written = await post('back');
      const answer =
        written.status === 200 ? await read(String(written.headers['set-cookie']).split(';')[0]!) : undefined;
      if (answer?.status === 200 && JSON.parse(answer.body).value === 'back') {
        resumedOn.add(workerOf(written));
        resumedOn.add(workerOf(answer));
      } else await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(resumedOn.size, 2);
    assert.deepEqual(resumedOn, workersBefore, 'the same workers: none crashed');
    assert.doesNotMatch(watched.output().slice(mark), /exited/);
  });

  it('rolling restart and a worker stopped by SIGTERM under load: 0 failed requests, 0 reset sockets', async () => {
    const load = startLoad({
      port,
      path: '/work',
      concurrency: 4,
      maxRequests: 20000,
      maxMs: 60000,
      check: (body) => JSON.parse(body).payload.length === 4096,
    });
    // `count` more answers, within 30 s: a stalled cluster fails the test with the primary's output.
    const served = async (count: number) => {
      const target = load.result.ok + count;
      const deadline = Date.now() + 30000;
      while (load.result.ok < target && load.result.failures.length === 0) {
        if (Date.now() > deadline)
          throw new Error(
            `${load.result.ok} answers, waiting for ${target}; the primary printed:\n${watched.output()}`,
          );
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    try {
      await served(50);
      const mark = printedSoFar();
      primary.kill('SIGHUP');
      await printed(/rolling restart: done/, mark);
      await served(50);

      const victim = workerOf(await rawRequest(port, { path: '/' }));
      const beforeKill = printedSoFar();
      process.kill(Number(victim), 'SIGTERM');
      await printed(new RegExp(`worker ${victim} exited \\(0\\), starting a new one`), beforeKill);
      await printed(/listening \(replacement\)/, beforeKill);
      await served(50);
    } finally {
      const result = await load.stop();
      assert.deepEqual(result.failures, []);
      // 2 first workers, 2 from the rolling restart, 1 replacement.
      assert.ok(result.workers.size >= 4, `answers came from ${result.workers.size} workers`);
    }
  });

  it('a crashed worker is replaced and the cluster keeps answering', async () => {
    const victim = workerOf(await rawRequest(port, { path: '/' }));
    const mark = printedSoFar();
    process.kill(Number(victim), 'SIGKILL');
    await printed(new RegExp(`worker ${victim} exited \\(SIGKILL\\), starting a new one`), mark);
    await printed(/listening \(replacement\)/, mark);
    const workers = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const res = await rawRequest(port, { path: '/' });
      assert.equal(res.status, 200);
      workers.add(workerOf(res));
    }
    assert.equal(workers.size, 2);
    assert.ok(!workers.has(victim));
  });

  it('the IPC message { cmd: "rolling-restart" } replaces every worker, one at a time', async () => {
    const before = new Set<string>();
    for (let i = 0; i < 4; i++) before.add(workerOf(await rawRequest(port, { path: '/' })));
    const mark = printedSoFar();
    primary.send({ cmd: 'rolling-restart' });
    await printed(/rolling restart: done/, mark);
    const retired = [
      ...watched
        .output()
        .slice(mark)
        .matchAll(/listening, retiring (\d+)/g),
    ].map((m) => m[1]);
    assert.deepEqual(new Set(retired), before);
    const after = new Set<string>();
    for (let i = 0; i < 4; i++) after.add(workerOf(await rawRequest(port, { path: '/' })));
    assert.equal(after.size, 2);
    for (const worker of after) assert.ok(!before.has(worker));
  });

  it('SIGTERM to the whole process group answers the requests in flight, then exits with code 0', async () => {
    // systemd (KillMode=control-group), Ctrl-C and `kill -TERM -pgid` signal the primary and
    // every worker at once: each worker's drain and the primary's disconnect cross.
    const inFlight = Array.from({ length: 4 }, () => rawRequest(port, { path: '/work?ms=1500' }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(-primary.pid!, 'SIGTERM');
    const answers = await Promise.all(inFlight);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 200, 200],
    );
    assert.deepEqual(await watched.exited, [0, null]);
  });
});
