// node scripts/record-oracles.mjs [path-substring ...]
// Re-records the answers of the oracles that cannot run on every Node line
// (Connect 2.30, Express 3.21) into test/support/oracle-recordings/, by running
// the tests under Node 20, where they run, with WEBAPP_ORACLES=record. Lines
// where the oracle cannot run replay these (test/support/oracle-recording.ts).
// Without arguments every test runs and the directory is rewritten from scratch,
// so recordings of removed tests go too. Re-record after changing what a
// differential test sends to an oracle, and commit the result.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

const RECORDING_LINE = '20';
const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);
if (filters.length === 0) rmSync(join(root, 'test/support/oracle-recordings'), { recursive: true, force: true });
const result = spawnSync(process.execPath, [join(root, 'scripts/test.mjs'), '--node', RECORDING_LINE, ...filters], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, WEBAPP_ORACLES: 'record' },
});
if (result.status !== 0)
  console.error('\nSome tests failed while recording: the recordings of those files may be incomplete.');
process.exit(result.status ?? 1);
