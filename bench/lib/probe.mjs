// One request before measuring, checked against the scenario's expectation: a
// server that answers wrongly is reported, never ranked.
import { request } from 'node:http';

const PROBE_TIMEOUT_MS = 10_000;

/** The scenario's request once, exactly as the load generator sends it: `{ status, headers, body }`. */
export function fetchOnce(port, scenario, fixtures) {
  const payload = scenario.payload ? fixtures.payloads[scenario.payload] : null;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: scenario.method,
        path: scenario.path,
        agent: false,
        headers: {
          ...scenario.headers,
          ...(payload ? { 'content-type': payload.type, 'content-length': payload.body.length } : {}),
        },
        timeout: PROBE_TIMEOUT_MS,
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('probe timed out')));
    req.on('error', reject);
    req.end(payload ? payload.body : undefined);
  });
}

/** null when the answer is right, else what is wrong with it. */
export async function probe(port, scenario, fixtures) {
  try {
    return scenario.check(await fetchOnce(port, scenario, fixtures), fixtures);
  } catch (error) {
    return error.message;
  }
}
