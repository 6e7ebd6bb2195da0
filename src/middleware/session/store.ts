/**
 * The store interface (express-session 1.11's `Store`): an EventEmitter that
 * real stores extend with `get`, `set`, `destroy` and optionally `touch`,
 * `length`, `clear`, `all`. Emitting 'disconnect' makes the middleware run
 * without sessions until 'connect'.
 */
import { EventEmitter } from 'node:events';
import { Cookie, type CookieOptions } from './cookie';
import { Session, type Callback, type SessionRequest } from './session';

export type SessionData = Record<string, unknown> & { cookie: CookieOptions | Cookie };
export type GetCallback = (err?: unknown, session?: SessionData | null) => void;

// What a concrete store provides: the base implements none of them, as in 1.11.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
interface StoreBase {
  get(sid: string, fn: GetCallback): void;
  set(sid: string, session: unknown, fn?: Callback): void;
  destroy(sid: string, fn?: Callback): void;
  touch?(sid: string, session: unknown, fn?: Callback): void;
  length?(fn: (err: unknown, length?: number) => void): void;
  clear?(fn?: Callback): void;
  all?(fn: (err: unknown, sessions?: Record<string, SessionData>) => void): void;
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
class StoreBase extends EventEmitter {
  /**
   * Set by the middleware: gives `req` a new id and an empty session. Declared only:
   * `Store` never runs this class's constructor, so a field initializer would be dead code.
   */
  declare generate?: (req: SessionRequest) => void;

  regenerate(req: SessionRequest, fn: Callback): void {
    this.destroy(req.sessionID as string, (err) => {
      this.generate?.(req);
      fn(err);
    });
  }

  /** The session `sid` as a `Session` detached from any request. */
  load(sid: string, fn: (err?: unknown, session?: Session) => void): void {
    this.get(sid, (err, data) => {
      if (err) return fn(err);
      if (!data) return fn();
      fn(null, this.createSession({ sessionID: sid, sessionStore: this }, data));
    });
  }

  /** Turns stored data back into `req.session` (the cookie's dates revived). */
  createSession(req: SessionRequest, data: SessionData): Session {
    const stored = data.cookie ?? {};
    const { expires, originalMaxAge } = stored;
    const cookie = new Cookie(stored as CookieOptions);
    if (typeof expires === 'string') cookie.expires = new Date(expires);
    cookie.originalMaxAge = originalMaxAge;
    data.cookie = cookie;
    req.session = new Session(req, data);
    return req.session;
  }
}

export type Store = StoreBase;

/**
 * Stores written for 3.x call `Store.call(this, options)` from an ES5
 * constructor and inherit with util.inherits; a class cannot be called, so
 * `Store` is a plain function sharing the class's prototype: `new Store()`,
 * `Store.call(this)` and `class X extends Store` all work.
 */
export const Store = function Store(this: EventEmitter) {
  EventEmitter.call(this);
} as unknown as { new (options?: unknown): StoreBase; (this: unknown, options?: unknown): void; prototype: StoreBase };
Store.prototype = StoreBase.prototype;
Object.defineProperty(StoreBase.prototype, 'constructor', { value: Store, writable: true, configurable: true });
