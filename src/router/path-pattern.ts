/**
 * Express 4 path patterns. `layer.regexp` and `layer.keys` are exactly what
 * path-to-regexp 0.1.x makes of the pattern (Express's), but most requests never
 * run the expression:
 *  - a literal pattern (no parameter, wildcard, group or quantifier) is matched by
 *    string comparison that reproduces the regular expression's answer;
 *  - so is a pattern of literal segments and whole-segment parameters
 *    (`/users/:id/posts/:postId`), the commonest route with parameters;
 *  - any other string pattern has a literal prefix every match must start with,
 *    checked before the regular expression runs;
 *  - a pattern whose first path segment is literal exposes it as `segmentKey`, so a
 *    router can skip, without looking, every layer whose first segment differs.
 */
import type PathToRegexp = require('path-to-regexp');
import { lazy } from '../http/lazy';

export type PathPattern = string | RegExp | ReadonlyArray<string | RegExp>;

export interface PathKey {
  name: string | number;
  optional: boolean;
  offset: number;
}

export interface PatternOptions {
  /** Case-sensitive matching (`caseSensitive` / `case sensitive routing`). */
  sensitive?: boolean;
  /** Strict matching: `/foo` and `/foo/` differ (`strict routing`). */
  strict?: boolean;
  /** Whole-path match (routes) or prefix match (`use`). */
  end?: boolean;
}

/** A compiled pattern: `match` returns the matched part of the path, or `undefined`. */
export interface CompiledPattern {
  regexp: RegExp & { fast_slash?: boolean; fast_star?: boolean };
  keys: PathKey[];
  /** Lower-cased literal first segment every match has, when one exists. */
  segmentKey: string | undefined;
  /** The matched portion of `path` and the raw captures, or undefined when no match (read only: it may be shared). */
  exec(path: string): readonly string[] | undefined;
}

/**
 * path-to-regexp itself, for the patterns `plainExpression` does not build: loaded
 * when an app first has one (cold start: a plain app never loads it, and it is the
 * first package Node would resolve in node_modules, about 2 ms on Node 20).
 */
const pathToRegexp = lazy(() => require('path-to-regexp') as typeof PathToRegexp);

/**
 * Patterns `plainExpression` builds: literal text (no character with a meaning in
 * path-to-regexp 0.1 but `.`) and parameters that follow a `/` (`/:id`), with
 * nothing after a name that could extend it (a group, `*` or `?`). A name is all
 * the word characters there are (`(?!\w)`), so a pattern it refuses is refused in
 * one pass, not retried with the name cut shorter at every character.
 */
const PLAIN_PARAMETERS = /^(?:[^\\*:()?+[\]{}^$|]|\/:\w+(?!\w))*$/;

/**
 * What path-to-regexp 0.1.x returns for a pattern PLAIN_PARAMETERS accepts, and the
 * keys it reports, built without it. The expression's source is the pattern with
 * each `/:name` as `(?:/([^/]+?))` and each `.` escaped; then, outside strict
 * routing, an optional trailing slash (`/?`, or `?` after a slash of the pattern's);
 * then `$` for a route, or for a mount path that does not end in a slash the
 * lookahead `(?=/|$)`. Case-insensitive (`i`) unless `sensitive`. A key's offset is
 * where its group starts in the source without the leading `^`. The random
 * comparison in test/router/path-pattern.test.ts holds it to path-to-regexp's output.
 */
function plainExpression(
  path: string,
  keys: PathKey[],
  { sensitive, strict, end }: { sensitive: boolean; strict: boolean; end: boolean },
): RegExp {
  let source = '';
  for (let i = 0; i < path.length;) {
    if (path.charCodeAt(i) === 0x2f /* / */ && path.charCodeAt(i + 1) === 0x3a /* : */) {
      const name = /^\w+/.exec(path.slice(i + 2))![0];
      keys.push({ name, optional: false, offset: source.length });
      source += '(?:/([^/]+?))';
      i += 2 + name.length;
    } else {
      source += path[i] === '.' ? '\\.' : path[i];
      i++;
    }
  }
  if (!strict) source += source.endsWith('/') ? '?' : '/?';
  if (end) source += '$';
  else if (!source.endsWith('/')) source += '(?=/|$)';
  return new RegExp('^' + source, sensitive ? '' : 'i');
}

/** Characters with a meaning in path-to-regexp 0.1 patterns (`.` is always literal there). */
const SPECIAL = /[\\*:()?+[\]{}^$|]/;
const NON_ASCII = /[^\x00-\x7f]/;

export function compilePattern(path: PathPattern, options: PatternOptions): CompiledPattern {
  const keys: PathKey[] = [];
  const end = options.end !== false;
  const strict = Boolean(options.strict);
  const sensitive = Boolean(options.sensitive);
  const regexp = (
    typeof path === 'string' && PLAIN_PARAMETERS.test(path)
      ? plainExpression(path, keys, { sensitive, strict, end })
      : pathToRegexp()(path, keys, { sensitive, strict, end })
  ) as CompiledPattern['regexp'];
  regexp.fast_star = path === '*';
  regexp.fast_slash = path === '/' && !end;

  const matcher = matcherFor(regexp);
  const regexpExec = (p: string): RegExpExecArray | undefined => matcher.exec(p) ?? undefined;
  if (typeof path !== 'string' || NON_ASCII.test(path)) {
    return { regexp, keys, segmentKey: undefined, exec: regexpExec };
  }

  const special = SPECIAL.exec(path);
  if (special === null && (end || !strict)) {
    return literalPattern(path, regexp, keys, { end, strict, sensitive });
  }

  const prefix = special === null ? path : requiredPrefix(path, special.index);
  const segmentKey = firstSegment(prefix);
  if (!strict && SEGMENTS_AND_PARAMS.test(path)) {
    return { regexp, keys, segmentKey, exec: segmentsMatcher(path, end, sensitive) };
  }
  if (prefix.length <= 1) return { regexp, keys, segmentKey, exec: regexpExec };
  return {
    regexp,
    keys,
    segmentKey,
    exec(p: string) {
      // Why: a failed prefix comparison is far cheaper than a failed regexp run,
      // and most layers of a large app fail on their first characters.
      if (!startsWith(p, prefix, sensitive)) return undefined;
      return matcher.exec(p) ?? undefined;
    },
  };
}

/**
 * The expression that runs for `regexp`: a copy without the `fast_slash` and
 * `fast_star` properties Express puts on `layer.regexp`. V8 runs `exec` on its fast
 * path only for a RegExp of the initial shape; one with properties added takes the
 * slow, generic path on every request. An app's own expression that a copy would not
 * reproduce runs itself, as in Express: a global or sticky one (its `lastIndex` moves
 * between requests), or one with an `exec` of its own or of a subclass.
 */
function matcherFor(regexp: RegExp): RegExp {
  if (regexp.global || regexp.sticky) return regexp;
  if (Object.getPrototypeOf(regexp) !== RegExp.prototype || Object.prototype.hasOwnProperty.call(regexp, 'exec'))
    return regexp;
  return new RegExp(regexp.source, regexp.flags);
}

/**
 * The part of a non-literal pattern that every match starts with: the text before
 * the first special character, less any character that character can make
 * optional (`x?`, `x{0,1}`, the `/` or `.` that an optional `:param?` absorbs).
 */
function requiredPrefix(path: string, specialIndex: number): string {
  if (/[|^$]/.test(path)) return '';
  let prefix = path.slice(0, specialIndex);
  const ch = path[specialIndex];
  if (ch === '?' || ch === '{') prefix = prefix.slice(0, -1);
  if (ch === ':') {
    const param = /^:\w+(\(.*?\))?\*?(\?)?/.exec(path.slice(specialIndex));
    const optional = param === null || param[2] === '?';
    const before = prefix.slice(-2);
    if (optional || before === '/.') prefix = prefix.replace(/\/?\.?$/, '');
  }
  return prefix;
}

/** The lower-cased first path segment of a literal prefix, when the prefix holds all of it. */
function firstSegment(prefix: string): string | undefined {
  if (prefix.charCodeAt(0) !== 0x2f) return undefined;
  const slash = prefix.indexOf('/', 1);
  if (slash === -1) return undefined;
  return prefix.slice(1, slash).toLowerCase();
}

/**
 * String matching equal to path-to-regexp's expression for a literal pattern:
 *  - route, not strict (`^/foo/?$`): `/foo` or `/foo/`;
 *  - route, strict (`^/foo$`): exactly the pattern;
 *  - use (`^/foo/?(?=/|$)`): the pattern followed by the end or a `/`; one
 *    trailing slash is part of the match when another slash or the end follows.
 * Without `strict`, a pattern's own trailing slash is optional (`/foo/` = `/foo`).
 */
function literalPattern(
  path: string,
  regexp: CompiledPattern['regexp'],
  keys: PathKey[],
  { end, strict, sensitive }: { end: boolean; strict: boolean; sensitive: boolean },
): CompiledPattern {
  const base = !strict && path.endsWith('/') ? path.slice(0, -1) : path;
  const segmentKey = firstSegment(base + '/');
  const length = base.length;
  let exec: CompiledPattern['exec'];
  if (end && strict) {
    exec = (p) => (p.length === length && startsWith(p, base, sensitive) ? [p] : undefined);
  } else if (end) {
    exec = (p) => {
      if (!startsWith(p, base, sensitive)) return undefined;
      if (p.length === length || (p.length === length + 1 && p.charCodeAt(length) === 0x2f)) return [p];
      return undefined;
    };
  } else {
    // A mount path mostly matches letter for letter: its match is then the pattern's own
    // text, in an array made once, where a slice and an array would be made per request.
    // Not frozen: reads of a frozen array's elements at the match's one read site went
    // through V8's generic keyed load (the caller only reads it).
    const matched: readonly string[] = [base];
    const matchedWithSlash: readonly string[] = [base + '/'];
    exec = (p) => {
      const exact = p.startsWith(base);
      if (!exact && (sensitive || !startsWith(p, base, false))) return undefined;
      if (p.length === length) return [p];
      if (p.charCodeAt(length) !== 0x2f) return undefined;
      const withSlash = p.length === length + 1 || p.charCodeAt(length + 1) === 0x2f;
      if (exact) return withSlash ? matchedWithSlash : matched;
      return [p.slice(0, withSlash ? length + 1 : length)];
    };
  }
  return { regexp, keys, segmentKey, exec };
}

/**
 * A pattern of literal segments and parameters that each fill a segment of their own:
 * `/:id`, `/users/:id/posts/:postId`. Other characters with a meaning (`*`, `(`, `?`...)
 * or a parameter sharing its segment (`/:from-:to`, `/file.:ext`) compile differently.
 */
const SEGMENTS_AND_PARAMS = /^(?:\/(?:[^\\*:()?+[\]{}^$|/]+|:\w+))+$/;

/**
 * String matching equal to path-to-regexp's expression for a pattern that
 * SEGMENTS_AND_PARAMS accepts, without `strict`. Each `/:name` compiles to
 * `(?:\/([^/]+?))`: a whole, non-empty segment, captured; each literal segment matches
 * itself (case-insensitively unless `sensitive`). After them comes `\/?$` for a route:
 * the end, one trailing slash allowed; `\/?(?=\/|$)` for `use`: the end or a `/`, a
 * trailing slash part of the match when another slash or the end follows it.
 */
function segmentsMatcher(path: string, end: boolean, sensitive: boolean): CompiledPattern['exec'] {
  // The segments' text, with null for a parameter (there is at least one).
  const segments = path
    .slice(1)
    .split('/')
    .map((segment) => (segment.charCodeAt(0) === 0x3a /* : */ ? null : segment));
  const count = segments.length;
  return (p) => {
    // The first capture in a variable and the others in an array made only for them:
    // most patterns have one parameter, and their match is then a single array literal.
    let first: string | undefined;
    let more: string[] | undefined;
    let at = 0;
    for (let i = 0; i < count; i++) {
      if (p.charCodeAt(at) !== 0x2f /* / */) return undefined;
      at++;
      const literal = segments[i];
      if (literal !== null) {
        if (!startsWithAt(p, at, literal, sensitive)) return undefined;
        at += literal.length;
        continue;
      }
      const from = at;
      while (at < p.length && p.charCodeAt(at) !== 0x2f) at++;
      if (at === from) return undefined;
      const value = p.slice(from, at);
      if (first === undefined) first = value;
      else (more ??= []).push(value);
    }
    // What follows the last segment: the end, or a slash (the last character, or for
    // `use` one that another slash may follow, then part of the match).
    let matched = p;
    if (at !== p.length) {
      if (p.charCodeAt(at) !== 0x2f) return undefined;
      const slashLast = at === p.length - 1;
      if (end && !slashLast) return undefined;
      if (!slashLast) matched = p.slice(0, p.charCodeAt(at + 1) === 0x2f ? at + 1 : at);
    }
    return more === undefined ? [matched, first!] : [matched, first!, ...more];
  };
}

/** `str` holds the ASCII `text` at `position`, compared as `startsWith` does. */
function startsWithAt(str: string, position: number, text: string, sensitive: boolean): boolean {
  // The native comparison first: most paths that match have the pattern's own case.
  if (str.startsWith(text, position)) return true;
  if (sensitive || str.length < position + text.length) return false;
  for (let i = 0; i < text.length; i++) {
    if (!sameLetter(str.charCodeAt(position + i), text.charCodeAt(i))) return false;
  }
  return true;
}

/** Two UTF-16 code units equal, ASCII letters compared without case (as a RegExp's `i` flag without `u`). */
function sameLetter(a: number, b: number): boolean {
  if (a === b) return true;
  const lowerA = a >= 0x41 && a <= 0x5a ? a + 0x20 : a;
  const lowerB = b >= 0x41 && b <= 0x5a ? b + 0x20 : b;
  return lowerA === lowerB;
}

/**
 * `str` starts with the ASCII `prefix`; without `sensitive`, ASCII letters compare
 * case-insensitively and nothing else folds, which is what a RegExp with the `i`
 * flag (and no `u` flag) does for an ASCII pattern.
 */
export function startsWith(str: string, prefix: string, sensitive: boolean): boolean {
  return startsWithAt(str, 0, prefix, sensitive);
}
