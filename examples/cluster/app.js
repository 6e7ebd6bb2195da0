'use strict';
// The application each worker runs: an ordinary Express 4 app on webapp. Its
// state lives in Redis (sessions, rate-limit counters) when REDIS_URL is set,
// so any worker, on any machine, can answer any request.
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

  // Errors (a Redis outage included) are answered, never a crash.
  app.use((err, req, res, next) => {
    console.error(`worker ${process.pid}: ${req.method} ${req.originalUrl}: ${err.message}`);
    if (res.headersSent) return next(err);
    res.status(err.status || 503).json({ error: 'temporarily unavailable' });
  });
  return app;
}

module.exports = { createApp };
