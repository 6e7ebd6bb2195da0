'use strict';
// express-session with the memory store for one process, or Redis (connect-redis) when
// REDIS_URL is set, so sessions survive restarts and are shared by every instance.
const session = require('express-session');
const { randomBytes } = require('node:crypto');

function redisStore(url) {
  const { createClient } = require('redis');
  const { RedisStore } = require('connect-redis');
  const client = createClient({ url });
  client.on('error', (err) => console.error('redis:', err.message));
  // Commands wait in the client's queue until the connection is up.
  client.connect().catch((err) => console.error('redis: cannot connect:', err.message));
  return { store: new RedisStore({ client, prefix: 'showcase:sess:' }), close: () => client.quit().catch(() => {}) };
}

/** `{ middleware, close }` for the session configuration the environment asks for. */
function sessions({ secret, redisUrl, secureCookies }) {
  const backing = redisUrl ? redisStore(redisUrl) : { store: undefined, close() {} };
  if (!secret) {
    // A per-process secret keeps the demo to two commands; it logs everyone out on restart.
    console.warn('SESSION_SECRET is not set: using a random secret for this process');
  }
  const middleware = session({
    name: 'showcase.sid',
    secret: secret || randomBytes(32).toString('hex'),
    store: backing.store,
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: 'lax', secure: secureCookies, maxAge: 7 * 24 * 3600 * 1000 },
  });
  return { middleware, close: backing.close };
}

module.exports = { sessions };
