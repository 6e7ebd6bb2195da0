/**
 * Records every path the file-sending code hands to `fs` (stat, open, read
 * streams) while a test runs, so a test can prove nothing outside a directory
 * was touched. The core calls `fs` through the module object, so swapping the
 * functions here is seen by it.
 */
import fs from 'node:fs';

type AnyFn = (...args: never[]) => unknown;
const watched = ['stat', 'lstat', 'open', 'createReadStream', 'readFile', 'access'] as const;

export function spyOnFs(): { paths: string[]; restore(): void } {
  const paths: string[] = [];
  const originals = new Map<string, AnyFn>();
  const target = fs as unknown as Record<string, AnyFn>;
  for (const name of watched) {
    const original = target[name];
    originals.set(name, original);
    target[name] = function (this: unknown, ...args: never[]) {
      paths.push(String(args[0]));
      return original.apply(this, args);
    } as AnyFn;
  }
  return {
    paths,
    restore() {
      for (const [name, original] of originals) target[name] = original;
    },
  };
}
