// node bench/querystring.mjs: webapp's extended query-string parser against qs
// on a few representative inputs, with the options Express 4 and body-parser pass.
// Not part of the tests. Each case alternates short rounds between the two parsers
// (so a noisy moment on a shared machine hits both) and reports each one's fastest
// round: for CPU-bound work the minimum is the estimate least disturbed by load.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { FORM_BODY } from './lib/workloads.mjs';

// The parser is compiled from its TypeScript source into one CommonJS file (as the
// build ships it: plain functions, no loader hooks in the way), so no build is needed.
const require = createRequire(import.meta.url);
const outDir = mkdtempSync(join(tmpdir(), 'webapp-qs-bench-'));
const outfile = join(outDir, 'querystring.cjs');
buildSync({
  entryPoints: [new URL('../src/querystring/index.ts', import.meta.url).pathname],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'es2022',
  outfile,
  logLevel: 'error',
});
const { parseExtended } = require(outfile);
rmSync(outDir, { recursive: true, force: true });
const qs = require('qs');

const express = { allowPrototypes: true, arrayLimit: 1000 };
const bodyParser = { allowPrototypes: true, arrayLimit: 100, depth: 32, strictDepth: true, parameterLimit: 1000 };
const form = Array.from({ length: 20 }, (_, i) => `field${i}=value+${i}%21`).join('&');
const CASES = [
  ['flat query (3 keys)', 'q=hello+world&page=2&sort=desc', express],
  [
    'nested objects',
    'user[name]=Ada&user[address][city]=London&user[address][zip]=N1&user[tags][]=a&user[tags][]=b',
    express,
  ],
  ['indexed array (10)', Array.from({ length: 10 }, (_, i) => `items[${i}][id]=${i}`).join('&'), express],
  ['form body (20 fields, escapes)', form, bodyParser],
  ['the `form` workload (21 fields, one nested)', FORM_BODY, bodyParser],
  ['repeated key (50)', 'id=1&'.repeat(49) + 'id=1', bodyParser],
];

const ROUNDS = 21;
const TARGET_MS = 20;

function timeRound(fn, input, options, iterations) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn(input, options);
  return Number(process.hrtime.bigint() - start) / iterations; // ns per parse
}

function calibrate(fn, input, options) {
  let iterations = 100;
  while (timeRound(fn, input, options, iterations) * iterations < TARGET_MS * 1e6) iterations *= 2;
  return iterations;
}

const rows = [];
for (const [name, input, options] of CASES) {
  const own = (s, o) => parseExtended(s, o);
  const theirs = (s, o) => qs.parse(s, o);
  const ownN = calibrate(own, input, options);
  const theirN = calibrate(theirs, input, options);
  const ownTimes = [];
  const theirTimes = [];
  for (let r = 0; r < ROUNDS; r++) {
    ownTimes.push(timeRound(own, input, options, ownN));
    theirTimes.push(timeRound(theirs, input, options, theirN));
  }
  const ownNs = Math.min(...ownTimes);
  const qsNs = Math.min(...theirTimes);
  rows.push({
    case: name,
    'webapp ns/op': Math.round(ownNs),
    'qs ns/op': Math.round(qsNs),
    'speed-up': `${(qsNs / ownNs).toFixed(2)}x`,
  });
}
console.table(rows);
