/**
 * session (MemoryStore) and cookieSession against Connect 2.30 (express-session 1.11,
 * Connect's cookieSession) over generated requests: session cookies signed right,
 * tampered, truncated, duplicated, unsigned, signed with another or an older secret,
 * quoted, percent-encoded, among foreign cookies; cookie options (maxAge, secure with
 * and without `proxy` and X-Forwarded-Proto, path, domain, httpOnly), `rolling`,
 * `resave`, `saveUninitialized`, `unset`; routes that change, read, regenerate,
 * destroy, save, reload or drop the session, inside and outside the cookie's path.
 *
 * Session ids come from a `genid` that counts per request, the same on both sides, so
 * signed ids are compared as they are; only dates that follow the clock are masked.
 * Requests go one at a time: they share the store.
 */
import { describe } from 'node:test';
import { sign } from '../../src/http/cookie-signature';
import { cookieParser } from '../../src/middleware/cookie-parser';
import { cookieSession } from '../../src/middleware/cookie-session';
import { session } from '../../src/middleware/session';
import type { Handler, RequestSpec } from './support';
import { assertSameGenerated, chance, maskHeader, pick, prng, type Answer, type Random } from './generated-support';
import { itWithLiveOracle } from '../support/oracle-recording';

const connect = require('connect');

const LIVE = 'generated session cookies';
const SECRET = 'keyboard cat';
const OLD_SECRET = 'old secret';

/** Dates in Set-Cookie and in bodies follow the clock of each side's run; so do the lengths of what shows them. */
function maskDates(answer: Answer): Answer {
  const masked = maskHeader(answer, 'set-cookie', /Expires=[^;]+/, 'Expires=<date>');
  return {
    ...masked,
    headers: { ...masked.headers, ...('content-length' in masked.headers ? { 'content-length': '-' } : {}) },
    // originalMaxAge is read back from the expiry set from maxAge: a millisecond may have passed.
    body: masked.body
      .replace(/"expires":"[^"]+"/g, '"expires":"<date>"')
      .replace(/"originalMaxAge":\d+/g, '"originalMaxAge":"<ms>"'),
  };
}

const FAR_FUTURE = '2999-01-01T00:00:00.000Z';
const PAST = '2000-01-01T00:00:00.000Z';

/**
 * A maxAge no run outlasts: saving a session sets its expiry to the clock plus its
 * maxAge, and with one second a slow run found `known1` expired in one store and not
 * in the other (a new session on Connect, the stored one on webapp).
 */
const AN_HOUR = 3_600_000;

/** The sessions both stores hold before the first request. */
const STORED: Record<string, object> = {
  known0: { cookie: { originalMaxAge: null, expires: null, httpOnly: true, path: '/' }, n: 3 },
  known1: { cookie: { originalMaxAge: AN_HOUR, expires: FAR_FUTURE, httpOnly: true, path: '/' }, n: 1, name: 'x' },
  known2: { cookie: { originalMaxAge: null, expires: null, httpOnly: false, path: '/app', secure: true }, list: [1] },
  expired: { cookie: { originalMaxAge: 1000, expires: PAST, httpOnly: true, path: '/' }, n: 9 },
};
const IDS = [...Object.keys(STORED), 'unknown', '', 'known0.', 'kn.own0', 'known0 ', '\xe9'];

function signedId(random: Random, id: string, name: string): string {
  const secret = pick(random, [SECRET, SECRET, SECRET, OLD_SECRET, 'wrong', null]);
  let value = secret === null ? pick(random, ['s:' + id, id]) : 's:' + sign(id, secret);
  const roll = random();
  if (roll < 0.08) value = value.slice(0, -1);
  else if (roll < 0.12) value = value + '=';
  else if (roll < 0.15) value = value.slice(0, 10);
  else if (roll < 0.18) value = value.replace('s:', 'S:');
  const form = random();
  if (form < 0.5) value = encodeURIComponent(value);
  else if (form < 0.55) value = '"' + value + '"';
  else if (form < 0.58) value = '"' + value;
  return name + '=' + value;
}

function sessionCookie(random: Random, names: readonly string[]): string | undefined {
  if (chance(random, 0.1)) return undefined;
  const pairs: string[] = [];
  const count = 1 + Math.floor(random() * 3);
  for (let i = 0; i < count; i++) {
    const roll = random();
    if (roll < 0.65) pairs.push(signedId(random, pick(random, IDS), pick(random, names)));
    else if (roll < 0.75) pairs.push(pick(random, names) + '=' + pick(random, ['', '""', 's:', 's%3A', 'j:{}', '%zz']));
    else pairs.push(pick(random, ['a=1', 'foo=bar', 'x=s%3Aknown0', 'connect.sid2=1', '=x', 'novalue']));
  }
  return pairs.join(pick(random, ['; ', ';', ';  ']));
}

interface Case {
  path: string;
  cookie?: string;
  proto?: string;
}

const SESSION_PATHS = [
  '/inc',
  '/inc',
  '/peek',
  '/regenerate',
  '/destroy',
  '/null',
  '/save',
  '/reload',
  '/app/inc',
  '/app/peek',
  '/application',
  '/APP/inc',
  '/other',
];

function cases(seed: number, count: number, names: readonly string[], paths: readonly string[]): Case[] {
  const random = prng(seed);
  return Array.from({ length: count }, () => {
    const cookie = sessionCookie(random, names);
    const proto = chance(random, 0.3)
      ? pick(random, ['https', 'HTTPS', 'http', 'https, http', 'http,https', ' https'])
      : undefined;
    const query = chance(random, 0.1) ? '?a=1' : '';
    return {
      path: pick(random, paths) + query,
      ...(cookie === undefined ? {} : { cookie }),
      ...(proto === undefined ? {} : { proto }),
    };
  });
}

const request = (item: Case, index: number): RequestSpec => ({
  path: item.path,
  headers: {
    'x-case': String(index),
    ...(item.cookie === undefined ? {} : { cookie: item.cookie }),
    ...(item.proto === undefined ? {} : { 'x-forwarded-proto': item.proto }),
  },
});

/** Session ids counted per request: `g<case>-<n>`, the same on both sides. */
function genid(req: any): string {
  req.generatedIds = (req.generatedIds || 0) + 1;
  return `g${req.headers['x-case']}-${req.generatedIds}`;
}

function answer(req: any, res: any): void {
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ id: req.sessionID ?? null, session: req.session ?? null }));
}

/** What the routes do with `req.session`. */
const sessionApp: Handler = (req, res, next) => {
  const action = req.url.split('?')[0].split('/').pop();
  if (!req.session) return answer(req, res);
  const done = (err?: unknown) => (err ? next(err) : answer(req, res));
  switch (action) {
    case 'inc':
      req.session.n = (req.session.n || 0) + 1;
      return answer(req, res);
    case 'regenerate':
      return req.session.regenerate((err: unknown) => {
        if (!err) req.session.n = 100;
        done(err);
      });
    case 'destroy':
      return req.session.destroy(done);
    case 'null':
      req.session = null;
      return answer(req, res);
    case 'save':
      req.session.saved = true;
      return req.session.save(done);
    case 'reload':
      return req.session.reload(done);
    default:
      return answer(req, res);
  }
};

const reportError: Handler = (err: any, _req: any, res: any, _next: any) => {
  res.statusCode = err.status || 500;
  res.end(JSON.stringify({ error: err.message }));
};

async function fillStore(store: any): Promise<void> {
  for (const [id, data] of Object.entries(STORED))
    await new Promise<void>((resolve) => store.set(id, JSON.parse(JSON.stringify(data)), () => resolve()));
}

/**
 * Accepted: with cookieParser before it, an unsigned `j:{...}` session cookie reaches
 * express-session 1.11 as the object cookieParser decoded, which it called `substr`
 * on: a TypeError, a 500 for any request carrying such a cookie. webapp reads the id
 * from the Cookie header and finds none: a new session, as for any unsigned cookie
 * (which `/reload` cannot load from the store: express-session's own 500).
 */
function sessionCrash(want: Answer, got: Answer): boolean {
  if (want.status !== 500 || !want.body.includes('raw.substr is not a function')) return false;
  return got.status === 200 || got.body === '{"error":"failed to load session"}';
}

interface SessionSetup {
  name: string;
  options: Record<string, unknown>;
  /** cookieParser's secret, when one runs before the session. */
  parser?: string;
}

const SESSION_SETUPS: SessionSetup[] = [
  { name: 'defaults', options: { secret: SECRET } },
  {
    name: 'two secrets, rolling, maxAge, no resave, no saveUninitialized',
    options: {
      secret: [SECRET, OLD_SECRET],
      rolling: true,
      resave: false,
      saveUninitialized: false,
      cookie: { maxAge: 60000 },
    },
  },
  {
    name: 'path /app, secure, proxy trusted',
    options: { secret: SECRET, proxy: true, cookie: { path: '/app', secure: true } },
  },
  {
    name: 'secure, proxy not trusted, key, unset destroy',
    options: { secret: SECRET, key: 'sess', proxy: false, unset: 'destroy', cookie: { secure: true, httpOnly: false } },
  },
  {
    name: "cookieParser's secret, domain, saveUninitialized false",
    options: { saveUninitialized: false, resave: true, cookie: { domain: 'example.test', maxAge: 5000 } },
    parser: SECRET,
  },
];

describe('session: generated cookies against Connect 2.30', () => {
  for (const [index, setup] of SESSION_SETUPS.entries()) {
    itWithLiveOracle(setup.name, LIVE, async () => {
      const names = setup.options.key ? ['sess', 'connect.sid', 'Sess'] : ['connect.sid', 'connect.sid', 'Connect.sid'];
      const list = cases(0x5e55 + index, 600, names, SESSION_PATHS);
      const stores = { connect: new connect.session.MemoryStore(), webapp: new session.MemoryStore() };
      await fillStore(stores.connect);
      await fillStore(stores.webapp);
      await assertSameGenerated(
        (side) => {
          const make = side === 'connect' ? connect.session : session;
          const parser = side === 'connect' ? connect.cookieParser : cookieParser;
          return [
            ...(setup.parser ? [parser(setup.parser)] : []),
            make({ ...setup.options, genid, store: stores[side] }),
            sessionApp,
            reportError,
          ];
        },
        list,
        { request, normalize: maskDates, parallel: 1, accepted: sessionCrash },
      );
    });
  }
});

/** Session data as JSON, signed or not, in a cookie. */
function cookieSessionValue(random: Random, secret: string, unsignedJson: boolean): string {
  const data = pick(random, ['{"n":1}', '{"n":2,"cookie":{"path":"/x"}}', '{}', '[1,2]', '{"__proto__":{"x":1}}', '{']);
  const roll = random();
  let value: string;
  if (roll < 0.55) value = 's:' + sign('j:' + data, pick(random, [secret, secret, 'wrong']));
  else if (roll < 0.65) value = 's:' + sign(pick(random, ['plain', '', 'j:']), secret);
  else if (roll < 0.75 && unsignedJson) value = 'j:' + data;
  else value = pick(random, ['garbage', '', 's:', 's:j:{}.sig', 'J:{}']);
  if (chance(random, 0.15)) value = value.slice(0, -1 - Math.floor(random() * 5));
  return chance(random, 0.5) ? encodeURIComponent(value) : value;
}

interface CookieSessionSetup {
  name: string;
  options: Record<string, unknown>;
  parser?: string;
  secret: string;
}

/**
 * Excluded:
 * - with `secret` given to cookieSession, an unsigned `j:{...}` cookie: Connect 2.30
 *   took it as the session (a forged session, README's table of security fixes); the
 *   cookieParser without a secret before it also turned it into an object, on which
 *   Connect's cookieSession threw. Not generated where cookieSession has the secret.
 * - a signed value that is not JSON (or JSON but no object) read through cookieParser's
 *   secret: Connect 2.30 made `req.session` that string, number or boolean itself, which
 *   any strict-mode handler that sets a field on it throws on (and the value is signed
 *   back, so every later request of the client fails the same way); webapp starts a
 *   fresh object, a decision cookie-session.test.ts records. Accepted below.
 */
function primitiveSession(want: Answer, got: Answer): boolean {
  const session = (answer: Answer) => (answer.status === 200 ? JSON.parse(answer.body).session : undefined);
  const theirs = session(want);
  const ours = session(got);
  return theirs !== null && typeof theirs !== 'object' && ours !== null && typeof ours === 'object';
}

const COOKIE_SESSION_SETUPS: CookieSessionSetup[] = [
  { name: 'own secret', options: { key: 'sess', secret: 'sekrit' }, secret: 'sekrit' },
  { name: "cookieParser's secret", options: { key: 'sess' }, parser: 'sekrit', secret: 'sekrit' },
  {
    name: 'path, maxAge, secure behind a trusted proxy',
    options: { key: 'sess', secret: 'sekrit', proxy: true, cookie: { path: '/app', maxAge: 1000, secure: true } },
    secret: 'sekrit',
  },
  {
    name: 'secure without proxy, domain, not httpOnly',
    options: { key: 'sess', secret: 'sekrit', cookie: { secure: true, domain: 'example.test', httpOnly: false } },
    secret: 'sekrit',
  },
];

const cookieSessionApp: Handler = (req, res) => {
  const action = req.url.split('?')[0].split('/').pop();
  if (action === 'null') req.session = null;
  else if (action === 'inc' && req.session) req.session.n = (req.session.n || 0) + 1;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ session: req.session ?? null }));
};

describe('cookieSession: generated cookies against Connect 2.30', () => {
  for (const [index, setup] of COOKIE_SESSION_SETUPS.entries()) {
    itWithLiveOracle(setup.name, LIVE, async () => {
      const random = prng(0xc5e5 + index);
      const paths = ['/inc', '/inc', '/peek', '/null', '/app/inc', '/app/peek', '/application', '/other'];
      const list: Case[] = Array.from({ length: 700 }, () => {
        const pairs: string[] = [];
        const count = Math.floor(random() * 3);
        for (let i = 0; i < count; i++) {
          const name = pick(random, ['sess', 'sess', 'Sess', 'other']);
          // Unsigned JSON only where cookieSession has no secret of its own (see above).
          pairs.push(name + '=' + cookieSessionValue(random, setup.secret, !setup.options.secret));
        }
        const proto = chance(random, 0.3)
          ? pick(random, ['https', 'HTTPS', 'http', 'https , http', 'http, https'])
          : undefined;
        return {
          path: pick(random, paths),
          ...(pairs.length ? { cookie: pairs.join('; ') } : {}),
          ...(proto === undefined ? {} : { proto }),
        };
      });
      await assertSameGenerated(
        (side) => {
          const parser = side === 'connect' ? connect.cookieParser : cookieParser;
          const make = side === 'connect' ? connect.cookieSession : cookieSession;
          return [parser(setup.parser), make(setup.options), cookieSessionApp, reportError];
        },
        list,
        { request, normalize: maskDates, ...(setup.parser ? { accepted: primitiveSession } : {}) },
      );
    });
  }
});
