/**
 * Raw HTTP for tests: a server on 127.0.0.1:0 for the length of a callback, and
 * requests sent exactly as written (no client-side normalisation). Loads nothing
 * of webapp, so middleware tests can use it without the framework. Servers for
 * the Connect 2.30 / Express 3.21 oracles are recorded or replayed where those
 * cannot run (oracle-recording.ts).
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { isOracleListener, oracleMode, startOracleServer } from './oracle-recording';

export interface RequestSpec {
  method?: string;
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body's bytes as latin1 text, so every byte survives (compressed bodies too). */
  body: string;
}

/** A response with its body as received. */
export interface ByteResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: Buffer;
}

/** Starts `server` on a free port of 127.0.0.1 and returns the port. */
export async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Closes `server`, cutting keep-alive connections a test left open. */
export async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Runs `fn` against a listening server for `listener`, closing it afterwards. */
export async function withServer<T>(listener: http.RequestListener, fn: (port: number) => Promise<T>): Promise<T> {
  // Connect 2.30 / Express 3.21 apps are recorded or replayed where they cannot run (oracle-recording.ts).
  if (oracleMode() !== 'live' && isOracleListener(listener)) {
    const oracle = await startOracleServer(listener);
    try {
      return await fn(oracle.port);
    } finally {
      await oracle.close();
    }
  }
  const server = http.createServer(listener);
  const port = await listen(server);
  try {
    return await fn(port);
  } finally {
    await close(server);
  }
}

/** One raw request, on a connection of its own; resolves with the body's bytes. */
export function requestBytes(port: number, spec: RequestSpec): Promise<ByteResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: spec.method ?? 'GET', path: spec.path, headers: spec.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(spec.body);
  });
}

/** One raw request; the body is read as latin1 text (see RawResponse). */
export async function rawRequest(port: number, spec: RequestSpec): Promise<RawResponse> {
  const res = await requestBytes(port, spec);
  return { status: res.status, headers: res.headers, body: res.bytes.toString('latin1') };
}

/**
 * Writes `text` on a connection of its own and resolves with everything the server
 * wrote until it closed, as latin1 text: for requests a client library would not
 * send or answers it would refuse (pipelined, upgrades, control characters).
 */
export function exchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}
