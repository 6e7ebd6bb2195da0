'use strict';
// `npm start`: the notes application on webapp. SHOWCASE_FRAMEWORK=express runs the very
// same application on express@4 instead, for comparison.
const path = require('node:path');
const { createApp } = require('./app');

const frameworkName = process.env.SHOWCASE_FRAMEWORK || 'webapp';
if (frameworkName !== 'webapp' && frameworkName !== 'express')
  throw new Error('SHOWCASE_FRAMEWORK must be webapp or express');
const framework = require(frameworkName);

const app = createApp(framework, {
  servedBy: frameworkName === 'express' ? 'express@4' : 'webapp',
  dataDir: process.env.DATA_DIR || path.join(__dirname, 'data'),
  sessionSecret: process.env.SESSION_SECRET,
  redisUrl: process.env.REDIS_URL,
  secureCookies: process.env.SECURE_COOKIES === '1',
  log: process.env.NODE_ENV === 'production' ? 'combined' : 'dev',
});

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST || '127.0.0.1';

// Redis (REDIS_URL) first: without it, every page would fail, so the app does not start.
app.ready().then(serve, (err) => {
  console.error(`notes showcase (${frameworkName}) not started: ${err.message}`);
  process.exit(1);
});

function serve() {
  const server = app.listen(port, host, () => {
    console.log(`notes showcase (${frameworkName}) on http://localhost:${server.address().port}`);
  });

  if (framework.graceful) {
    // webapp: server.close() drains (requests in flight finish, idle connections close), and
    // SIGTERM/SIGINT close the server, close the store and Redis, then exit with code 0.
    framework.graceful(server, { timeout: 10_000, onShutdown: () => app.close() });
  } else {
    // express@4 has no drain of its own: stop accepting, finish what is in flight, close up.
    for (const signal of ['SIGTERM', 'SIGINT']) {
      process.once(signal, () => {
        server.close(() => Promise.resolve(app.close()).finally(() => process.exit(0)));
        server.closeIdleConnections();
      });
    }
  }
}
