/**
 * A bounded load client: `concurrency` loops, each sending one request per
 * connection (agent: false) until stopped or a cap on count or time is hit.
 * Every answer is checked whole; every failure is kept with its error code, and
 * a request left unanswered for `requestTimeoutMs` is a failure too (so a lost
 * connection fails the test by name instead of holding `stop()` forever).
 */
import http from 'node:http';

export interface LoadResult {
  ok: number;
  failures: string[];
  workers: Set<string>;
}

export interface Load {
  result: LoadResult;
  /** Stops the loops after their current request and resolves with the totals. */
  stop(): Promise<LoadResult>;
}

export function startLoad(options: {
  port: number;
  path: string;
  concurrency: number;
  maxRequests: number;
  maxMs: number;
  check: (body: string) => boolean;
  /** Default 10 s. */
  requestTimeoutMs?: number;
}): Load {
  const result: LoadResult = { ok: 0, failures: [], workers: new Set() };
  const deadline = Date.now() + options.maxMs;
  const requestTimeoutMs = options.requestTimeoutMs ?? 10000;
  let sent = 0;
  let stopped = false;
  const once = () =>
    new Promise<void>((resolve) => {
      let settled = false;
      const settle = (failure?: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (failure !== undefined) result.failures.push(failure);
        resolve();
      };
      const timer = setTimeout(() => {
        settle(`no answer within ${requestTimeoutMs} ms`);
        req.destroy();
      }, requestTimeoutMs);
      const req = http.get({ host: '127.0.0.1', port: options.port, path: options.path, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          if (settled) return;
          if (res.statusCode === 200 && res.complete && options.check(body)) {
            result.ok++;
            result.workers.add(String(res.headers['x-worker']));
            settle();
          } else settle(`status ${res.statusCode}, complete ${res.complete}, ${body.length} bytes`);
        });
        res.on('error', (err: NodeJS.ErrnoException) => settle(`response ${err.code ?? err.message}`));
      });
      req.on('error', (err: NodeJS.ErrnoException) => settle(`request ${err.code ?? err.message}`));
    });
  const loop = async () => {
    while (!stopped && sent < options.maxRequests && Date.now() < deadline) {
      sent++;
      await once();
    }
  };
  const loops = Promise.all(Array.from({ length: options.concurrency }, loop));
  return {
    result,
    async stop() {
      stopped = true;
      await loops;
      return result;
    },
  };
}
