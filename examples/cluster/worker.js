'use strict';
// One worker: connects to Redis (when REDIS_URL is set), then listens. Its
// server is wrapped in webapp.graceful(), so when the primary disconnects it
// (rolling restart) or it gets SIGTERM, it stops taking connections, finishes
// what it holds, and exits.
const webapp = require('webapp');
const { createApp } = require('./app');

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
  const server = app.listen(Number(process.env.PORT ?? 3000), process.env.HOST);
  webapp.graceful(server, { timeout: Number(process.env.SHUTDOWN_TIMEOUT) || 10_000 });
  // However the drain began (the primary's disconnect(), SIGTERM, a crash
  // below), once the server has closed: let go of Redis and exit.
  server.on('close', () => {
    Promise.resolve(redis?.close())
      .catch(() => {})
      // A short linger before exiting: a connection the primary handed over just as
      // this server closed is still in the IPC pipe, and only a live worker can
      // refuse it (the primary then gives it to another worker); one exiting at once
      // can leave it unanswered in the primary.
      .finally(() => setTimeout(() => process.exit(), 100));
  });
  // A bug that escapes every handler: stop taking work, finish the rest, exit
  // non-zero so the primary starts a fresh worker.
  process.on('uncaughtException', (err) => {
    console.error(`worker ${process.pid}: uncaught exception, draining: ${err.stack}`);
    process.exitCode = 1;
    server.close(() => process.exit(1));
  });
}

main().catch((err) => {
  console.error(`worker ${process.pid}: could not start: ${err.message}`);
  process.exit(1);
});
