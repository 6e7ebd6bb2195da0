// Instructions from spawning a server to its first answer, counted by valgrind's
// callgrind: cold start as a number that does not move with the machine's load, where
// the milliseconds of `--extras=start` move by ±15 ms on a shared host (bench/README.md,
// "Cold start in instructions"). What it counts is user-space instructions of the
// server process, run with --single-threaded (V8 compiles and collects on the main
// thread, where callgrind sees it), from its first instruction until it has answered one
// request and exited on the harness's SIGTERM.
//
// Left out of every count: V8's choice of the process's hash seed
// (`HashSeed::InitializeRoots`), which tests random numbers for primality and takes 7 to
// 24 million instructions at random, more than most changes this tool is for.
//
//   node bench/start-instructions.mjs [--node=26] [--top=25] [--path=/] [--method=GET]
//     label='command args...' [label='command args...' ...]
//
//   node bench/start-instructions.mjs node='bench/servers/node-http.mjs hello' \
//     webapp='bench/servers/webapp.mjs hello'
//
// The first server is the reference: the others are listed with what differs from it,
// by the phase of V8 or Node the instructions belong to, then function by function
// (self cost). Needs valgrind (`apt-get install -y valgrind`). About 20 s per server.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { nodeBinary } from '../scripts/node-lines.mjs';
import { SHARED_OPTIONS, measureEach, requestOf, sendRequests } from './lib/request-load.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { ...SHARED_OPTIONS },
});
if (positionals.length === 0) {
  console.error("usage: node bench/start-instructions.mjs [options] label='server.mjs args' ...");
  process.exit(2);
}
const nodePath = values.node ? nodeBinary(values.node).path : process.execPath;
const request = requestOf(values);

/** V8's hash seed: random work, subtracted from every count (see the top of this file). */
const HASH_SEED = ['v8::internal::HashSeed::InitializeRoots'];

/**
 * The phases reported, each the inclusive cost of the functions that enter it (their
 * name as callgrind_annotate prints it, up to the first parenthesis). A collection that
 * comes while a file or function compiles is counted in both (they are small at start:
 * one or two scavenges).
 */
const PHASES = [
  // A CommonJS file compiled by Node's loader (ES modules: their compile): parsing it,
  // its eagerly compiled functions (each module of dist/cjs/core.js) and a pre-parse of
  // all the others.
  ['compiling files', ['node::contextify::CompileFunctionForCJSLoader', 'node::loader::ModuleWrap::New']],
  // A function compiled to bytecode at its first call, its source parsed again.
  ['compiling at first call', ['v8::internal::Runtime_CompileLazy']],
  ['optimizing', ['v8::internal::Compiler::CompileOptimized', 'v8::internal::Compiler::CompileBaseline']],
  ['collecting garbage', ['v8::internal::Heap::CollectGarbage']],
];

/** Starts the server under callgrind; resolves once it listens. */
function start(label, command, dir) {
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${join(dir, 'callgrind.out')}`,
      nodePath,
      '--single-threaded',
      ...command.split(' '),
    ],
    { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, NODE_ENV: 'production' } },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const ready = /listening (\d+)/.exec(output);
      if (ready) resolve({ child, port: Number(ready[1]) });
    });
    child.once('exit', (code) => reject(new Error(`${label} exited (${code}) before listening`)));
    child.once('error', reject);
  });
}

/**
 * Cost by function from callgrind_annotate: `inclusive` or self. Functions called in a
 * cycle are listed once per depth ('2, '3...): the outermost, the largest, is kept.
 */
function annotate(file, inclusive) {
  const text = execFileSync(
    'callgrind_annotate',
    [`--inclusive=${inclusive ? 'yes' : 'no'}`, '--threshold=100', file],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  const costs = new Map();
  let total = 0;
  for (const line of text.split('\n')) {
    const row = /^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)$/.exec(line);
    if (!row) continue;
    const cost = Number(row[1].replaceAll(',', ''));
    if (row[2].startsWith('PROGRAM TOTALS')) {
      total = cost;
      continue;
    }
    const name = row[2]
      .replace(/^\?\?\?:/, '')
      .replace(/ \[[^\]]*\]$/, '')
      .replace(/'\d+$/, '');
    costs.set(name, Math.max(costs.get(name) ?? 0, cost));
  }
  return { total, costs };
}

/**
 * The inclusive cost of the functions named `names`, added up. A name's overloads (a
 * binding and the function behind it, both listed) are one entry: the largest counts.
 */
function costOf(costs, names) {
  let sum = 0;
  for (const entry of names) {
    let largest = 0;
    for (const [name, cost] of costs) if (name.startsWith(entry + '(')) largest = Math.max(largest, cost);
    sum += largest;
  }
  return sum;
}

async function measure(label, command) {
  const dir = mkdtempSync(join(tmpdir(), 'webapp-start-instructions-'));
  try {
    const server = await start(label, command, dir);
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    await sendRequests(server.port, 1, request);
    server.child.kill('SIGTERM');
    await exited;
    const file = join(dir, 'callgrind.out');
    const inclusive = annotate(file, true);
    const self = annotate(file, false).costs;
    const hashSeed = costOf(inclusive.costs, HASH_SEED);
    // What the hash seed's choice runs is left out of the comparison by function too.
    for (const name of self.keys()) if (/^(detail::sprp|v8::internal::HashSeed::)/.test(name)) self.delete(name);
    const phases = new Map(PHASES.map(([phase, entries]) => [phase, costOf(inclusive.costs, entries)]));
    return { label, total: inclusive.total - hashSeed, phases, self };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const round = (n) => Math.round(n).toLocaleString('en-US');
const millions = (n) => (n / 1e6).toFixed(1);
const results = await measureEach(positionals, measure);

const version = execFileSync(nodePath, ['--version'], { encoding: 'utf8' }).trim();
console.log(`\nNode ${version}: instructions from spawn to the first answer (${values.method} ${values.path}),`);
console.log('in millions, V8 hash seed left out\n');
const phaseNames = PHASES.map(([phase]) => phase);
console.log(`| server | in all | ÷ first | ${phaseNames.join(' | ')} | the rest |`);
console.log(`|---|--:|--:|${phaseNames.map(() => '--:|').join('')}--:|`);
for (const { label, total, phases } of results) {
  const inPhases = [...phases.values()].reduce((a, b) => a + b, 0);
  const cells = [millions(total), (total / results[0].total).toFixed(3), ...[...phases.values()].map(millions)];
  console.log(`| ${label} | ${cells.join(' | ')} | ${millions(total - inPhases)} |`);
}

const top = Number(values.top ?? 25);
const reference = results[0];
for (const result of results.slice(1)) {
  const names = new Set([...reference.self.keys(), ...result.self.keys()]);
  const changes = [...names]
    .map((name) => [name, (result.self.get(name) ?? 0) - (reference.self.get(name) ?? 0)])
    .filter(([, change]) => change !== 0)
    .sort((a, b) => b[1] - a[1]);
  console.log(`\n${result.label} against ${reference.label}: most added, then most saved (self cost)\n`);
  for (const [name, change] of changes.slice(0, top))
    console.log(`${change > 0 ? '+' : ''}${round(change)}`.padStart(12), ' ', name.slice(0, 120));
  console.log('         ...');
  for (const [name, change] of changes.slice(-Math.min(10, top)))
    console.log(`${round(change)}`.padStart(12), ' ', name.slice(0, 120));
}
