// The measurements beside throughput, each on the `hello` server of every
// framework: p99 latency under load, resident memory after a fixed number of
// requests, and cold start (spawn to the first 200).
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { fetchOnce } from './probe.mjs';
import { startServer } from './servers.mjs';

export const EXTRAS = ['p99', 'rss', 'start'];
export const LATENCY_CONNECTIONS = 64;
export const RSS_REQUESTS = 10_000;
const RSS_CONCURRENCY = 16;
export const COLD_STARTS = 5;
/**
 * Fresh servers whose RSS is measured, the median reported: on Node 24 and 26 one
 * process's RSS after the same 10,000 requests varies by 5 to 10 MB from start to start
 * (memory of V8's compilers that the C allocator keeps), more than the target's margin.
 */
export const RSS_SAMPLES = 3;

/** Resident set size of a process in bytes, from /proc (Linux); null elsewhere. */
export function rssOf(pid) {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** `count` GET requests over keep-alive connections, `concurrency` at a time; rejects on the first non-200. */
export function sendRequests(port, path, count, concurrency) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let sent = 0;
  const one = () =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end();
    });
  const worker = async () => {
    while (sent < count) {
      sent++;
      await one();
    }
  };
  return Promise.all(Array.from({ length: concurrency }, worker)).finally(() => agent.destroy());
}

/** Milliseconds from spawning the server to its first 200, the fastest of `COLD_STARTS` starts. */
async function coldStart(framework, hello, { node, cpu, env, fixtures }) {
  const times = [];
  for (let i = 0; i < COLD_STARTS; i++) {
    const started = process.hrtime.bigint();
    const server = await startServer(framework, hello.kind, { cpu, env, node });
    if (server.unsupported) return null;
    try {
      const answer = await fetchOnce(server.port, hello, fixtures);
      if (answer.status !== 200) throw new Error(`status ${answer.status}`);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    } finally {
      await server.stop();
    }
  }
  return Math.min(...times);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Bytes resident in a fresh server after RSS_REQUESTS requests, the median of RSS_SAMPLES servers. */
async function residentSize(framework, hello, { node, cpu, env, live }) {
  const sizes = [];
  for (let i = 0; i < RSS_SAMPLES; i++) {
    const server = await startServer(framework, hello.kind, { cpu, env, node });
    if (server.unsupported) return null;
    live.add(server);
    try {
      await sendRequests(server.port, hello.path, RSS_REQUESTS, RSS_CONCURRENCY);
      const size = rssOf(server.pid);
      if (size === null) return null;
      sizes.push(size);
    } finally {
      await server.stop();
      live.delete(server);
    }
  }
  return median(sizes);
}

/**
 * For each framework: `{ p99, rss, start }` (ms, bytes, ms; null where not
 * measured) or `{ failed }`. `measure` runs the load generator.
 */
export async function measureExtras(frameworks, hello, context) {
  const { extras, node, cpu, env, fixtures, measure, seconds, rounds, warmup, live } = context;
  const out = {};
  for (const framework of frameworks) {
    const entry = { p99: null, rss: null, start: null };
    out[framework.id] = entry;
    try {
      if (extras.includes('start')) entry.start = await coldStart(framework, hello, { node, cpu, env, fixtures });
      // What a small app holds once it has served, in processes that did nothing else.
      if (extras.includes('rss')) entry.rss = await residentSize(framework, hello, { node, cpu, env, live });
      if (!extras.includes('p99')) continue;
      const server = await startServer(framework, hello.kind, { cpu, env, node });
      if (server.unsupported) continue;
      live.add(server);
      try {
        await measure(server.port, { seconds: warmup, connections: LATENCY_CONNECTIONS, latency: true });
        const p99s = [];
        for (let round = 0; round < rounds; round++) {
          const measured = await measure(server.port, { seconds, connections: LATENCY_CONNECTIONS, latency: true });
          if (measured.p99 !== null) p99s.push(measured.p99);
        }
        // The lowest p99 of the rounds: as for throughput, noise on a shared machine only adds latency.
        entry.p99 = p99s.length > 0 ? Math.min(...p99s) : null;
      } finally {
        await server.stop();
        live.delete(server);
      }
    } catch (error) {
      out[framework.id] = { failed: error.message.split('\n')[0] };
    }
  }
  return out;
}
