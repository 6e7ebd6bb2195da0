// Runs every test/**/*.test.ts file with node's test runner (TypeScript loaded by tsx).
// Usage: npm test [-- path-substring ...] to run only files whose path contains a substring;
// npm test -- --node 26 [path-substring ...] runs them under another Node line (its binary
// comes from the npm registry's `node` package, see scripts/node-lines.mjs); --node 22,26
// runs the suite once per line, one after the other.
// test/integration/ (Redis, worker processes) runs only through `npm run test:integration`
// (`--integration`), so the unit suite stays fast and needs no redis-server.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { nodeBinary, takeNodeOption } from './node-lines.mjs';

const root = new URL('..', import.meta.url).pathname;
function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (name === 'node_modules' || name === 'fixtures') continue;
    if (name === 'integration' && !integration) continue;
    if (statSync(full).isDirectory()) out.push(...collect(full));
    else if (name.endsWith('.test.ts')) out.push(relative(root, full));
  }
  return out;
}
const integration = process.argv.includes('--integration');
let parsed;
try {
  parsed = takeNodeOption(process.argv.slice(2).filter((arg) => arg !== '--integration'));
} catch (error) {
  console.error(error.message);
  process.exit(2);
}
const filters = parsed.rest;
// The files that take longest (each runs TypeScript's compiler or a build over
// scratch projects, 20 to 40 s) start first: the runner takes files in the order given,
// a few at a time, and one of them started last would keep one core busy alone at the end.
const longestFirst = [
  'test/types/types.test.ts',
  'test/package/packed-types.test.ts',
  'test/package/concurrent-builds.test.ts',
];
const startsAt = (file) => (longestFirst.includes(file) ? longestFirst.indexOf(file) : longestFirst.length);
const files = collect(join(root, 'test'))
  .sort()
  .sort((a, b) => startsAt(a) - startsAt(b))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// The full run (and any run touching the package tests) tests the built output too.
if (filters.length === 0 || filters.some((f) => 'test/package'.includes(f) || f.includes('package'))) {
  const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
// The build above always runs on this Node (its output is the same for every line).
const binaries = parsed.lines ? parsed.lines.map(nodeBinary) : [{ version: process.version, path: process.execPath }];
let failed = 0;
for (const binary of binaries) {
  if (parsed.lines) console.log(`\n# Node ${binary.version} (${binary.path})`);
  // tsx's CommonJS hook only: the tests are CommonJS (package.json has no "type"), and
  // `--import tsx` also starts an ES module loader thread in every test process, a
  // quarter of a small test file's CPU time.
  const result = spawnSync(binary.path, ['--require', 'tsx/cjs', '--test', ...runnerOptions(binary.path), ...files], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'test' },
    // Where the runner has no per-test timeout (see runnerOptions), a hung file ends the run here.
    timeout: 30 * 60_000,
  });
  if (result.status !== 0) {
    failed = result.status ?? 1;
    if (parsed.lines) console.log(`# Node ${binary.version}: FAILED`);
  }
}
process.exit(failed);

/**
 * Three files at a time, and a test that hangs fails after 3 minutes. Many files wait on
 * child processes, sockets or a browser part of their time: on CI's two cores the suite
 * took 318 s two at a time, 274 s three at a time and 282 s four at a time (Node 20,
 * one run each). Node 20 before 20.11 has neither option (and refuses to start with
 * them): `engines` includes those releases, so the suite runs there with the runner's
 * defaults (one file at a time on this machine, a hang ended by the whole run's timeout).
 */
function runnerOptions(binaryPath) {
  const options = ['--test-concurrency=3', '--test-timeout=180000'];
  const probe = spawnSync(binaryPath, [...options, '-e', ''], { stdio: 'ignore' });
  return probe.status === 0 ? options : [];
}
