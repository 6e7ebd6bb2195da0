'use strict';
// One worker: connects to Redis (when REDIS_URL is set), then listens. Its
// server is wrapped in webapp.graceful(), so when the primary disconnects it
// (rolling restart) or it gets SIGTERM, it stops taking connections, finishes
// what it holds, and exits.
const { once } = require('node:events');
const webapp = require('webapp');
const { createApp } = require('./app');

// Until the server listens, a stop (the primary's disconnect, or SIGTERM to the process
// group) has nothing to drain: leave at once. Without this, a worker waiting for Redis
// (the client retries forever) outlived its primary's shutdown.
const leaveBeforeListening = () => process.exit(0);
process.once('disconnect', leaveBeforeListening);
process.once('SIGTERM', leaveBeforeListening);
process.once('SIGINT', leaveBeforeListening);
// SIGHUP asks the primary for a rolling restart. Sent to the whole process group (dumb-init
// or `tini -g` forward it so, as does `kill -HUP -PGID`), it reached the workers too, whose
// default for it is to end at once: every request in flight was cut. The primary restarts them.
process.on('SIGHUP', () => {});

async function main() {
  let redis;
  if (process.env.REDIS_URL) {
    const { createClient } = require('redis');
    // disableOfflineQueue: while Redis is down, requests fail fast through
    // next(err) instead of waiting; the client reconnects on its own.
    redis = createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true });
    redis.on('error', (err) => console.error(`worker ${process.pid}: redis: ${err.message}`));
    await redis.connect();
  }
  const app = createApp({ redis, rateLimit: Number(process.env.RATE_LIMIT) || 100 });
  // The primary passes on the port the first worker got when PORT is 0 (cluster.js).
  const server = app.listen(Number(process.env.PORT || 3000), process.env.HOST);
  // A listen that fails (the port taken by another program) is a start that failed:
  // main's catch below exits, and the primary pauses before the next try. Unheard, the
  // error was an uncaught exception, and the worker waited for ever to drain a server
  // that never listened.
  await once(server, 'listening');
  for (const event of ['disconnect', 'SIGTERM', 'SIGINT']) process.off(event, leaveBeforeListening);
  const closeRedis = () => Promise.resolve(redis?.close()).catch(() => {});
  // SIGTERM or SIGINT: stop taking connections, finish the requests in flight,
  // close Redis, exit with code 0 (webapp.graceful).
  webapp.graceful(server, { timeout: Number(process.env.SHUTDOWN_TIMEOUT) || 10_000, onShutdown: closeRedis });
  // Resolves once the server has closed: closing it now unless a drain is
  // already under way (a signal's, or the primary's worker.disconnect()).
  let serverClosed = false;
  server.on('close', () => (serverClosed = true));
  const drained = () =>
    new Promise((resolve) => {
      if (serverClosed) return resolve();
      server.once('close', resolve);
      if (server.listening) server.close();
    });
  // Rolling restart: the primary's worker.disconnect() drains the server the
  // same way, then closes this worker's IPC channel; once it has, leave. The
  // channel also closes while a drain is still running (SIGTERM to the whole
  // process group, as systemd and Ctrl-C send it: the drain had already closed
  // the listener, so the disconnect found nothing to wait for): wait for it.
  process.on('disconnect', () =>
    drained()
      .then(closeRedis)
      .finally(() => process.exit()),
  );
  // A bug that escapes every handler: stop taking work, finish the rest, exit
  // non-zero so the primary starts a fresh worker.
  process.on('uncaughtException', (err) => {
    console.error(`worker ${process.pid}: uncaught exception, draining: ${err.stack}`);
    // Tell the primary now, not at the exit: it starts the replacement while this
    // worker drains, which can last up to SHUTDOWN_TIMEOUT, so the cluster is not a
    // worker short for that long. (A cluster of one still refuses connections from this
    // server's close until the replacement listens: docs/production.md.)
    if (process.connected) process.send({ cmd: 'worker-crashed' });
    drained()
      .then(closeRedis)
      .finally(() =>
        // As webapp.graceful does on a signal: stay connected a moment, so a
        // connection the primary handed over before it learnt that this server
        // closed is refused (and served by another worker), not left unanswered.
        setTimeout(() => process.exit(1), 250),
      );
  });
}

main().catch((err) => {
  console.error(`worker ${process.pid}: could not start: ${err.message}`);
  process.exit(1);
});
