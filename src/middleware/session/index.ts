/**
 * `session(options)`: server-side sessions as Connect 2.30's `connect.session`
 * (express-session 1.11 with `resave` and `saveUninitialized` on by default).
 * The browser holds only a signed id cookie (`s:<id>.<signature>`, name
 * `connect.sid`); the data lives in `options.store` (a MemoryStore unless
 * given). The session is written back when the response ends, and the
 * response finishes only once the store has answered.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { parse as parseCookieHeader } from 'cookie';
import { sign, unsign } from '../../http/cookie-signature';
import { deprecate } from '../../http/deprecate';
import { parseOriginalUrl } from '../../http/parse-url';
import { onHeaders } from '../on-headers';
import type { Middleware, MiddlewareRequest, NextFunction } from '../types';
import { Cookie, type CookieOptions } from './cookie';
import { MemoryStore } from './memory-store';
import { Session } from './session';
import { Store } from './store';

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

/** A digest of the session's data, the cookie left out (its expiry moves every request). */
function fingerprint(session: Session): string {
  const json = JSON.stringify(session, (key, value) => (key === 'cookie' ? undefined : value));
  return createHash('sha1').update(json ?? '').digest('base64');
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
  let id = header ? verifiedId(parseCookieHeader(header)[name], secrets) : undefined;
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
  if ((req.socket as TLSSocket | null)?.encrypted) return true;
  if (trustProxy === false) return false;
  if (trustProxy !== true) {
    const secure = (req as { secure?: unknown }).secure;
    return typeof secure === 'boolean' ? secure : false;
  }
  const proto = String(req.headers['x-forwarded-proto'] || '');
  return proto.split(',')[0].trim().toLowerCase() === 'https';
}

function appendSetCookie(res: ServerResponse, value: string): void {
  const previous = res.getHeader('Set-Cookie');
  const list = previous === undefined ? [] : Array.isArray(previous) ? previous : [String(previous)];
  res.setHeader('Set-Cookie', [...list, value]);
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

  return function session(request: IncomingMessage, res: ServerResponse, next: NextFunction) {
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
      if (!current) return;
      const cookie = current.cookie;
      if (cookie.secure && !isSecure(req, opts.proxy)) return;
      if (!shouldSetCookie()) return;
      appendSetCookie(res, cookie.serialize(name, 's:' + sign(req.sessionID as string, keys[0])));
    });

    holdEndUntil(res, (): StoreWork | undefined => {
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
    }, next);

    const generate = () => {
      store.generate!(req);
      tracker.start(req.session as Session, req.sessionID);
    };

    if (!req.sessionID) {
      generate();
      return next();
    }
    store.get(req.sessionID, (err, data) => {
      if (err) {
        if ((err as { code?: unknown }).code !== 'ENOENT') return next(err);
        generate();
      } else if (!data) {
        generate();
      } else {
        store.createSession(req, data);
        // Without resave, the session as loaded counts as already stored.
        tracker.start(req.session as Session, req.sessionID, undefined, !resave);
      }
      next();
    });
  };
}

/**
 * Remembers the session as it was loaded and as it was last saved, so the
 * end of the request can tell "changed" and "already stored" apart.
 */
class ChangeTracker {
  private originalId?: string;
  private originalHash?: string;
  private savedHash?: string;

  start(session: Session, id: string | undefined, hash = fingerprint(session), countAsSaved = false): void {
    this.originalId = id;
    this.originalHash = hash;
    if (countAsSaved) this.savedHash = hash;
    // Every save, by the app or at the end, records what was written.
    const tracker = this;
    const save = session.save;
    Object.defineProperty(session, 'save', {
      configurable: true,
      enumerable: false,
      writable: true,
      value: function trackedSave(this: Session, ...args: Parameters<Session['save']>) {
        tracker.savedHash = fingerprint(this);
        return save.apply(this, args);
      },
    });
  }

  isModified(session: Session): boolean {
    return this.originalId !== session.id || this.originalHash !== fingerprint(session);
  }

  isSaved(session: Session): boolean {
    return this.originalId === session.id && this.savedHash === fingerprint(session);
  }
}

type StoreWork = (done: (err?: unknown) => void) => void;

/**
 * Wraps `res.end` so `decide` runs first. When it returns store work, the
 * body goes out now but the response is ended only when the store answers;
 * a store error still ends the response, then reaches `next`. When a
 * Content-Length is set, the last byte is held back so the client cannot see
 * a complete response before the session is stored. A second `end` is ignored.
 */
function holdEndUntil(res: ServerResponse, decide: () => StoreWork | undefined, next: NextFunction): void {
  const end = res.end as (...args: unknown[]) => ServerResponse;
  const write = res.write as (...args: unknown[]) => boolean;
  let ended = false;

  res.end = function endAfterStore(this: ServerResponse, ...args: unknown[]) {
    if (ended) return this;
    ended = true;
    // end([chunk], [encoding], [callback]): keep the callback for the real end.
    const callback = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
    let [chunk, encoding] = args as [unknown, BufferEncoding | undefined];

    const work = decide();
    if (!work) return end.call(res, chunk, encoding, callback);

    let pending = true;
    let rest: unknown;
    work((err) => {
      if (err) setImmediate(next, err);
      if (pending) {
        // The store answered at once: end normally with the whole body.
        pending = false;
        end.call(res, chunk, encoding, callback);
      } else {
        end.call(res, rest, undefined, callback);
      }
    });
    if (!pending || chunk == null) return this;
    pending = false;
    const length = Number(res.getHeader('Content-Length'));
    if (!Number.isNaN(length) && length > 0) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), encoding);
      encoding = undefined;
      if (bytes.length > 0) {
        rest = bytes.subarray(bytes.length - 1);
        chunk = bytes.subarray(0, bytes.length - 1);
      } else {
        chunk = bytes;
      }
    }
    write.call(res, chunk, encoding);
    return this;
  } as ServerResponse['end'];
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
