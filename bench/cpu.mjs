// CPU time per request of several servers, measured in one run: what holds still
// on a shared, noisy machine when requests per second do not. Each server runs
// pinned to one CPU; wrk loads it from another for `--seconds`, in rounds that
// alternate between the servers; the server's main-thread CPU time over a round
// (/proc/<pid>/schedstat) divided by the requests wrk completed is one sample.
// Reports the lowest and the median sample per server and each one's ratio to
// the first server. Linux only (schedstat); needs wrk.
//
//   node bench/cpu.mjs [--rounds=10] [--seconds=1] [--path=/] [--connections=50] [--script=post.lua] \
//     label='command args...' label='command args...' ...
//
// `--script` is a wrk Lua script (a POST with a body, say), passed to wrk as `-s`.
//
// A command prints `listening <port>` when ready, as bench/servers/*.mjs do, e.g.
//   node bench/cpu.mjs node='node bench/servers/node-http.mjs hello' \
//     before='node ../old/bench/servers/webapp.mjs hello' after='node bench/servers/webapp.mjs hello'
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '1' },
    path: { type: 'string', default: '/' },
    connections: { type: 'string', default: '50' },
    'server-cpu': { type: 'string', default: '0' },
    'loader-cpu': { type: 'string', default: '1' },
    script: { type: 'string' },
  },
});
if (positionals.length === 0) {
  console.error("usage: node bench/cpu.mjs [options] label='command args' ...");
  process.exit(2);
}

const servers = positionals.map((spec) => {
  const at = spec.indexOf('=');
  return { label: spec.slice(0, at), command: spec.slice(at + 1).split(' ') };
});

function start(server) {
  return new Promise((resolve, reject) => {
    const child = spawn('taskset', ['-c', values['server-cpu'], ...server.command], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, NODE_ENV: 'production' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const ready = /listening (\d+)/.exec(output);
      if (ready) resolve({ ...server, child, port: ready[1], samples: [] });
    });
    child.once('exit', (code) => reject(new Error(`${server.label} exited (${code}) before listening`)));
  });
}

/** Main-thread CPU time of a process so far, in nanoseconds. */
const cpuTime = (pid) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);

/** Loads the server for `seconds`; returns the number of requests completed (all must be 2xx). */
function load(port, seconds) {
  const args = ['-c', values['loader-cpu'], 'wrk', '-t1', `-c${values.connections}`, `-d${seconds}s`];
  if (values.script) args.push('-s', values.script);
  const output = execFileSync('taskset', [...args, `http://127.0.0.1:${port}${values.path}`], { encoding: 'utf8' });
  if (/Non-2xx/.test(output)) throw new Error(`answers other than 2xx:\n${output}`);
  return Number(/(\d+) requests in/.exec(output)[1]);
}

const running = [];
try {
  for (const server of servers) running.push(await start(server));
  for (const server of running) load(server.port, 1); // warm-up
  for (let round = 0; round < Number(values.rounds); round++) {
    // Alternate the order, so a slow spell of the machine does not always hit the same server.
    for (const server of round % 2 ? [...running].reverse() : running) {
      const before = cpuTime(server.child.pid);
      const requests = load(server.port, values.seconds);
      server.samples.push((cpuTime(server.child.pid) - before) / 1000 / requests);
    }
  }
} finally {
  for (const server of running) server.child.kill();
}

const lowest = (samples) => Math.min(...samples);
const median = (samples) => [...samples].sort((a, b) => a - b)[samples.length >> 1];
const base = running[0];
console.log(`| server | lowest µs/request | median µs/request | lowest ÷ ${base.label} | median ÷ ${base.label} |`);
console.log('|---|--:|--:|--:|--:|');
for (const server of running) {
  const [low, mid] = [lowest(server.samples), median(server.samples)];
  const ratio = (value, of) => (value / of(base.samples)).toFixed(2);
  console.log(
    `| ${server.label} | ${low.toFixed(1)} | ${mid.toFixed(1)} | ${ratio(low, lowest)} | ${ratio(mid, median)} |`,
  );
}
process.exit(0);
