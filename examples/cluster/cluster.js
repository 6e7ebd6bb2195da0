'use strict';
// node:cluster in front of ./worker.js: one worker per core (WORKERS to
// change), a crashed worker is replaced (as soon as it reports an uncaught
// exception, while it drains), and SIGHUP (or the IPC message
// { cmd: 'rolling-restart' }) replaces the workers one at a time, each only
// once its successor is listening, so the port never goes unserved.
//
//   WORKERS=4 PORT=3000 REDIS_URL=redis://127.0.0.1:6379 node examples/cluster/cluster.js
//
// PORT=0 (a free port, as the tests use) is one port for every worker only while one of
// them holds it: node:cluster shares a listening handle by the port asked for, so once
// the last worker has closed it (a cluster of one that crashed), the next listen(0) gets
// another port. Give a fixed PORT in production.
const cluster = require('node:cluster');
const os = require('node:os');
const path = require('node:path');

const size = Number(process.env.WORKERS) || os.availableParallelism();
const shutdownTimeout = Number(process.env.SHUTDOWN_TIMEOUT) || 10_000;
/** How long a worker of a rolling restart may take to listen (Redis to reach...) before the restart is abandoned. */
const startTimeout = Number(process.env.WORKER_START_TIMEOUT) || 30_000;
let stopping = false;
let restarting = false;
let restartAgain = false;
/** Whether the first workers all listen: a rolling restart asked for before then waits for it. */
let started = false;
/** Replacements in a row that died before listening: each waits twice as long as the one before, up to 30 s. */
let failedStarts = 0;
const listened = new WeakSet();
/**
 * Workers whose loss is already handled: a rolling restart's candidate that failed to
 * start, a crashed worker whose replacement has started, one a restart is replacing.
 */
const accountedFor = new WeakSet();

cluster.setupPrimary({ exec: path.join(__dirname, 'worker.js') });

/**
 * Forks a worker and resolves once it listens. Rejects if it dies first, or, given a
 * `timeout`, if it has not listened by then (it is killed: a worker stuck starting
 * would hold a rolling restart forever).
 */
function startWorker({ timeout } = {}) {
  const worker = cluster.fork();
  return new Promise((resolve, reject) => {
    const fail = (reason) => {
      clearTimeout(timer);
      worker.off('exit', onExit);
      reject(new Error(`worker ${worker.process.pid} ${reason}`));
    };
    const onExit = (code, signal) => {
      // A rolling restart's candidate (given a timeout) is not replaced: the restart stops.
      if (timeout) accountedFor.add(worker);
      fail(`exited with ${signal || code} before listening`);
    };
    const timer =
      timeout &&
      setTimeout(() => {
        accountedFor.add(worker);
        worker.process.kill('SIGKILL');
        fail(`did not listen within ${timeout} ms`);
      }, timeout);
    worker.once('exit', onExit);
    worker.once('listening', (address) => {
      clearTimeout(timer);
      listened.add(worker);
      failedStarts = 0;
      worker.off('exit', onExit);
      resolve({ worker, address });
    });
  });
}

/** Asks a worker to drain (its server closes gracefully) and waits for its exit. */
function retire(worker) {
  return new Promise((resolve) => {
    if (worker.isDead()) return resolve();
    worker.once('exit', () => resolve());
    worker.disconnect();
  });
}

// A worker with an uncaught exception says so before it drains: its replacement starts
// at once, and its exit, later, is not replaced again.
cluster.on('message', (worker, message) => {
  if (!message || message.cmd !== 'worker-crashed' || stopping || accountedFor.has(worker)) return;
  // One being retired by a rolling restart has its successor already.
  if (worker.exitedAfterDisconnect) return;
  // One that crashed before it listened (its listen failed: the port taken, a bad deploy)
  // is a start that failed: replaced after its exit, with the pause that grows after each
  // failure (below), not at once; at once, each replacement crashing the same way started
  // the next, dozens a second, while the crashed ones drained.
  if (!listened.has(worker)) return;
  accountedFor.add(worker);
  console.log(`worker ${worker.process.pid} crashed and is draining, starting a new one`);
  replace();
});

cluster.on('exit', (worker, code, signal) => {
  // Workers the primary retired leave with exitedAfterDisconnect; anything else is a crash.
  if (stopping || worker.exitedAfterDisconnect || accountedFor.has(worker)) return;
  // One of the first workers that never listened: the cluster failed to start, and the
  // primary exits (see the end of this file) rather than retry.
  if (!started && !listened.has(worker)) return;
  console.log(`worker ${worker.process.pid} exited (${signal || code}), starting a new one`);
  // A worker that died before listening (Redis unreachable at boot, a bad deploy) is
  // retried after a pause, longer after each failure in a row, not in a tight loop.
  const pause = listened.has(worker) ? 0 : Math.min(30_000, 1000 * 2 ** failedStarts++);
  setTimeout(replace, pause);
});

function replace() {
  if (stopping) return;
  startWorker().then(
    ({ worker: next }) => console.log(`worker ${next.process.pid} listening (replacement)`),
    (err) => console.error(err.message),
  );
}

async function rollingRestart() {
  if (restarting || !started) {
    // One more pass once this one ends (or once the first workers listen), so the newest code is what runs.
    restartAgain = true;
    return;
  }
  restarting = true;
  console.log('rolling restart: begin');
  try {
    for (const old of Object.values(cluster.workers)) {
      if (stopping) break;
      // One that crashed since the restart began has its replacement already (new code too).
      if (old.isDead() || accountedFor.has(old)) continue;
      // The worker started now is old's replacement: should old crash meanwhile, it is not
      // replaced a second time.
      accountedFor.add(old);
      let worker;
      try {
        ({ worker } = await startWorker({ timeout: startTimeout }));
      } catch (err) {
        // A new worker that fails to start (a bad deploy, Redis unreachable) ends the
        // restart: the workers still running keep serving, and the failure is logged.
        // Old, if it died meanwhile, is replaced after all; if not, its loss is not yet handled.
        if (old.isDead()) replace();
        else accountedFor.delete(old);
        throw err;
      }
      console.log(`worker ${worker.process.pid} listening, retiring ${old.process.pid}`);
      await retire(old);
    }
    console.log('rolling restart: done');
  } catch (err) {
    console.error(`rolling restart: stopped, the running workers keep serving: ${err.message}`);
    restartAgain = false;
  } finally {
    restarting = false;
  }
  if (restartAgain && !stopping) {
    restartAgain = false;
    await rollingRestart();
  }
}

async function shutdown() {
  if (stopping) return;
  stopping = true;
  // Workers drain within their own timeout; one that cannot (stuck starting, say) is
  // not waited for past it.
  const deadline = setTimeout(() => {
    for (const worker of Object.values(cluster.workers)) worker.process.kill('SIGKILL');
    console.error('shutdown: workers still running after the timeout were killed');
    process.exit(1);
  }, shutdownTimeout + 5000);
  deadline.unref();
  await Promise.all(Object.values(cluster.workers).map(retire));
  process.exit(0);
}

process.on('SIGHUP', () => void rollingRestart());
process.on('message', (message) => {
  if (message && message.cmd === 'rolling-restart') void rollingRestart();
});
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());

Promise.all(Array.from({ length: size }, startWorker)).then(
  (workers) => {
    console.log(`cluster of ${workers.length} listening on http://localhost:${workers[0].address.port}`);
    started = true;
    // A SIGHUP while the first workers started (a deploy during the boot): now.
    if (restartAgain && !stopping) {
      restartAgain = false;
      void rollingRestart();
    }
  },
  (err) => {
    // Stopped while starting (SIGTERM before every worker listened): shutdown() exits.
    if (stopping) return;
    console.error(err.message);
    process.exit(1);
  },
);
