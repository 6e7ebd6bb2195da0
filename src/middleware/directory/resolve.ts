/**
 * From a request's URL paths to the directory to list. The decoded path is
 * joined under the root and normalised; anything that lands outside the root
 * is refused (403) before the file system is asked, so no request can make the
 * listing read a directory above it. Undecodable paths and null bytes are 400.
 */
import { join, normalize, posix, resolve, sep } from 'node:path';

export type ListingTarget =
  | { status: 400 | 403; path?: undefined }
  | {
      status?: undefined;
      /** Absolute, normalised file system path of the directory. */
      path: string;
      /**
       * The decoded path the client asked for (before any mount point was stripped),
       * normalised: links are built from it.
       */
      shownPath: string;
      /** Whether the directory is the root itself (no `..` entry then). */
      isRoot: boolean;
    };

/** The root as every check compares it: absolute, normalised, ending with the separator. */
export function rootPathOf(root: string): string {
  return normalize(resolve(root) + sep);
}

function decode(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    // serve-index let the URIError escape (a 500 through Connect); it is the client's bad input.
    return undefined;
  }
}

/**
 * `pathname` is the request's path below the mount point, `originalPathname`
 * the full one; both still percent-encoded. `rootPath` comes from `rootPathOf`.
 */
export function resolveListing(rootPath: string, pathname: string, originalPathname: string): ListingTarget {
  const requested = decode(pathname);
  const shownPath = decode(originalPathname);
  if (requested === undefined || shownPath === undefined) return { status: 400 };

  const path = normalize(join(rootPath, requested));
  // Normalised as the directory it names was: every segment of it becomes a link to
  // the path so far, and `/./././.../sub/` (or `//`, or `x/../`) repeated over 16 KB of
  // URL made a page of tens of megabytes (quadratic in the URL; Connect's too).
  const shown = posix.normalize(shownPath);
  // A null byte is refused where it would reach the file system or the page: serve-index
  // looked only after normalising, so `/a%00/../sub/` (its `..` drops the segment) lists `/sub/`.
  if (path.includes('\0') || shown.includes('\0')) return { status: 400 };
  // `rootPath` ends with the separator, so "/srv/rootx" is not taken for "/srv/root".
  if (!(path + sep).startsWith(rootPath)) return { status: 403 };

  return { path, shownPath: shown, isRoot: normalize(path + sep) === rootPath };
}
