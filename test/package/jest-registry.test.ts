/**
 * The built package under Jest, whose module registry loads every file itself (not
 * through Node's `require` cache): many Express apps are tested this way. The modules
 * `require('webapp')` loads live in dist/cjs/core.js and the files loaded later reach
 * them through it (scripts/bundle-core.mjs), so under Jest too there is one instance
 * of each module, and an app serves. Jest also runs a test's modules in a realm of its
 * own, where Node's errors are not `instanceof Error`: the answers made from them must
 * be Express's there too (fixtures/jest/realm-errors.jest.cjs). Jest runs untransformed,
 * as for a package in node_modules.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { before, describe, it } from 'node:test';
import { ensureBuilt } from '../support/scratch-project';
import { withoutCoverage } from '../support/without-coverage';

const root = resolve(__dirname, '../..');
const fixtures = join(__dirname, 'fixtures/jest');

before(ensureBuilt);

describe('under Jest', () => {
  it('loads one instance of each module, automocks as Express, an app answers, other realms err as on Express', () => {
    const config = { rootDir: fixtures, testMatch: ['**/*.jest.cjs'], transform: {}, testEnvironment: 'node' };
    const run = spawnSync(
      process.execPath,
      [require.resolve('jest/bin/jest'), '--ci', '--config', JSON.stringify(config), '--json'],
      { cwd: root, encoding: 'utf8', timeout: 120_000, env: withoutCoverage() },
    );
    const report = JSON.parse(run.stdout) as { numPassedTests: number; numFailedTests: number };
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual({ passed: report.numPassedTests, failed: report.numFailedTests }, { passed: 4, failed: 0 });
  });
});
