// Requests per second through examples/cluster with 1 worker and with N.
//
//   node bench/cluster.mjs [--workers=N] [--duration=10] [--connections=64] [--path=/]
//
// Each configuration starts the cluster (no Redis: the plain JSON route),
// checks one request, warms up for 2 s, then measures `duration` seconds with
// wrk (autocannon when wrk is missing) from this machine. The load generator
// shares the CPUs with the workers, so on a machine with few cores the N-worker
// figure says how the cluster scales there, not what N cores would give alone.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = Object.fromEntries(process.argv.slice(2).map((arg) => arg.replace(/^--/, '').split('=')));
const workers = Number(args.workers) || availableParallelism();
const duration = Number(args.duration) || 10;
const connections = Number(args.connections) || 64;
const path = args.path || '/';

async function freePort() {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startCluster(count) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, 'examples/cluster/cluster.js')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', WORKERS: String(count), NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8');
  while (!/listening on/.test(output)) {
    if (child.exitCode !== null) throw new Error(`the cluster exited:\n${output}`);
    output += (await once(child.stdout, 'data'))[0];
  }
  child.stdout.resume();
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  await res.arrayBuffer();
  return { port, stop: () => new Promise((resolve) => child.once('exit', resolve).kill('SIGTERM')) };
}

const hasWrk = spawnSync('wrk', ['--version']).error === undefined;

async function measure(port, seconds) {
  const url = `http://127.0.0.1:${port}${path}`;
  if (hasWrk) {
    const run = spawnSync('wrk', ['-t2', `-c${connections}`, `-d${seconds}s`, url], { encoding: 'utf8' });
    const match = /Requests\/sec:\s+([\d.]+)/.exec(run.stdout);
    if (!match) throw new Error(`wrk gave no figure:\n${run.stdout}${run.stderr}`);
    return Number(match[1]);
  }
  const { default: autocannon } = await import('autocannon');
  const result = await autocannon({ url, connections, duration: seconds });
  return result.requests.average;
}

const results = [];
for (const count of [...new Set([1, workers])]) {
  const cluster = await startCluster(count);
  try {
    await measure(cluster.port, 2);
    results.push({ workers: count, rps: await measure(cluster.port, duration) });
  } finally {
    await cluster.stop();
  }
}
console.log(
  `examples/cluster, GET ${path}, ${connections} connections, ${duration} s, ` +
    `${hasWrk ? 'wrk' : 'autocannon'}, ${availableParallelism()} CPUs`,
);
for (const { workers: count, rps } of results) {
  console.log(
    `${String(count).padStart(3)} worker(s): ${Math.round(rps).toLocaleString('en-US').padStart(9)} req/s  ` +
      `(${(rps / results[0].rps).toFixed(2)}x)`,
  );
}
