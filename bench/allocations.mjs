// Bytes allocated per request, by the function that allocated them: V8's sampling heap
// profiler in each server (bench/lib/allocation-sampler.cjs), over a fixed number of
// requests after a warm-up. Garbage is what the young generation's collections cost:
// the more bytes a request leaves behind, the more often they run (bench/README.md,
// "Garbage per request"). Like instruction counts, the figures barely move between
// runs (about 1%: the profiler samples), where time per request moves by 10 to 30% on
// a shared machine.
//
//   node bench/allocations.mjs [--node=26] [--warmup=20000] [--requests=20000] [--top=25]
//     [--interval=64] [--path=/] [--method=GET] [--body-file=F --content-type=T]
//     [--header='name: value'] label='command args...' [label='command args...' ...]
//
// Each command prints `listening <port>` when ready, as bench/servers/*.mjs do; the
// first server is the reference, the others are listed with what differs from it:
//   node bench/allocations.mjs node='bench/servers/node-http.mjs hello' webapp='bench/servers/webapp.mjs hello'
// `--interval` is the profiler's mean distance between samples, in bytes.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { nodeBinary } from '../scripts/node-lines.mjs';
import { SHARED_OPTIONS, measureEach, requestOf, sendRequests } from './lib/request-load.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    ...SHARED_OPTIONS,
    warmup: { type: 'string', default: '20000' },
    requests: { type: 'string', default: '20000' },
    interval: { type: 'string', default: '64' },
  },
});
if (positionals.length === 0) {
  console.error("usage: node bench/allocations.mjs [options] label='server.mjs args' ...");
  process.exit(2);
}

const nodePath = values.node ? nodeBinary(values.node).path : process.execPath;
const sampler = fileURLToPath(new URL('./lib/allocation-sampler.cjs', import.meta.url));
const request = requestOf(values);

/** Resolves with the first match of `pattern` in what the child has printed (now or later). */
function printed(child, pattern) {
  return new Promise((resolve, reject) => {
    const look = () => {
      const match = pattern.exec(child.output);
      if (!match) return;
      child.stdout.off('data', look);
      resolve(match);
    };
    child.stdout.on('data', look);
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before printing ${pattern}`)));
    look();
  });
}

async function measure(label, command, dir) {
  const out = join(dir, `${label}.json`);
  const child = spawn(nodePath, ['--require', sampler, ...command.split(' ')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      BENCH_ALLOCATIONS_OUT: out,
      BENCH_ALLOCATIONS_INTERVAL: values.interval,
    },
  });
  child.output = '';
  child.stdout.on('data', (chunk) => (child.output += chunk));
  try {
    const port = Number((await printed(child, /listening (\d+)/))[1]);
    await sendRequests(port, Number(values.warmup), request);
    child.kill('SIGUSR2');
    await printed(child, /^sampling$/m);
    await sendRequests(port, Number(values.requests), request);
    child.kill('SIGUSR2');
    await printed(child, /^written$/m);
  } finally {
    child.kill('SIGTERM');
  }
  const count = Number(values.requests);
  const perRequest = new Map();
  for (const [name, bytes] of JSON.parse(readFileSync(out, 'utf8'))) {
    const key = comparable(name);
    perRequest.set(key, (perRequest.get(key) ?? 0) + bytes / count);
  }
  let total = 0;
  for (const bytes of perRequest.values()) total += bytes;
  return { label, perRequest, total };
}

/**
 * A function's name and place without the folder of its package: the same function of
 * two builds (before and after a change, in two folders) is then one row.
 */
function comparable(name) {
  return name.replace(/ (?:file:\/\/)?\S*\/(dist|node_modules|bench)\/(\S*)$/, ' $1/$2');
}

const round = (n) => Math.round(n).toLocaleString('en-US');
const dir = mkdtempSync(join(tmpdir(), 'webapp-allocations-'));
let results;
try {
  results = await measureEach(positionals, (label, command) => measure(label, command, dir));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const version = execFileSync(nodePath, ['--version'], { encoding: 'utf8' }).trim();
console.log(`\nNode ${version}, ${values.method} ${values.path},`);
console.log(`bytes allocated per request over ${values.requests} requests after ${values.warmup}\n`);
console.log('| server | bytes per request | ÷ first |');
console.log('|---|--:|--:|');
for (const { label, total } of results)
  console.log(`| ${label} | ${round(total)} | ${(total / results[0].total).toFixed(3)} |`);

const top = Number(values.top);
const line = (bytes, name, signed) => `${((signed && bytes >= 0 ? '+' : '') + round(bytes)).padStart(8)}  ${name}`;
const [reference] = results;
console.log(`\n${reference.label}: the ${top} functions that allocate most\n`);
for (const [name, bytes] of [...reference.perRequest].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(line(bytes, name, false));
for (const result of results.slice(1)) {
  const differences = new Map();
  for (const name of new Set([...result.perRequest.keys(), ...reference.perRequest.keys()])) {
    differences.set(name, (result.perRequest.get(name) ?? 0) - (reference.perRequest.get(name) ?? 0));
  }
  const sorted = [...differences].filter(([, bytes]) => Math.abs(bytes) >= 1).sort((a, b) => b[1] - a[1]);
  console.log(`\n${result.label} against ${reference.label}: most added, then most saved\n`);
  const saved = Math.ceil(top / 2);
  const shown = sorted.length <= top + saved ? sorted : [...sorted.slice(0, top), null, ...sorted.slice(-saved)];
  for (const entry of shown) console.log(entry === null ? '     ...' : line(entry[1], entry[0], true));
}
