'use strict';
// express-session with a memory store for one process, or Redis (connect-redis) when
// REDIS_URL is set, so sessions survive restarts and are shared by every instance.
//
// A visitor who is not signed in gets a session only when a page needs one (a form's
// CSRF secret, a flash message), and it lasts a day; a signed-in one lasts a week. Every
// visitor who opened the login form and left is a session in the store: with a week
// each, and express-session's own memory store (which drops an expired session only
// when its cookie comes back), a loop of GET /login grew the process without bound.
//
// Nothing waits for Redis. The app does not start without it: `ready()` rejects when
// Redis cannot be reached within `startWithin` ms. While it is away, every request that
// goes through the sessions is answered at once with a 503 (the client queues no command
// while disconnected), and a Redis that stops answering costs a request at most
// `answerWithin` ms. The client reconnects by itself, and sessions work again as soon
// as Redis is back.
const session = require('express-session');
const MemoryStore = require('memorystore')(session);
const { randomBytes } = require('node:crypto');

const cookieName = 'showcase.sid';
const day = 24 * 3600 * 1000;
const signedInMaxAge = 7 * day;
const visitorMaxAge = day;
// The memory store's bounds: expired sessions go every ten minutes, and past this many
// the least recently used go first (about 100 MB of small sessions at most).
const memoryPrunedEvery = 10 * 60 * 1000;
const memoryMaxSessions = 200_000;
const startWithin = 3000;
const answerWithin = 1000;

/** The error of a request that needs a session while the store cannot be reached. */
function sessionsUnavailable(cause) {
  const message = 'Sessions are unavailable for a moment: the session store cannot be reached. Try again shortly.';
  const err = new Error(message);
  // `type` names the error in the API's JSON, as body-parser's errors are named.
  return Object.assign(err, { status: 503, expose: true, type: 'session.unavailable', cause });
}

/** What went wrong with a connection. A refused dual-stack connect is an AggregateError without a message. */
function describe(err) {
  if (!err) return 'no answer';
  if (err.message) return err.message;
  if (Array.isArray(err.errors)) return err.errors.map(describe).join('; ');
  return String(err.code || err);
}

/** The URL without its password, for messages. */
function redacted(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.href;
  } catch {
    return '(an invalid URL)';
  }
}

/**
 * The error of a REDIS_URL the client refuses, without its password: Node's TypeError for
 * an unparsable URL keeps the URL in `input`, which an uncaught stack trace printed, and
 * one of the client's reasons quotes it (redacted here).
 */
function invalidRedisUrl(url, err) {
  const where = URL.canParse(url) ? ` ${redacted(url)}` : '';
  const reason = err.message.split(url).join(redacted(url));
  return new Error(`REDIS_URL${where} is not a valid Redis URL: ${reason}`);
}

/** Sessions that cannot start: `ready()` rejects with `err`, and until then every request gets a 503. */
function notStarted(err) {
  const failed = Promise.reject(err);
  // Whoever starts the app asks ready(); an app that is never started must not crash on it.
  failed.catch(() => {});
  return { store: undefined, available: () => false, ready: () => failed, close: () => Promise.resolve() };
}

function redisSessions(url) {
  const { createClient } = require('redis');
  const { RedisStore } = require('connect-redis');

  /** Calls back with the store's answer, or with a 503 when it fails or takes longer than answerWithin. */
  function answer(operation, callback) {
    let timer;
    const late = new Promise((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${answerWithin} ms`)), answerWithin);
    });
    Promise.race([operation, late])
      .finally(() => clearTimeout(timer))
      .then(
        (value) => callback(null, value),
        (err) => callback(sessionsUnavailable(err)),
      );
  }

  // express-session calls these four; a failure is the store's outage, not the app's bug.
  class BoundedRedisStore extends RedisStore {
    get(sid, callback) {
      answer(super.get(sid), callback);
    }
    set(sid, data, callback) {
      answer(super.set(sid, data), callback);
    }
    touch(sid, data, callback) {
      answer(super.touch(sid, data), callback);
    }
    destroy(sid, callback) {
      answer(super.destroy(sid), callback);
    }
  }

  let client;
  try {
    client = createClient({
      url,
      // Disconnected, a command fails at once (ClientOfflineError) instead of waiting in a
      // queue until Redis returns or its timeout passes: that wait held every request 5 s.
      disableOfflineQueue: true,
      // A Redis that takes connections but never completes them is retried every second.
      socket: { connectTimeout: 1000 },
    });
  } catch (err) {
    // The URL is parsed here, while the app is made: its mistake is told as ready()'s,
    // the one line "not started: ..." and exit code 1 of server.js.
    return notStarted(invalidRedisUrl(url, err));
  }
  let connectedOnce = false;
  let lastError;
  let away = false;
  client.on('error', (err) => {
    lastError = err;
    // Each reconnection attempt fails with its own error: one line for the outage is enough.
    if (connectedOnce && !away) {
      away = true;
      console.error(`redis: connection lost (${describe(err)}); requests that need a session get 503 until it is back`);
    }
  });
  client.on('ready', () => {
    if (away) console.error('redis: connected again');
    connectedOnce = true;
    away = false;
  });

  const connected = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      const within = `within ${startWithin / 1000} s`;
      reject(new Error(`cannot reach Redis at ${redacted(url)} ${within} (${describe(lastError)})`));
      client.destroy();
    }, startWithin);
    client.connect().then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (err) => {
        clearTimeout(timer);
        reject(new Error(`cannot reach Redis at ${redacted(url)}: ${describe(err)}`));
      },
    );
  });
  // Whoever starts the app asks ready(); an app that is never started must not crash on it.
  connected.catch(() => {});

  return {
    store: new BoundedRedisStore({ client, prefix: 'showcase:sess:' }),
    available: () => client.isReady,
    ready: () => connected,
    close: () => (client.isOpen ? client.quit().catch(() => {}) : Promise.resolve()),
  };
}

/** How long the store keeps a session: until its cookie expires, as connect-redis keeps it. */
function untilCookieExpires(options, sess) {
  const expires = sess && sess.cookie && sess.cookie.expires;
  // memorystore reads the cookie's `maxAge`, which a session written as plain data (the
  // former session of lib/auth.js, kept a minute) does not have: it was kept for a day.
  return expires ? Math.max(0, new Date(expires).getTime() - Date.now()) : visitorMaxAge;
}

function memorySessions() {
  const store = new MemoryStore({ checkPeriod: memoryPrunedEvery, max: memoryMaxSessions, ttl: untilCookieExpires });
  return { store, available: () => true, ready: () => Promise.resolve(), close: () => store.stopInterval() };
}

/**
 * `{ middleware, ready, close }` for the session configuration the environment asks for.
 * `ready()` resolves once the store can be used (at once without Redis).
 */
function sessions({ secret, redisUrl, secureCookies }) {
  const backing = redisUrl ? redisSessions(redisUrl) : memorySessions();
  if (!secret) {
    // A per-process secret keeps the demo to two commands; it logs everyone out on restart.
    console.warn('SESSION_SECRET is not set: using a random secret for this process');
  }
  const withSession = session({
    name: cookieName,
    secret: secret || randomBytes(32).toString('hex'),
    store: backing.store,
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: 'lax', secure: secureCookies, maxAge: signedInMaxAge },
    // Called for each session the middleware starts (not for one a login starts later in
    // the request, with the week of the cookie above): it is a visitor's.
    genid(req) {
      req.sessionStartedForVisitor = true;
      return randomBytes(24).toString('base64url');
    },
  });
  function sessionMiddleware(req, res, next) {
    // Refused before the page is made: a page that starts a session (a form's CSRF
    // secret) would otherwise be sent, and its session lost when saving it fails.
    if (!backing.available()) return next(sessionsUnavailable());
    withSession(req, res, (err) => {
      // Stored (and sent) only if the request puts something in it; then for a day.
      if (!err && req.sessionStartedForVisitor) asVisitorSession(req);
      next(err);
    });
  }
  return { middleware: sessionMiddleware, ready: backing.ready, close: backing.close };
}

/** Makes the request's session a visitor's, kept a day: one a logout started, too. */
function asVisitorSession(req) {
  req.session.cookie.maxAge = visitorMaxAge;
}

/**
 * Whether the request came with a session cookie, even one whose session is gone (logged
 * out by another request, expired). A browser sends none with a POST from another site
 * (the cookie is SameSite=Lax): an answer that starts a session for such a request would
 * replace the visitor's own session cookie, logging them out from that site.
 */
function hasSessionCookie(req) {
  return (req.headers.cookie || '').split(';').some((pair) => pair.trim().startsWith(`${cookieName}=`));
}

module.exports = { sessions, hasSessionCookie, asVisitorSession };
