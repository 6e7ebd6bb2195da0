/**
 * From the URL path of a request (still percent-encoded) to a file system path,
 * refusing what could escape the root: undecodable paths and null bytes (400),
 * `..` segments (403, also when encoded or written with backslashes), and
 * dotfiles according to the `dotfiles` mode (403 deny, 404 ignore).
 */
import { join, normalize, resolve, sep } from 'node:path';
import type { DotfilesMode } from './options';

/** A `..` segment between separators, where `\` counts as one too (it does on Windows). */
const UP_PATH = /(?:^|[\\/])\.\.(?:[\\/]|$)/;

export type Resolved = { path: string; status?: undefined } | { path?: undefined; status: 400 | 403 | 404 };

function decode(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

/** Whether a segment (longer than `.` itself) starts with a dot. */
function hasDotSegment(parts: string[]): boolean {
  for (const part of parts) {
    if (part.length > 1 && part.charCodeAt(0) === 0x2e /* . */) return true;
  }
  return false;
}

/**
 * Resolves `urlPath` against `root` (or, without a root, takes it as a file
 * system path, where any `..` is refused). In the default dotfiles mode
 * (`undefined`) only a final segment starting with a dot is hidden.
 */
export function resolveFilePath(
  urlPath: string,
  root: string | null,
  dotfiles: DotfilesMode | undefined,
  hidden: boolean,
): Resolved {
  let path = decode(urlPath);
  if (path === undefined || path.includes('\0')) return { status: 400 };

  let parts: string[];
  if (root !== null) {
    // Normalising relative to "." first means a leading "/.." cannot climb out: it stays a visible "..".
    if (path) path = normalize('.' + sep + path);
    if (UP_PATH.test(path)) return { status: 403 };
    parts = path.split(sep);
    // `join` normalizes what it joins (send normalizes its result again, to the same path).
    path = join(root, path);
  } else {
    if (UP_PATH.test(path)) return { status: 403 };
    parts = normalize(path).split(sep);
    path = resolve(path);
  }

  if (hasDotSegment(parts)) {
    const mode = dotfiles ?? (parts[parts.length - 1].charCodeAt(0) === 0x2e ? (hidden ? 'allow' : 'ignore') : 'allow');
    if (mode === 'deny') return { status: 403 };
    if (mode !== 'allow') return { status: 404 };
  }
  return { path };
}
