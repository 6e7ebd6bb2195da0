/**
 * Splitting a decoded key such as `a[b][c]` into the segments `a`, `[b]`, `[c]`.
 * Groups are matched with bracket balancing (`a[b[c]]` has the segment `[b[c]]`),
 * at most `depth` groups are taken and the rest is kept as one literal segment,
 * and a key naming an Object.prototype member is refused unless prototypes are
 * allowed: the same rules as qs, so the same keys produce the same shapes.
 */
import type { ParseSettings } from './options';

const hasOwn = Object.prototype.hasOwnProperty;

function namesPrototypeMember(name: string): boolean {
  return hasOwn.call(Object.prototype, name);
}

/** `[x]` -> `x`; anything else unchanged. */
export function unwrapBrackets(segment: string): string {
  return segment.charCodeAt(0) === 0x5b && segment.charCodeAt(segment.length - 1) === 0x5d
    ? segment.slice(1, -1)
    : segment;
}

/** The index just past the `]` closing the group opened at `open`, or -1 if it never closes. */
function groupEnd(key: string, open: number): number {
  let level = 1;
  for (let i = open + 1; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if (code === 0x5b) level++;
    else if (code === 0x5d && --level === 0) return i + 1;
  }
  return -1;
}

/** Segments of `key`, or undefined when the key must be dropped (prototype guard). */
export function keySegments(key: string, settings: ParseSettings): string[] | undefined {
  const guard = !settings.allowPrototypes;
  if (settings.depth <= 0) {
    if (guard && namesPrototypeMember(unwrapBrackets(key))) return undefined;
    return [key];
  }

  const segments: string[] = [];
  let open = key.indexOf('[');
  const parent = open === -1 ? key : key.slice(0, open);
  if (parent !== '') {
    if (guard && namesPrototypeMember(parent)) return undefined;
    segments.push(parent);
  }

  let taken = 0;
  while (open !== -1 && taken < settings.depth) {
    const end = groupEnd(key, open);
    if (end === -1) {
      // An unterminated group stays one literal segment; strictDepth does not apply.
      segments.push('[' + key.slice(open) + ']');
      return segments;
    }
    const segment = key.slice(open, end);
    if (guard && namesPrototypeMember(segment.slice(1, -1))) return undefined;
    segments.push(segment);
    taken++;
    open = key.indexOf('[', end);
  }

  if (open !== -1) {
    if (settings.strictDepth) {
      throw new RangeError(`Input depth exceeded depth option of ${settings.depth} and strictDepth is true`);
    }
    segments.push('[' + key.slice(open) + ']');
  }
  return segments;
}
