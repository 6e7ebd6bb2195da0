/**
 * The media types and charsets responses are sent with, as Express's senders ask for
 * them: through the `mime` object apps are given (`express.static.mime` in 4.x,
 * `express.mime` in 3.x; src/http/mime-module.ts), whose `lookup` and `charsets.lookup`
 * Express calls on every answer (`res.type`, `res.set('Content-Type')`, `res.format`,
 * `res.sendFile`, `static`). An app may replace either: to serve files without a
 * charset (`express.static.mime.charsets.lookup = () => false`), or `.js` as
 * `text/javascript`. webapp reads its tables directly (the same answers, without the
 * calls), and asks the object only once one of the two was replaced.
 */
import { charsetOf, defaultType, lookupType, lookupType3, textCharsetOf } from './mime';

/** What an app can replace on a `mime` object. */
export interface MimeLookups {
  lookup(path: string, fallback?: string): unknown;
  charsets: { lookup(type: string, fallback?: string): unknown };
}

/** A `mime` object apps were given, and its own members, to tell a replacement. */
class Given {
  object: MimeLookups | undefined = undefined;
  ownLookup: unknown = undefined;
  ownCharsets: unknown = undefined;
  ownCharsetLookup: unknown = undefined;

  /** The object, when the app replaced its `lookup`. */
  replacedLookup(): MimeLookups | undefined {
    const object = this.object;
    return object !== undefined && object.lookup !== this.ownLookup ? object : undefined;
  }

  /** Whether the app replaced its `charsets` or their `lookup`: every charset is then the app's answer. */
  charsetsReplaced(): boolean {
    const object = this.object;
    if (object === undefined) return false;
    const charsets = object.charsets;
    return charsets !== this.ownCharsets || charsets.lookup !== this.ownCharsetLookup;
  }
}

const given4 = new Given();
const given3 = new Given();

/** Records the `mime` object of 4.x or of 3.x as it was made (mime-module.ts). */
export function registerMimeObject(version: 3 | 4, object: MimeLookups): void {
  const given = version === 4 ? given4 : given3;
  given.object = object;
  given.ownLookup = object.lookup;
  given.ownCharsets = object.charsets;
  given.ownCharsetLookup = object.charsets.lookup;
}

/**
 * The media type Express 4 (mime 1.6) gives a file path or an extension: the default
 * type for an unknown one; whatever the app's own `lookup` returns, falsy included (a
 * file is then sent without a Content-Type, as send sends it).
 */
export function mediaTypeFor(pathOrExt: string): unknown {
  const replaced = given4.replacedLookup();
  return replaced === undefined ? lookupType(pathOrExt) || defaultType : replaced.lookup(pathOrExt);
}

/** Whether an app replaced Express 4's `lookup`: it then answers for any value, strings or not. */
export function lookupReplaced(): boolean {
  return given4.replacedLookup() !== undefined;
}

/** `mediaTypeFor` of Express 3.21 and Connect 2.30 (mime 1.3.4's tables). */
export function mediaTypeFor3(pathOrExt: string): unknown {
  const replaced = given3.replacedLookup();
  return replaced === undefined ? lookupType3(pathOrExt) || defaultType : replaced.lookup(pathOrExt);
}

/** Whether an app replaced Express 4's charsets: a Content-Type worked out before may differ now. */
export function charsetsReplaced(): boolean {
  return given4.charsetsReplaced();
}

/** The charset Express 4 (mime 1.6) gives a media type (`UTF-8` or false), or the app's own answer. */
export function charsetFor(type: string): unknown {
  return given4.charsetsReplaced() ? given4.object!.charsets.lookup(type) : charsetOf(type);
}

/** `charsetFor` of Express 3.21 and Connect 2.30: `UTF-8` for `text/*` only, or the app's own answer. */
export function charsetFor3(type: string): unknown {
  return given3.charsetsReplaced() ? given3.object!.charsets.lookup(type) : textCharsetOf(type);
}
