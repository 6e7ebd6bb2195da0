/**
 * Shared by the static-file tests: a fixture tree in a temporary directory, a
 * bare `http.createServer` around one middleware (with a `next` that reports what
 * it got), and raw requests whose path is sent exactly as written.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Fixtures {
  /** The temporary directory holding `root/` and `outside/`. */
  base: string;
  /** The directory served. */
  root: string;
  /** A sibling of root with a secret no request may read. */
  outside: string;
  /** Content of the secret file outside root. */
  secret: string;
  /** Path and size of a large file for streaming tests. */
  large: string;
  largeSize: number;
  cleanup(): void;
}

export const FILE_TIME = new Date('2020-01-02T03:04:05Z');

export function createFixtures(options: { largeSize?: number } = {}): Fixtures {
  const base = mkdtempSync(join(tmpdir(), 'webapp-static-'));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  const secret = 'TOP-SECRET-' + Date.now();
  const files: Record<string, string | Buffer> = {
    'index.html': '<p>home</p>',
    'todo.txt': '- groceries',
    'nums.txt': '123456789',
    'empty.txt': '',
    'page.html': '<p>page</p>',
    'data.json': '{"a":1}',
    'app.js': 'var a = 1;',
    'style.css': 'p{}',
    'favicon.ico': Buffer.from([0, 0, 1, 0]),
    'noext': 'no extension',
    'foo bar.txt': 'spaced',
    '% of 100.txt': 'percent',
    'snow ☃.txt': 'snowman',
    'tobi.html': '<p>tobi</p>',
    'tobi.txt': 'tobi text',
    'users/index.html': '<p>users</p>',
    'users/tobi.txt': 'ferret',
    'pets/loki.txt': 'loki',
    'nested/deep/file.txt': 'deep',
    '.hidden': 'hidden file',
    '.secret/file.txt': 'in a dot directory',
    'sub/.dotfile': 'nested dotfile',
    'dir.html/index.html': 'dir with extension',
    'images/pixel.png': Buffer.from('89504e470d0a1a0a', 'hex'),
    'weird<name>.txt': 'weird',
  };
  for (const [name, content] of Object.entries(files)) {
    const path = join(root, name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, content);
    utimesSync(path, FILE_TIME, FILE_TIME);
  }
  mkdirSync(join(root, 'emptydir'));
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), secret);
  writeFileSync(join(base, 'secret.txt'), secret);
  writeFileSync(join(base, 'root-sibling.txt'), secret);

  const largeSize = options.largeSize ?? 0;
  const large = join(root, 'large.bin');
  if (largeSize > 0) {
    const chunk = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < chunk.length; i++) chunk[i] = i % 251;
    const parts: Buffer[] = [];
    for (let size = 0; size < largeSize; size += chunk.length) parts.push(chunk.subarray(0, Math.min(chunk.length, largeSize - size)));
    writeFileSync(large, Buffer.concat(parts));
  }
  return { base, root, outside, secret, large, largeSize, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export type Next = (err?: unknown) => void;
export type Middleware = (req: http.IncomingMessage, res: http.ServerResponse, next: Next) => void;

/**
 * A server that runs `middleware` and, when it calls `next`, answers with what it got:
 * `x-next: called` and 404, or `x-next: error`, the error's status and `message|code`.
 */
export function bareServer(middleware: Middleware): http.Server {
  return http.createServer((req, res) => {
    try {
      middleware(req, res, (err?: unknown) => {
        if (res.headersSent) return;
        if (err) {
          const e = err as { status?: number; message?: string; code?: string; headers?: Record<string, string> };
          res.statusCode = e.status ?? 500;
          res.setHeader('x-next', 'error');
          if (e.headers) for (const [k, v] of Object.entries(e.headers)) res.setHeader(k, v);
          const body = `${e.message}|${e.code ?? ''}`;
          res.removeHeader('Content-Range');
          res.setHeader('Content-Length', Buffer.byteLength(body));
          res.end(body);
        } else {
          res.statusCode = 404;
          res.setHeader('x-next', 'called');
          res.end('next');
        }
      });
    } catch (err) {
      res.statusCode = 500;
      res.setHeader('x-next', 'thrown');
      res.end(String((err as Error).message));
    }
  });
}

export async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

export async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

export function rawRequest(port: number, path: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Runs `fn` against a listening bare server for `middleware`, closing it afterwards. */
export async function withBareServer<T>(middleware: Middleware, fn: (port: number) => Promise<T>): Promise<T> {
  const server = bareServer(middleware);
  const port = await listen(server);
  try {
    return await fn(port);
  } finally {
    await close(server);
  }
}

/** Open file descriptors of this process (Linux). */
export function openFdCount(): number {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('node:fs') as typeof import('node:fs')).readdirSync('/proc/self/fd').length;
}

/** Polls `check` every 10 ms, at most `tries` times; resolves with its last answer. */
export async function eventually(check: () => boolean, tries = 200): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return check();
}
