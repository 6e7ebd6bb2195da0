/**
 * withoutCoverage() keeps coverage out of the processes given its environment, and out
 * of their own children, however the process that spawns them was started.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

/**
 * Runs `source` under coverage into a fresh folder; the processes that recorded there.
 * Counted by process id, from the files' names (`coverage-<pid>-<time>-<thread>.json`):
 * a worker thread records a file of its own, and the spawning process may start one
 * (tsx compiles a file it has not cached with esbuild, whose synchronous calls run on a
 * worker thread).
 */
function processesRecordedBy(source: string): string[] {
  const folder = mkdtempSync(join(tmpdir(), 'webapp-coverage-'));
  try {
    const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', source], {
      cwd: __dirname,
      encoding: 'utf8',
      env: { ...process.env, NODE_V8_COVERAGE: folder },
    });
    assert.equal(run.status, 0, run.stderr);
    const files = readdirSync(folder);
    const pids = new Set(files.map((file) => /^coverage-(\d+)-/.exec(file)?.[1] ?? file));
    return [...pids];
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const spawnChildThatSpawns = (env: string) => `
  const { spawnSync } = require('node:child_process');
  const { withoutCoverage } = require('./without-coverage');
  const grandchild = "require('node:child_process').spawnSync(process.execPath, ['-e', ''])";
  const child = spawnSync(process.execPath, ['-e', grandchild], { env: ${env} });
  if (child.status !== 0) throw new Error('the child failed');
`;

describe('withoutCoverage()', () => {
  it('records coverage of neither the child nor its children: only the spawning process is recorded', () => {
    assert.equal(processesRecordedBy(spawnChildThatSpawns('withoutCoverage()')).length, 1);
  });

  it('is needed: an env without the variable still gets it from the spawning process', () => {
    const env = '(() => { const env = { ...process.env }; delete env.NODE_V8_COVERAGE; return env; })()';
    assert.equal(processesRecordedBy(spawnChildThatSpawns(env)).length, 3);
  });
});
