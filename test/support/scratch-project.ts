/**
 * A scratch project that loads this package the way an installed one is loaded: a
 * temporary folder whose node_modules/<name> links to the repository (built first when
 * dist/ is missing). For tests of the published entry points, from the built output.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository's root, the package itself. */
export const packageRoot = resolve(__dirname, '../..');

/**
 * Builds the package when there is no dist/ (a test file run on its own; `npm test` builds
 * first). dist/ is swapped in whole by the build, so one of its files stands for all.
 */
export function ensureBuilt(): void {
  if (!existsSync(join(packageRoot, 'dist/cjs/core.js')))
    execFileSync(process.execPath, [join(packageRoot, 'scripts/build.mjs')], { stdio: 'inherit' });
}

/** A new scratch folder (`prefix` names it) where `require(installedAs)` is this package. */
export function scratchProject(prefix: string, installedAs = 'webapp'): string {
  ensureBuilt();
  const project = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(packageRoot, join(project, 'node_modules', installedAs), 'dir');
  return project;
}
