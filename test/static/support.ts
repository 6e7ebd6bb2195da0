/**
 * Shared by the static-file tests: a fixture tree in a temporary directory, a
 * bare listener around one middleware (with a `next` that reports what it got),
 * and the shared raw requests (test/support/raw-http.ts) read as bytes and text.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { close, listen, requestBytes, withServer } from '../support/raw-http';

export { close, listen };

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
    noext: 'no extension',
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
    for (let size = 0; size < largeSize; size += chunk.length)
      parts.push(chunk.subarray(0, Math.min(chunk.length, largeSize - size)));
    writeFileSync(large, Buffer.concat(parts));
  }
  return {
    base,
    root,
    outside,
    secret,
    large,
    largeSize,
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

export type Next = (err?: unknown) => void;
export type Middleware = (req: http.IncomingMessage, res: http.ServerResponse, next: Next) => void;

/**
 * A listener that runs `middleware` and, when it calls `next`, answers with what it got:
 * `x-next: called` and 404, or `x-next: error`, the error's status and `message|code`.
 */
export function bareListener(middleware: Middleware): http.RequestListener {
  return (req, res) => {
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
  };
}

/** A static-file answer: the body's bytes and their UTF-8 text. */
export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** The shared raw request (test/support/raw-http.ts), with the body as bytes and as UTF-8 text. */
export async function rawRequest(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const res = await requestBytes(port, { path, method: options.method, headers: options.headers });
  return { status: res.status, headers: res.headers, body: res.bytes, text: res.bytes.toString('utf8') };
}

/** Runs `fn` against a listening bare server for `middleware`, closing it afterwards. */
export function withBareServer<T>(middleware: Middleware, fn: (port: number) => Promise<T>): Promise<T> {
  return withServer(bareListener(middleware), fn);
}

/** Open file descriptors of this process (Linux). */
export function openFdCount(): number {
  return readdirSync('/proc/self/fd').length;
}

/** Polls `check` every 10 ms, at most `tries` times; resolves with its last answer. */
export async function eventually(check: () => boolean, tries = 200): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return check();
}
