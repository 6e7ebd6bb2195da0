/**
 * `session(options)`: server-side sessions as Connect 2.30's `connect.session`
 * (express-session 1.11 with `resave` and `saveUninitialized` on by default).
 * The browser holds only a signed id cookie (`s:<id>.<signature>`, name
 * `connect.sid`); the data lives in `options.store` (a MemoryStore unless
 * given). The session is written back when the response ends, and the
 * response finishes only once the store has answered.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { inCallerContext } from '../../http/async-context';
import { connectionOf } from '../../http/connection';
import { parseConnectCookies } from '../cookie-header';
import { sign, unsign } from '../../http/cookie-signature';
import { deprecate } from '../../http/deprecate';
import { named } from '../../named';
import { parseOriginalUrl } from '../../http/parse-url';
import { onHeaders } from '../on-headers';
import { appendSetCookie } from '../set-cookie';
import type { Middleware, MiddlewareRequest, NextFunction } from '../types';
import { ChangeTracker } from './change-tracker';
import { Cookie, type CookieOptions } from './cookie';
import { holdEndUntil, type StoreWork } from './hold-end';
import { MemoryStore } from './memory-store';
import { Session } from './session';
import { Store, type GetCallback } from './store';

export interface SessionOptions {
  /** Cookie name (default `connect.sid`); `key` is the 3.x spelling. */
  name?: string;
  key?: string;
  secret?: string | string[];
  store?: Store;
  cookie?: CookieOptions;
  genid?: (req: IncomingMessage) => string;
  rolling?: boolean;
  resave?: boolean;
  saveUninitialized?: boolean;
  /** Trust X-Forwarded-Proto for secure cookies (`undefined` follows `req.secure`). */
  proxy?: boolean;
  unset?: 'keep' | 'destroy';
}

type SessionRequest = MiddlewareRequest & { session?: Session; sessionStore?: Store };

const MEMORY_STORE_WARNING =
  'Warning: connect.session() MemoryStore is not\n' +
  'designed for a production environment, as it will leak\n' +
  'memory, and will not scale past a single process.';

/** 24 random bytes in base64url: 32 characters (uid-safe's format). */
function generateSessionId(): string {
  return randomBytes(24).toString('base64url');
}

function unsignWithAny(value: string, secrets: string[]): string | false {
  for (const secret of secrets) {
    const id = unsign(value, secret);
    if (id !== false) return id;
  }
  return false;
}

/** The verified id from a raw `s:` cookie value; unsigned or forged values give undefined. */
function verifiedId(raw: unknown, secrets: string[]): string | undefined {
  if (typeof raw !== 'string' || !raw.startsWith('s:')) return undefined;
  const id = unsignWithAny(raw.slice(2), secrets);
  return id === false ? undefined : id;
}

/** The session id the request carries, read from the Cookie header or, for old apps, cookieParser's output. */
function readSessionId(req: SessionRequest, name: string, secrets: string[]): string | undefined {
  const header = req.headers.cookie;
  let id = header ? verifiedId(parseConnectCookies(header)[name], secrets) : undefined;
  if (!id && req.signedCookies) {
    const signed = req.signedCookies[name];
    if (typeof signed === 'string' && signed) {
      deprecate('cookie should be available in req.headers.cookie');
      id = signed;
    }
  }
  if (!id && req.cookies) {
    id = verifiedId(req.cookies[name], secrets);
    if (id) deprecate('cookie should be available in req.headers.cookie');
  }
  return id;
}

function isSecure(req: SessionRequest, trustProxy: boolean | undefined): boolean {
  if (connectionOf(req)?.encrypted) return true;
  if (trustProxy === false) return false;
  if (trustProxy !== true) {
    const secure = (req as { secure?: unknown }).secure;
    return typeof secure === 'boolean' ? secure : false;
  }
  const proto = String(req.headers['x-forwarded-proto'] || '');
  return proto.split(',')[0].trim().toLowerCase() === 'https';
}

function normalizeSecrets(secret: SessionOptions['secret']): string[] | undefined {
  if (Array.isArray(secret)) {
    if (secret.length === 0) throw new TypeError('secret option array must contain one or more strings');
    return secret;
  }
  return secret ? [secret] : undefined;
}

function createSessionMiddleware(options?: SessionOptions): Middleware {
  const opts: SessionOptions = { resave: true, saveUninitialized: true, ...options };
  const name = opts.name || opts.key || 'connect.sid';
  const store: Store = opts.store || new MemoryStore();
  const cookieOptions: CookieOptions = opts.cookie || {};
  const rolling = Boolean(opts.rolling);
  const generateId = opts.genid || generateSessionId;
  if (typeof generateId !== 'function') throw new TypeError('genid option must be a function');
  // An explicit undefined still means the Connect default.
  const resave = opts.resave ?? true;
  const saveUninitialized = opts.saveUninitialized ?? true;
  if (opts.unset && opts.unset !== 'destroy' && opts.unset !== 'keep') {
    throw new TypeError('unset option must be "destroy" or "keep"');
  }
  const destroyOnUnset = opts.unset === 'destroy';
  const secrets = normalizeSecrets(opts.secret);
  if (!secrets) deprecate('req.secret; provide secret option');

  const env = process.env.RUNTIME_ENV || process.env.NODE_ENV;
  if (env === 'production' && store instanceof MemoryStore) console.warn(MEMORY_STORE_WARNING);

  let storeReady = true;
  store.on('disconnect', () => (storeReady = false));
  store.on('connect', () => (storeReady = true));
  store.generate = (req) => {
    req.sessionID = generateId(req as IncomingMessage);
    req.session = new Session(req);
    req.session.cookie = new Cookie(cookieOptions);
  };

  return named('session', function (request: IncomingMessage, res: ServerResponse, next: NextFunction) {
    const req = request as SessionRequest;
    if (req.session) return next();
    // A disconnected store: carry on without sessions rather than fail.
    if (!storeReady) return next();
    const pathname = parseOriginalUrl(req)?.pathname ?? '/';
    if (pathname.indexOf(cookieOptions.path || '/') !== 0) return next();
    if (!secrets && !req.secret) return next(new Error('secret option required for sessions'));
    const keys = secrets || [req.secret as string];

    req.sessionStore = store;
    const cookieId = (req.sessionID = readSessionId(req, name, keys));
    const tracker = new ChangeTracker();

    const hasUsableId = () => typeof req.sessionID === 'string';
    const shouldSave = (): boolean => {
      if (!hasUsableId()) return false;
      const current = req.session as Session;
      return !saveUninitialized && cookieId !== req.sessionID ? tracker.isModified(current) : !tracker.isSaved(current);
    };
    const shouldTouch = () => hasUsableId() && cookieId === req.sessionID && !shouldSave();
    const shouldSetCookie = (): boolean => {
      if (!hasUsableId()) return false;
      if (rolling) return true;
      const current = req.session as Session;
      return cookieId !== req.sessionID
        ? saveUninitialized || tracker.isModified(current)
        : current.cookie.expires != null && tracker.isModified(current);
    };

    onHeaders(res, () => {
      const current = req.session;
      // No session, or one the app replaced with something else (a plain object, as for
      // cookieSession): no cookie to send (Connect 2.30 threw here, from the head's write).
      if (!current || typeof current.cookie?.serialize !== 'function') return;
      const cookie = current.cookie;
      if (cookie.secure && !isSecure(req, opts.proxy)) return;
      if (!shouldSetCookie()) return;
      appendSetCookie(res, cookie.serialize(name, 's:' + sign(req.sessionID as string, keys[0])));
    });

    holdEndUntil(
      res,
      (): StoreWork | undefined => {
        if (req.sessionID && destroyOnUnset && req.session == null) {
          return (done) => store.destroy(req.sessionID as string, done);
        }
        const current = req.session;
        if (!current) return undefined;
        current.touch();
        if (shouldSave()) return (done) => current.save(done);
        if (typeof store.touch === 'function' && shouldTouch()) {
          return (done) => store.touch!(req.sessionID as string, current, done);
        }
        return undefined;
      },
      next,
    );

    const generate = () => {
      store.generate!(req);
      tracker.start(req.session as Session, req.sessionID);
    };

    if (!req.sessionID) {
      generate();
      return next();
    }
    // A store answers from its own connection: continue in the caller's context.
    store.get(
      req.sessionID,
      inCallerContext<Parameters<GetCallback>>((err, data) => {
        if (err) {
          if ((err as { code?: unknown }).code !== 'ENOENT') return next(err);
          generate();
        } else if (!data || typeof data !== 'object') {
          // Nothing stored, or a record no session can be made of (a broken store's number
          // or string: a session's fields cannot be set on it, and the throw in this
          // callback ended the process): a fresh session, as for an unknown id.
          generate();
        } else {
          store.createSession(req, data);
          // Without resave, the session as loaded counts as already stored.
          tracker.start(req.session as Session, req.sessionID, !resave);
        }
        next();
      }),
    );
  });
}

export type SessionMiddleware = ((options?: SessionOptions) => Middleware) & {
  Store: typeof Store;
  MemoryStore: typeof MemoryStore;
  Session: typeof Session;
  Cookie: typeof Cookie;
};

export const session: SessionMiddleware = Object.assign(
  function session(options?: SessionOptions): Middleware {
    return createSessionMiddleware(options);
  },
  { Store, MemoryStore, Session, Cookie },
);

export { Store, MemoryStore, Session, Cookie };
export type { CookieOptions };
