'use strict';
// node:cluster in front of ./worker.js: one worker per core (WORKERS to
// change), a crashed worker is replaced, and SIGHUP (or the IPC message
// { cmd: 'rolling-restart' }) replaces the workers one at a time, each only
// once its successor is listening, so the port never goes unserved.
//
//   WORKERS=4 PORT=3000 REDIS_URL=redis://127.0.0.1:6379 node examples/cluster/cluster.js
const cluster = require('node:cluster');
const os = require('node:os');
const path = require('node:path');

const size = Number(process.env.WORKERS) || os.availableParallelism();
let stopping = false;
let restarting = false;
let restartAgain = false;
const listened = new WeakSet();

cluster.setupPrimary({ exec: path.join(__dirname, 'worker.js') });

/** Forks a worker and resolves once it listens (rejects if it dies first). */
function startWorker() {
  const worker = cluster.fork();
  return new Promise((resolve, reject) => {
    const onExit = (code) => reject(new Error(`worker ${worker.process.pid} exited with ${code} before listening`));
    worker.once('exit', onExit);
    worker.once('listening', (address) => {
      listened.add(worker);
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

cluster.on('exit', (worker, code, signal) => {
  // Workers the primary retired leave with exitedAfterDisconnect; anything else is a crash.
  if (stopping || worker.exitedAfterDisconnect) return;
  console.log(`worker ${worker.process.pid} exited (${signal || code}), starting a new one`);
  // A worker that died before listening (Redis unreachable at boot...) is retried after a pause, not in a tight loop.
  setTimeout(replace, listened.has(worker) ? 0 : 1000);
});

function replace() {
  if (stopping) return;
  startWorker().then(
    ({ worker: next }) => console.log(`worker ${next.process.pid} listening (replacement)`),
    (err) => console.error(err.message),
  );
}

async function rollingRestart() {
  if (restarting) {
    restartAgain = true; // one more pass once this one ends, so the newest code is what runs
    return;
  }
  restarting = true;
  console.log('rolling restart: begin');
  for (const old of Object.values(cluster.workers)) {
    if (stopping) break;
    const { worker } = await startWorker();
    console.log(`worker ${worker.process.pid} listening, retiring ${old.process.pid}`);
    await retire(old);
  }
  restarting = false;
  console.log('rolling restart: done');
  if (restartAgain && !stopping) {
    restartAgain = false;
    await rollingRestart();
  }
}

async function shutdown() {
  if (stopping) return;
  stopping = true;
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
  (started) => console.log(`cluster of ${started.length} listening on http://localhost:${started[0].address.port}`),
  (err) => {
    console.error(err.message);
    process.exit(1);
  },
);
