// A fixed number of requests, for the tools that count per request (instructions,
// allocations) rather than time: the count, not a duration, is what they divide by.
import { readFileSync } from 'node:fs';
import http from 'node:http';

const CONNECTIONS = 8;

/**
 * The `parseArgs` options the per-request tools share: the Node line, how many rows to
 * list, and the request (read by `requestOf`).
 */
export const SHARED_OPTIONS = {
  node: { type: 'string' },
  top: { type: 'string', default: '25' },
  path: { type: 'string', default: '/' },
  method: { type: 'string', default: 'GET' },
  'body-file': { type: 'string' },
  'content-type': { type: 'string', default: 'application/octet-stream' },
  header: { type: 'string', multiple: true, default: [] },
};

/**
 * The request of the tools' shared options: `path`, `method`, `header` (lines of
 * `name: value`), and `body-file` sent as `content-type`.
 */
export function requestOf(options) {
  const body = options['body-file'] ? readFileSync(options['body-file']) : null;
  const headers = {};
  for (const line of options.header) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  if (body) Object.assign(headers, { 'content-type': options['content-type'], 'content-length': body.length });
  return { path: options.path, method: options.method, headers, body };
}

/**
 * Sends `count` requests over 8 keep-alive connections and waits for every answer;
 * an answer of 400 or above rejects (a server that fails its workload measures nothing).
 * `request`: `{ path, method, headers, body }`, the same for every request.
 */
export async function sendRequests(port, count, { path, method, headers, body }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let sent = 0;
  const connection = async () => {
    while (sent < count) {
      sent++;
      await new Promise((resolve, reject) => {
        const request = http.request({ host: '127.0.0.1', port, path, method, headers, agent }, (res) => {
          if (res.statusCode >= 400) reject(new Error(`${path} answered ${res.statusCode}`));
          res.resume().on('end', resolve);
        });
        request.on('error', reject).end(body);
      });
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, connection));
  agent.destroy();
}

/**
 * The tools' `label='command args'` arguments, measured one after the other by
 * `measure(label, command)` (one server under valgrind or a profiler at a time).
 */
export async function measureEach(specs, measure) {
  const results = [];
  for (const spec of specs) {
    const at = spec.indexOf('=');
    const label = spec.slice(0, at);
    process.stderr.write(`${label} ...\n`);
    results.push(await measure(label, spec.slice(at + 1)));
  }
  return results;
}
