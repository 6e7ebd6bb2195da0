/**
 * Real clients against the same app on express@4 and on webapp: the app (body
 * parsers with limits, static, sendFile/download, json/send/redirect, streaming
 * writes, errors, a handler that answers when the test lets it), a log of what
 * the server saw (events and callbacks, in order), both servers started side by
 * side, curl spawned for real, and the process's open descriptors.
 */
import { spawn } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureStderrOf } from '../support/capture-stderr';
import { frameworks, type Framework } from '../support/differential';

export { frameworks, type Framework };

/** Files the apps serve: small ones are read in one go, large ones streamed. */
export interface Files {
  root: string;
  /** Bytes of `large.bin`: more than loopback's socket buffers hold, so an abort comes mid-file. */
  largeSize: number;
  cleanup(): void;
}

export const LARGE_SIZE = 48 * 1024 * 1024;

export function createFiles(): Files {
  const root = mkdtempSync(join(tmpdir(), 'webapp-clients-'));
  writeFileSync(join(root, 'small.txt'), 'hello, small file\n');
  writeFileSync(join(root, 'page.html'), '<p>page</p>\n');
  writeFileSync(join(root, 'medium.bin'), Buffer.alloc(60 * 1024, 'm'));
  writeFileSync(join(root, 'large.bin'), Buffer.alloc(LARGE_SIZE, 'l'));
  writeFileSync(join(root, 'upload.json'), JSON.stringify({ text: 'u'.repeat(4000) }));
  return { root, largeSize: LARGE_SIZE, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * What the server saw, in order: request and response events, file callbacks,
 * errors reaching the error handler. `seen(entry)` resolves when an entry that
 * starts with `entry` is logged (or already was).
 */
export class ServerLog extends EventEmitter {
  readonly entries: string[] = [];

  add(entry: string): void {
    this.entries.push(entry);
    this.emit('entry', entry);
  }

  seen(prefix: string): Promise<void> {
    return this.seenAfter(0, prefix);
  }

  /**
   * Resolves once every request that started has closed (as many `req close` entries as
   * `start` ones): a request the connection's end cut is logged as aborted and closed a
   * moment after the client saw the end, sooner on one server than the other.
   */
  requestsClosed(): Promise<void> {
    const count = (prefix: string) => this.entries.filter((entry) => entry.startsWith(prefix)).length;
    const closed = () => count('req close @') >= count('start @');
    if (closed()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (!closed()) return;
        this.removeListener('entry', check);
        resolve();
      };
      this.on('entry', check);
    });
  }

  /** `seen`, among the entries from index `from` on. */
  seenAfter(from: number, prefix: string): Promise<void> {
    if (this.entries.slice(from).some((entry) => entry.startsWith(prefix))) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (entry: string) => {
        if (!entry.startsWith(prefix)) return;
        this.removeListener('entry', check);
        resolve();
      };
      this.on('entry', check);
    });
  }
}

/** A promise the test resolves: the slow handler answers only then. */
export class Gate {
  private opened = false;
  private readonly waiting: Array<() => void> = [];

  wait(fn: () => void): void {
    if (this.opened) fn();
    else this.waiting.push(fn);
  }

  open(): void {
    this.opened = true;
    for (const fn of this.waiting.splice(0)) fn();
  }
}

interface AppRequest extends http.IncomingMessage {
  body?: unknown;
  params: Record<string, string>;
}

/** The request an entry is about, at the end of every entry: `<what> @ GET /path`. */
function about(req: http.IncomingMessage): string {
  return ` @ ${req.method} ${req.url}`;
}

/** Sets up logging of the request's and response's life cycle. */
function logLifeCycle(log: ServerLog, req: http.IncomingMessage, res: http.ServerResponse): void {
  const name = about(req);
  log.add(`start${name}`);
  req.on('aborted', () => log.add(`req aborted${name}`));
  req.on('close', () => log.add(`req close${name}`));
  res.on('finish', () => log.add(`res finish${name}`));
  res.on('close', () => log.add(`res close${name}`));
}

/**
 * The log's entries grouped by request, each request's in the order they came: for
 * pipelined requests, whose files webapp opens at their turn (Express at once), so
 * that one request's callbacks interleave differently with the events of those before.
 */
export function perRequest(entries: string[]): Record<string, string[]> {
  const groups: Record<string, string[]> = {};
  for (const entry of entries) {
    const at = entry.lastIndexOf(' @ ');
    (groups[entry.slice(at + 3)] ??= []).push(entry.slice(0, at));
  }
  return groups;
}

/** An error as the log shows it: what an app's error handler reads of it. */
function describeError(err: { status?: number; type?: string; code?: string; message?: string } | undefined): string {
  if (!err) return 'ok';
  return [err.status, err.type, err.code, err.message].filter((part) => part !== undefined).join(' ');
}

/**
 * The app the clients talk to, built on `framework` (express@4 or webapp), much of
 * the 4.x API in one place. Everything observable that is not in the answer goes
 * to `log`.
 */
export function clientApp(framework: Framework, files: Files, log: ServerLog, gate = new Gate()): http.RequestListener {
  const app = framework();
  // Error pages without stack traces, whose frames differ between the two (the errors
  // are logged to stderr instead: onBoth captures it).
  app.set('env', 'production');
  app.use((req, res, next) => {
    logLifeCycle(log, req, res);
    next();
  });
  const reply = (req: AppRequest, res: http.ServerResponse & { json(body: unknown): void }) =>
    res.json({ body: req.body ?? null });
  app.post('/json', framework.json({ limit: '2kb' }), reply as never);
  app.post('/json-large', framework.json({ limit: '10mb' }), reply as never);
  app.post('/form', framework.urlencoded({ extended: true, limit: '2kb' }), reply as never);
  app.post('/raw', framework.raw({ type: '*/*', limit: '10mb' }), (req, res) =>
    res.json({ bytes: (req.body as Buffer).length }),
  );
  app.put('/raw', framework.raw({ type: '*/*', limit: '10mb' }), (req, res) =>
    res.json({ bytes: Buffer.isBuffer(req.body) ? req.body.length : null }),
  );
  app.post('/text', framework.text({ type: '*/*' }), (req, res) => res.send(req.body as string));
  app.use('/static', framework.static(files.root));
  app.get('/file/:name', (req, res) => {
    res.sendFile(join(files.root, req.params.name), (err?: NodeJS.ErrnoException) => {
      log.add(`sendFile ${describeError(err as never)} headersSent=${res.headersSent}${about(req)}`);
      if (err && !res.headersSent) res.status((err as { status?: number }).status ?? 500).end();
    });
  });
  app.get('/download/:name', (req, res) => {
    res.download(join(files.root, req.params.name), 'report.bin', (err?: NodeJS.ErrnoException) => {
      log.add(`download ${describeError(err as never)}${about(req)}`);
      if (err && !res.headersSent) res.status((err as { status?: number }).status ?? 500).end();
    });
  });
  app.get('/download-nocb/:name', (req, res) => res.download(join(files.root, req.params.name)));
  app.get('/json', (req, res) => res.json({ hello: 'world' }));
  app.get('/send', (req, res) => res.send('sent ' + 'x'.repeat(3000)));
  app.get('/redirect', (req, res) => res.redirect('/json'));
  app.get('/missing-error', (req, res, next) => next());
  app.get('/error', (req, res, next) => next(new Error('boom')));
  app.get('/teapot', () => {
    throw Object.assign(new Error('short and stout'), { status: 418, expose: true });
  });
  app.get('/stream', (req, res) => {
    res.type('text/plain');
    // One chunk per turn of the event loop until the client is gone or 2000 went out.
    let sent = 0;
    const more = () => {
      if (res.destroyed || sent === 2000) {
        log.add(`stream stopped destroyed=${res.destroyed}${about(req)}`);
        res.end();
        return;
      }
      sent++;
      res.write('chunk ' + sent + ' ' + 'y'.repeat(1000) + '\n');
      setImmediate(more);
    };
    more();
  });
  app.get('/slow', (req, res) => {
    log.add(`slow waiting${about(req)}`);
    gate.wait(() => {
      log.add(`slow answers destroyed=${res.destroyed}${about(req)}`);
      res.send('late answer');
    });
  });
  app.use(
    (err: { status?: number }, req: http.IncomingMessage, res: http.ServerResponse, next: (e: unknown) => void) => {
      log.add(`error ${describeError(err as never)}${about(req)}`);
      next(err);
    },
  );
  return app as unknown as http.RequestListener;
}

/** A server for `listener` on 127.0.0.1, and how to end it (connections left open included). */
export interface Running {
  port: number;
  server: http.Server;
  close(): Promise<void>;
}

export async function start(listener: http.RequestListener): Promise<Running> {
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The server's open connections, as `server.getConnections` counts them. */
export function connectionCount(server: http.Server): Promise<number> {
  return new Promise((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
}

/** Open file descriptors of this process (Linux). */
export function openFdCount(): number {
  return readdirSync('/proc/self/fd').length;
}

/**
 * How many of this process's descriptors are open on files below `root` (Linux): the
 * files the server sends, and nothing of the clients in the same process.
 */
export function openFilesUnder(root: string): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith(root + '/')) count++;
    } catch {
      // Closed between the listing and the look (the listing's own descriptor, too).
    }
  }
  return count;
}

/**
 * Waits until `check` holds, looking once per turn of the event loop and at most
 * `turns` times: a descriptor is closed by a callback of the thread pool a few
 * turns after the stream is destroyed.
 */
export async function settles(check: () => boolean | Promise<boolean>, turns = 2000): Promise<boolean> {
  for (let i = 0; i < turns; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return check();
}

export const CURL = '/usr/bin/curl';
export const hasCurl = existsSync(CURL);

export interface CurlRun {
  code: number | null;
  stdout: string;
}

/**
 * Runs curl with `args` (its own options, taken as a user would type them).
 * `-w` after each transfer prints the status and the number of connections curl
 * had to open for it: 0 means it reused the previous one, so a closed connection shows.
 */
export async function curl(args: string[], stdin?: Buffer): Promise<CurlRun> {
  const own = ['--silent', '--include', '--write-out', '\n[%{http_code} new-connections=%{num_connects}]\n'];
  // `--next` starts a new set of options: ours again for each.
  const all = [...own, ...args.flatMap((arg) => (arg === '--next' ? [arg, ...own] : [arg]))];
  const child = spawn(CURL, all, { stdio: ['pipe', 'pipe', 'ignore'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stdin.end(stdin);
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout: Buffer.concat(chunks).toString('latin1') };
}

/**
 * A transcript as two frameworks' answers can share it: no Date, brand, or port. The
 * port only after a colon (`127.0.0.1:<port>`) and as a whole number: its digits also
 * turn up inside ETags and other values.
 */
export function comparableTranscript(text: string, port: number): string {
  return text
    .replace(/^Date: .*\r\n/gim, '')
    .replace(/^X-Powered-By: .*\r\n/gim, '')
    .replace(new RegExp(`:${port}(?!\\d)`, 'g'), ':<port>');
}

/** Every frame of a socket's life that a test reads: bytes received and whether the server closed. */
export function rawExchange(
  port: number,
  pieces: Array<string | Buffer>,
  options: { endAfterWrite?: boolean; until?: (received: string) => boolean } = {},
): Promise<{ received: string; closedByServer: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', noDelay: true }, () => {
      for (const piece of pieces) socket.write(piece);
      if (options.endAfterWrite) socket.end();
    });
    let received = '';
    let done = false;
    const finish = (closedByServer: boolean) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ received, closedByServer });
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (options.until?.(received)) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', reject);
  });
}

/** One side of a comparison: the app on one framework, listening, with its log. */
export interface Side {
  name: string;
  port: number;
  server: http.Server;
  log: ServerLog;
  gate: Gate;
}

/**
 * Runs `scenario` against the app on express@4, then on webapp, each on a server of
 * its own, and returns both results (express's first) for the test to compare.
 */
export async function onBoth<T>(
  files: Files,
  scenario: (side: Side) => Promise<T>,
): Promise<{ express: T; webapp: T }> {
  const results: T[] = [];
  for (const [name, framework] of frameworks) {
    // The final handler logs each error's stack in production, a turn after it answers:
    // kept out of the test's output until the server is closed.
    const { result } = await captureStderrOf(async () => {
      const log = new ServerLog();
      const gate = new Gate();
      const running = await start(clientApp(framework, files, log, gate));
      try {
        return await scenario({ name, port: running.port, server: running.server, log, gate });
      } finally {
        gate.open();
        await running.close();
        // The final handler runs a turn after the last `next(err)`, its logger a turn later.
        for (let turn = 0; turn < 4; turn++) await new Promise((resolve) => setImmediate(resolve));
      }
    });
    results.push(result);
  }
  return { express: results[0], webapp: results[1] };
}
