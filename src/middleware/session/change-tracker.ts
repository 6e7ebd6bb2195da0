/**
 * What the end of a request needs to know about the session: has it changed
 * since it was loaded (or made), and is its current state already stored?
 * Compared by a digest of the data without the cookie, whose expiry moves
 * on every request.
 */
import { createHash } from 'node:crypto';
import type { Session } from './session';

/** A digest of the session's data, the cookie left out. */
export function fingerprint(session: Session): string {
  const json = JSON.stringify(session, (key, value) => (key === 'cookie' ? undefined : value));
  return createHash('sha1')
    .update(json ?? '')
    .digest('base64');
}

/**
 * Remembers the session as it was loaded and as it was last saved, so the
 * end of the request can tell "changed" and "already stored" apart.
 */
export class ChangeTracker {
  private originalId?: string;
  private originalHash?: string;
  private savedHash?: string;

  start(session: Session, id: string | undefined, countAsSaved = false): void {
    const hash = fingerprint(session);
    this.originalId = id;
    this.originalHash = hash;
    if (countAsSaved) this.savedHash = hash;
    // Every save, by the app or at the end, records what was written.
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the wrapper's own `this` is the session
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
