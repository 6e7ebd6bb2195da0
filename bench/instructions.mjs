// Instructions per request of one or more servers, counted by valgrind's callgrind:
// the same number on every run, where requests per second and CPU time move by 10 to
// 30% on a shared machine. A change of 1 or 2% to the hot path shows here and nowhere
// else. What it counts is user-space instructions of the server process: not the
// kernel's side of the socket, not cache misses, not other threads (the server runs
// with --single-threaded, so V8 compiles and collects on its main thread, and both are
// reported apart from the rest). For one server before and after a change, fewer
// instructions have meant less CPU time in every case measured here; between two
// different servers the two can disagree (bench/README.md, "Instructions per request").
//
//   node bench/instructions.mjs [--node=26] [--warmup=20000] [--requests=3000] [--top=25]
//     [--path=/] [--method=GET] [--body-file=F --content-type=T] [--header='name: value']
//     [--cache-sim] [--callers=TEXT] label='command args...' [label='command args...' ...]
//
// `--callers=TEXT` also lists, per server, who calls the functions whose name contains
// TEXT, and what those calls cost them inclusively per request (for a function of V8's
// or the C library, such as a string flattening, whose self cost alone does not say
// which code of the request asked for it).
//
// `--cache-sim` also counts L1 cache misses per request, of a simulated 32 KB L1 for
// code and one for data (as on this machine's cores), with 1 MB behind them. At tens of
// thousands of requests per second nearly every cache line of code a request runs has
// been evicted since the last request, so code spread over more bytes costs time that
// the instruction count does not show (bench/README.md, "Where the clock goes").
//
// Compiled functions are named without their folder and line (`JS:*'step dist/cjs/core.js`),
// so two builds of webapp in two folders, before and after a change, compare row by row.
//
// Each command prints `listening <port>` when ready, as bench/servers/*.mjs do:
//   node bench/instructions.mjs node='bench/servers/node-http.mjs hello' webapp='bench/servers/webapp.mjs hello'
// The first server is the reference: the others are listed with what differs from it.
// Needs valgrind (`apt-get install -y valgrind`). About a minute per server.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { nodeBinary } from '../scripts/node-lines.mjs';
import { SHARED_OPTIONS, measureEach, requestOf, sendRequests } from './lib/request-load.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    ...SHARED_OPTIONS,
    warmup: { type: 'string', default: '20000' },
    requests: { type: 'string', default: '3000' },
    'cache-sim': { type: 'boolean', default: false },
    callers: { type: 'string' },
  },
});
if (positionals.length === 0) {
  console.error("usage: node bench/instructions.mjs [options] label='server.mjs args' ...");
  process.exit(2);
}

const nodePath = values.node ? nodeBinary(values.node).path : process.execPath;
const request = requestOf(values);

/** Starts the server under callgrind, collection on; resolves once it listens. */
function start(label, command, dir) {
  const args = [
    '--tool=callgrind',
    ...(values['cache-sim'] ? ['--cache-sim=yes', '--I1=32768,8,64', '--D1=32768,8,64', '--LL=1048576,16,64'] : []),
    '--dump-instr=yes',
    '--dump-line=no',
    '--compress-strings=no',
    '--compress-pos=no',
    `--callgrind-out-file=${join(dir, 'callgrind.%p')}`,
    nodePath,
    // V8 compiles and collects on the main thread, where callgrind sees them; the
    // perf map names the functions V8 compiled, by address.
    '--single-threaded',
    '--perf-basic-prof',
    // Node 26's V8 also writes a log of code events with the perf map, by default into the
    // working directory (the repository's): into the run's own folder instead.
    `--logfile=${join(dir, 'v8.log')}`,
    '--no-logfile-per-isolate',
    ...command.split(' '),
  ];
  const child = spawn('valgrind', args, {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const ready = /listening (\d+)/.exec(output);
      if (ready) resolve({ label, child, port: Number(ready[1]) });
    });
    child.once('exit', (code) => reject(new Error(`${label} exited (${code}) before listening`)));
    child.once('error', reject);
  });
}

/** The functions V8 compiled, sorted by start address, from the perf map the process wrote. */
function readPerfMap(pid) {
  const entries = readFileSync(`/tmp/perf-${pid}.map`, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [start, size, ...name] = line.split(' ');
      return {
        start: parseInt(start, 16),
        end: parseInt(start, 16) + parseInt(size, 16),
        name: comparable(name.join(' ')),
      };
    })
    .sort((a, b) => a.start - b.start);
  return (address) => {
    let low = 0;
    let high = entries.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (entries[mid].start > address) high = mid - 1;
      else if (entries[mid].end <= address) low = mid + 1;
      else return entries[mid].name;
    }
    return 'JIT code (unnamed)';
  };
}

/**
 * A JIT-compiled function's name without the folder of its package and its line:
 * the same function of two builds (before and after a change, in two folders) is
 * then one row of the comparison.
 */
function comparable(name) {
  return name.replace(/ \S*\/(dist|node_modules|bench)\/(\S*?)(:\d+:\d+)?$/, ' $1/$2');
}

/** What an entry belongs to: V8 compiling, V8 collecting garbage, or the work itself. */
function categoryOf(name) {
  if (/compiler::|maglev::|Turbofan|turboshaft|Pipeline|Zone::|baseline::/.test(name)) return 'compile';
  if (/Scaveng|Heap::|heap::|GC|Marking|Sweeper|IterateObjectCache|RootScavenge|Evacuat/.test(name)) return 'gc';
  return 'work';
}

/**
 * Self cost by function from a callgrind dump, `{ instructions, misses }` (misses: L1
 * code and data misses, 0 without --cache-sim): named functions as callgrind names
 * them, code V8 compiled by the perf map's names. A cost line right after a `calls=`
 * line is the call's inclusive cost, counted where the callee is.
 */
function readDump(file, nameOf) {
  const self = new Map();
  const text = readFileSync(file, 'utf8');
  const events = /^events: (.*)$/m.exec(text)[1].split(' ');
  // Each cost line is an address, then one number per event (trailing zeros left out).
  const missColumns = ['I1mr', 'D1mr', 'D1mw'].map((event) => events.indexOf(event) + 1).filter((i) => i > 0);
  let fn = '';
  let afterCall = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('fn=')) fn = line.slice(3);
    else if (line.startsWith('calls=')) afterCall = true;
    else if (line.startsWith('0x')) {
      if (afterCall) {
        afterCall = false;
        continue;
      }
      const fields = line.split(' ');
      const name = fn.startsWith('0x') || fn === '???' ? nameOf(parseInt(fields[0], 16)) : fn;
      const cost = self.get(name) ?? { instructions: 0, misses: 0 };
      cost.instructions += Number(fields[1]);
      for (const column of missColumns) cost.misses += Number(fields[column] ?? 0);
      self.set(name, cost);
    } else afterCall = false;
  }
  return self;
}

/**
 * Calls into functions whose name contains `text`, by caller and callee: inclusive
 * instructions of those calls. A JIT-compiled caller is named by its call site's
 * address, a JIT-compiled callee by its target address, through the perf map.
 */
function readCallers(file, nameOf, text) {
  const calls = new Map();
  const named = (name, address) => (name.startsWith('0x') || name === '???' ? nameOf(address) : name);
  let fn = '';
  let callee = '';
  let target = 0;
  let pending = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) fn = line.slice(3);
    else if (line.startsWith('cfn=')) callee = line.slice(4);
    else if (line.startsWith('calls=')) {
      target = parseInt(line.split(' ')[1], 16);
      pending = true;
    } else if (pending && line.startsWith('0x')) {
      pending = false;
      const [site, cost] = line.split(' ');
      const calleeName = named(callee, target);
      if (!calleeName.includes(text)) continue;
      const key = `${named(fn, parseInt(site, 16))}  →  ${calleeName}`;
      calls.set(key, (calls.get(key) ?? 0) + Number(cost));
    } else pending = false;
  }
  return calls;
}

/** The dump `callgrind_control -d` asked for, once callgrind has written it (within seconds). */
async function dumpFile(dir) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const name = readdirSync(dir).find((file) => /^callgrind\.\d+\.\d+$/.test(file));
    if (name && /^totals:/m.test(readFileSync(join(dir, name), 'utf8').slice(-4096))) return name;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return undefined;
}

async function measure(label, command) {
  const dir = mkdtempSync(join(tmpdir(), 'webapp-instructions-'));
  const server = await start(label, command, dir);
  try {
    await sendRequests(server.port, Number(values.warmup), request);
    execFileSync('callgrind_control', ['-z', String(server.child.pid)], { stdio: 'ignore' });
    await sendRequests(server.port, Number(values.requests), request);
    execFileSync('callgrind_control', ['-d', String(server.child.pid)], { stdio: 'ignore' });
    const dump = await dumpFile(dir);
    if (!dump) throw new Error(`${label}: callgrind wrote no dump`);
    const nameOf = readPerfMap(server.child.pid);
    const self = readDump(join(dir, dump), nameOf);
    const count = Number(values.requests);
    const callers = values.callers ? readCallers(join(dir, dump), nameOf, values.callers) : new Map();
    for (const [call, cost] of callers) callers.set(call, cost / count);
    const perRequest = new Map([...self].map(([name, cost]) => [name, cost.instructions / count]));
    const missesPerRequest = new Map([...self].map(([name, cost]) => [name, cost.misses / count]));
    const totals = { work: 0, compile: 0, gc: 0, misses: 0 };
    for (const [name, cost] of perRequest) totals[categoryOf(name)] += cost;
    for (const [name, misses] of missesPerRequest) if (categoryOf(name) === 'work') totals.misses += misses;
    return { label, perRequest, missesPerRequest, totals, callers };
  } finally {
    // callgrind writes a last dump as the process exits: the folder is removed after that.
    if (server.child.exitCode === null && server.child.signalCode === null) {
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
    rmSync(`/tmp/perf-${server.child.pid}.map`, { force: true });
  }
}

const round = (n) => Math.round(n).toLocaleString('en-US');
const results = await measureEach(positionals, measure);

console.log(
  `\nNode ${execFileSync(nodePath, ['--version'], { encoding: 'utf8' }).trim()}, ${values.method} ${values.path},`,
);
const cacheSim = values['cache-sim'];
console.log(`instructions per request over ${values.requests} requests after ${values.warmup}\n`);
console.log(
  `| server | work | ÷ first | V8 compiling | V8 collecting |${cacheSim ? ' L1 misses of the work | ÷ first |' : ''}`,
);
console.log(`|---|--:|--:|--:|--:|${cacheSim ? '--:|--:|' : ''}`);
for (const { label, totals } of results) {
  const ratio = (totals.work / results[0].totals.work).toFixed(3);
  const misses = cacheSim
    ? ` ${round(totals.misses)} | ${(totals.misses / results[0].totals.misses).toFixed(3)} |`
    : '';
  console.log(
    `| ${label} | ${round(totals.work)} | ${ratio} | ${round(totals.compile)} | ${round(totals.gc)} |${misses}`,
  );
}

/** A function's line: instructions (or their difference), and with --cache-sim its L1 misses. */
function row(instructions, misses, name, signed) {
  const sign = (n) => (signed && n >= 0 ? '+' : '') + round(n);
  const missColumn = cacheSim ? `${sign(misses).padStart(7)} L1  ` : '';
  return `${sign(instructions).padStart(8)}  ${missColumn}${name.slice(0, 120)}`;
}

const reference = results[0];
for (const result of results) {
  const rows = [...result.perRequest].filter(([name]) => categoryOf(name) === 'work');
  const missesOf = (r, name) => r.missesPerRequest.get(name) ?? 0;
  if (result === reference) {
    console.log(`\n${result.label}: the ${values.top} costliest functions\n`);
    for (const [name, cost] of rows.sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
      console.log(row(cost, missesOf(result, name), name, false));
    continue;
  }
  const differences = new Map(rows.map(([name, cost]) => [name, cost - (reference.perRequest.get(name) ?? 0)]));
  for (const [name, cost] of reference.perRequest) {
    if (categoryOf(name) === 'work' && !result.perRequest.has(name)) differences.set(name, -cost);
  }
  const sorted = [...differences].sort((a, b) => b[1] - a[1]);
  const missDifference = (name) => missesOf(result, name) - missesOf(reference, name);
  console.log(`\n${result.label} against ${reference.label}: most added, then most saved\n`);
  for (const [name, cost] of sorted.slice(0, Number(values.top)))
    console.log(row(cost, missDifference(name), name, true));
  console.log('     ...');
  for (const [name, cost] of sorted.slice(-Math.ceil(Number(values.top) / 2)))
    console.log(row(cost, missDifference(name), name, true));
}

if (values.callers) {
  for (const { label, callers } of results) {
    console.log(`\n${label}: calls into functions named …${values.callers}…, inclusive instructions per request\n`);
    for (const [call, cost] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
      console.log(`${round(cost).padStart(8)}  ${call.slice(0, 160)}`);
  }
}
