/**
 * The two halves of a test of an APM agent on the same app on express@4 and webapp:
 * a collector on 127.0.0.1 standing in for the agent's backend, and the app, run in a
 * child process under the agent, answering a list of requests while the collector
 * gathers what the agent sends.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { watchChild } from './child-output';
import { rawRequest, type RawResponse } from './differential';

export interface Collector<T> {
  port: number;
  /** What `parse` found in every request the agent sent, in order of arrival. */
  items: T[];
  close(): void;
}

/**
 * A backend on 127.0.0.1: each request body (gunzipped when the agent compressed it)
 * goes through `parse`, then `answer` replies as the agent expects its backend to.
 */
export async function startCollector<T>(
  parse: (body: Buffer, req: http.IncomingMessage) => T[],
  answer: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<Collector<T>> {
  const items: T[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      items.push(...parse(req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body, req));
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, items, close: () => server.close() };
}

/** What the two frameworks may answer differently: the clock, and the brand X-Powered-By names. */
export function comparableAcrossBrands(response: RawResponse): RawResponse {
  const headers = { ...response.headers };
  delete headers.date;
  if (headers['x-powered-by'] !== undefined) headers['x-powered-by'] = '(brand)';
  return { ...response, headers };
}

export interface InstrumentedRun {
  /** The node arguments: preloads, the fixture, its arguments. The fixture prints `listening <port>`. */
  args: string[];
  cwd?: string;
  /** Requested in order, one at a time, once the app listens. */
  paths: string[];
  /**
   * Whether everything expected has arrived; polled until true or 15 s have passed. It is
   * given what the app printed after its `listening` line, for agents that report there.
   */
  arrived: (printed: string) => boolean;
}

/** Runs the app, sends the requests, waits (bounded) for the agent's reports; the answers, comparable across brands. */
export async function runInstrumentedApp(run: InstrumentedRun): Promise<RawResponse[]> {
  const child = spawn(process.execPath, run.args, { cwd: run.cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  const watched = watchChild(child);
  const responses: RawResponse[] = [];
  try {
    const listening = await watched.printed(/listening (\d+)\n/);
    const port = Number(listening[1]);
    const after = listening.index + listening[0].length;
    for (const path of run.paths) responses.push(comparableAcrossBrands(await rawRequest(port, { path })));
    const deadline = Date.now() + 15_000;
    while (!run.arrived(watched.output().slice(after)) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    child.kill();
    await watched.exited;
  }
  return responses;
}
