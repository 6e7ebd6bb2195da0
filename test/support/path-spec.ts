/**
 * Mount and route paths as generated tests describe them: text, arrays, and RegExps
 * as source and flags, so a description can be printed, compared and sent to another
 * process as JSON, then made into what `app.use` and `app.get` are given.
 */
export type PathSpec = string | PathSpec[] | { re: string; flags: string };

/** The path a description stands for: the text, an array of paths, or a RegExp. */
export function makePath(path: PathSpec): string | RegExp | unknown[] {
  if (typeof path === 'string') return path;
  if (Array.isArray(path)) return path.map(makePath);
  return new RegExp(path.re, path.flags);
}
