'use strict';
// The application each worker runs: an ordinary Express 4 app on webapp. Its
// state lives in Redis (sessions, rate-limit counters) when REDIS_URL is set,
// so any worker, on any machine, can answer any request.
const { STATUS_CODES } = require('node:http');
const webapp = require('webapp');

/**
 * @param {{ redis?: import('redis').RedisClientType, rateLimit?: number }} options
 */
function createApp({ redis, rateLimit = 100 } = {}) {
  const app = webapp();
  // Behind a load balancer on the same host; see docs/production.md for other setups.
  app.set('trust proxy', 'loopback');
  app.use((req, res, next) => {
    res.set('X-Worker', String(process.pid));
    next();
  });

  app.get('/', (req, res) => res.json({ worker: process.pid }));
  // A request that stays in flight for a moment (10 ms, or ?ms= up to 5 s), so
  // restarts and shutdowns happen around live requests.
  app.get('/work', (req, res) => {
    const ms = Math.min(Number(req.query.ms) || 10, 5000);
    setTimeout(() => res.json({ worker: process.pid, payload: 'x'.repeat(4096) }), ms);
  });

  if (redis) {
    const session = require('express-session');
    const { RedisStore } = require('connect-redis');
    const { rateLimit: limiter } = require('express-rate-limit');
    const { RedisStore: RateLimitStore } = require('rate-limit-redis');

    app.use(
      '/limited',
      limiter({
        windowMs: 60_000,
        limit: rateLimit,
        standardHeaders: 'draft-8',
        legacyHeaders: false,
        // One count per client across every worker: the counter is in Redis.
        store: new RateLimitStore({ sendCommand: (...args) => redis.sendCommand(args) }),
      }),
    );
    app.get('/limited', (req, res) => res.json({ worker: process.pid }));

    app.use(
      '/session',
      session({
        store: new RedisStore({ client: redis }),
        secret: process.env.SESSION_SECRET || 'change me: set SESSION_SECRET',
        resave: false,
        saveUninitialized: false,
      }),
    );
    app.post('/session', webapp.json(), (req, res) => {
      req.session.value = req.body.value;
      res.json({ worker: process.pid, value: req.session.value });
    });
    app.get('/session', (req, res) => res.json({ worker: process.pid, value: req.session.value ?? null }));
  }

  // Errors are answered, never a crash: the client's own (a body that is no JSON: 400,
  // 413, 415) with their status, a Redis outage with 503, anything else (a bug) with 500.
  app.use((err, req, res, next) => {
    const status = err.status >= 400 && err.status < 500 ? err.status : redis && !redis.isReady ? 503 : 500;
    // The message quoted (JSON): a parse error's holds a piece of the body, whose line
    // breaks would split the log line.
    console.error(`worker ${process.pid}: ${req.method} ${req.originalUrl}: ${status} ${JSON.stringify(err.message)}`);
    if (res.headersSent) return next(err);
    const error = status === 503 ? 'temporarily unavailable' : STATUS_CODES[status];
    res.status(status).json({ error });
  });
  return app;
}

module.exports = { createApp };
