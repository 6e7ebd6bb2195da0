/**
 * The in-process store (express-session 1.11's `MemoryStore`): sessions kept
 * as JSON strings, so every `get` hands out a fresh copy, and dropped when
 * their cookie has expired. Not for production: it grows with every visitor
 * and is not shared between processes.
 */
import { Store, type GetCallback, type SessionData } from './store';
import { defer } from '../../http/defer';
import type { Callback } from './session';

/** Answers asynchronously, as a networked store would. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- store callbacks of every shape pass through
function later(fn: ((...args: any[]) => void) | undefined, ...args: unknown[]): void {
  if (fn) defer(fn, ...args);
}

export class MemoryStore extends Store {
  sessions: Record<string, string> = Object.create(null);

  override get(sid: string, fn: GetCallback): void {
    later(fn, null, this.read(sid));
  }

  override set(sid: string, session: unknown, fn?: Callback): void {
    this.sessions[sid] = JSON.stringify(session);
    later(fn);
  }

  override destroy(sid: string, fn?: Callback): void {
    delete this.sessions[sid];
    later(fn);
  }

  /** Moves the stored expiry forward without rewriting the data. */
  override touch(sid: string, session: unknown, fn?: Callback): void {
    const current = this.read(sid);
    if (current) {
      current.cookie = (session as SessionData).cookie;
      this.sessions[sid] = JSON.stringify(current);
    }
    later(fn);
  }

  override all(fn: (err: unknown, sessions?: Record<string, SessionData>) => void): void {
    const sessions: Record<string, SessionData> = Object.create(null);
    for (const sid of Object.keys(this.sessions)) {
      const session = this.read(sid);
      if (session) sessions[sid] = session;
    }
    later(fn, null, sessions);
  }

  override length(fn: (err: unknown, length?: number) => void): void {
    this.all((err, sessions) => (err ? fn(err) : fn(null, Object.keys(sessions ?? {}).length)));
  }

  override clear(fn?: Callback): void {
    this.sessions = Object.create(null);
    later(fn);
  }

  /** The live session `sid`, or undefined (an expired one is removed on sight). */
  private read(sid: string): SessionData | undefined {
    const json = this.sessions[sid];
    if (!json) return undefined;
    const session = JSON.parse(json) as SessionData | null;
    if (typeof session !== 'object' || session === null) return undefined;
    const stored = session.cookie?.expires;
    const expires = typeof stored === 'string' ? new Date(stored) : stored;
    if (expires instanceof Date && expires.valueOf() <= Date.now()) {
      delete this.sessions[sid];
      return undefined;
    }
    return session;
  }
}
