/**
 * `req.session` (express-session 1.11's `Session`): the stored data as own
 * properties plus `cookie`, with `id` and the request kept as read-only,
 * non-enumerable properties so they never reach the store.
 */
import { inCallerContext } from '../../http/async-context';
import type { Cookie } from './cookie';
import type { Store } from './store';

export type Callback = (err?: unknown) => void;

/** The request fields a session reads and replaces. */
export interface SessionRequest {
  sessionID?: string;
  session?: Session;
  sessionStore?: Store;
}

// Keys a stored record must never write onto the session object.
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export class Session {
  declare readonly id: string;
  declare readonly req: SessionRequest;
  declare cookie: Cookie;
  [key: string]: unknown;

  constructor(req: SessionRequest, data?: unknown) {
    Object.defineProperty(this, 'req', { value: req });
    Object.defineProperty(this, 'id', { value: req.sessionID });
    if (typeof data === 'object' && data !== null) {
      // Own keys only, and never ones that would shadow the methods: a
      // stored `{"save": ...}` or `__proto__` stays out.
      for (const key of Object.keys(data)) {
        if (UNSAFE_KEYS.has(key) || key in this) continue;
        this[key] = (data as Record<string, unknown>)[key];
      }
    }
  }

  /** Restarts the expiry clock (the middleware calls it at the end of each request). */
  touch(): this {
    return this.resetMaxAge();
  }

  resetMaxAge(): this {
    this.cookie.maxAge = this.cookie.originalMaxAge;
    return this;
  }

  // The callbacks below often carry on with the request (passport logs in inside
  // regenerate's): a store answers from its own connection, so they run in the caller's context.
  save(fn?: Callback): this {
    storeOf(this).set(this.id, this, fn ? inCallerContext(fn) : () => {});
    return this;
  }

  /** Replaces `req.session` with the store's copy. */
  reload(callback: Callback): this {
    const req = this.req;
    const store = storeOf(this);
    const fn = inCallerContext(callback);
    store.get(this.id, (err, data) => {
      if (err) return fn(err);
      if (!data) return fn(new Error('failed to load session'));
      store.createSession(req, data);
      fn();
    });
    return this;
  }

  destroy(fn?: Callback): this {
    delete this.req.session;
    storeOf(this).destroy(this.id, fn && inCallerContext(fn));
    return this;
  }

  /** A fresh id and empty session; the old record is destroyed. */
  regenerate(fn: Callback): this {
    storeOf(this).regenerate(this.req, inCallerContext(fn));
    return this;
  }
}

// A function, not a method, so a stored key named like it is not refused.
function storeOf(session: Session): Store {
  return session.req.sessionStore as Store;
}
