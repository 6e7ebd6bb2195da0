// One request before measuring, checked against the scenario's expectation: a
// server that answers wrongly is reported, never ranked.
import { request } from 'node:http';

const PROBE_TIMEOUT_MS = 10_000;

export function probe(port, scenario, fixtures) {
  const body = scenario.payload ? fixtures.payloads[scenario.payload].body : null;
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: scenario.method,
        path: scenario.path,
        agent: false,
        headers: body ? { 'content-type': 'application/json', 'content-length': body.length } : {},
        timeout: PROBE_TIMEOUT_MS,
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve(scenario.check({ status: res.statusCode, body: Buffer.concat(chunks) }, fixtures)));
        res.on('error', (error) => resolve(error.message));
      },
    );
    req.on('timeout', () => req.destroy(new Error('probe timed out')));
    req.on('error', (error) => resolve(error.message));
    req.end(body);
  });
}
