/**
 * Type-checks scratch projects with a TypeScript compiler, all of them in one `tsc --build`
 * process: one start of the compiler, and the files the projects share (@types/node,
 * TypeScript's libs, webapp's declarations) read once. The projects stay separate
 * programs, each checked under its own options.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './scratch-project';
import { withoutCoverage } from './without-coverage';

/** The compilers the published types are checked with, by name. */
export const compilers = {
  'TypeScript 5.9': join(packageRoot, 'node_modules/typescript/bin/tsc'),
  'TypeScript 7': join(packageRoot, 'node_modules/typescript7/bin/tsc'),
} as const;

/**
 * Why the test of `compiler` is skipped here, or undefined when it runs: not installed,
 * or a TypeScript 7 whose tsc (an extensionless ES module) the first Node 20 releases
 * refuse to load.
 */
export function cannotRun(name: string, compiler: string): string | undefined {
  if (!existsSync(compiler)) return `${compiler} is not installed`;
  if (spawnSync(process.execPath, [compiler, '--version'], { env: withoutCoverage() }).status !== 0) {
    return `${name} does not run on Node ${process.version}`;
  }
  return undefined;
}

/**
 * Runs `compiler` on the projects (folders with a tsconfig.json), from `cwd`: the
 * diagnostics name their files relative to it. Resolves with tsc's exit code and output;
 * a failed compile is reported, not thrown.
 */
export function typeCheckProjects(
  compiler: string,
  projects: string[],
  cwd: string,
): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [compiler, '--build', '--force', ...projects],
      { cwd, timeout: 170_000, env: withoutCoverage(), maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        done({ code, output: String(stdout) + String(stderr) });
      },
    );
  });
}
