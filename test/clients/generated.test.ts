/**
 * Generated client behaviours over time (seeded; WEBAPP_TEST_SEED draws others),
 * against the same app on express@4 and on webapp, served by `app.listen` and by
 * `http.createServer(app)` in turn, over node:net sockets on 127.0.0.1 whose every
 * step waits for a fact it can observe (the app has the request, the server has read
 * the bytes, the client has the answer or the close), never for a fixed time.
 *
 * The app: json, urlencoded and raw parsers with a 1 KB limit, a handler that
 * ignores the body, small and large `res.send` answers, streaming writes (a few, or
 * megabytes with backpressure), `res.sendFile` and `res.download` with callbacks (a
 * missing file too), `static` (a 304, a range, a directory's redirect), errors thrown
 * before and after the head, `next(err)` after a partial write, and handlers that
 * answer when the test lets them (before or after writing the head). Observers as
 * real middleware use them log each request's life: the request's `aborted`, `end`
 * (with its trailers) and `close`, the response's `finish` and `close` (with
 * `headersSent`, `writableEnded`, `req.complete`), on-finished for both, morgan's
 * line, the error handler, the file callbacks.
 *
 * A scenario is a client behaviour with one or more requests: whole exchanges
 * (pipelined 2 to 4, now and then behind a slow first answer, or 1 to 3 one after
 * another's answer, errors among them), ended by a follow-up request on the
 * connection, a half-close, or the client leaving; GET, HEAD, GET with a body the
 * handler ignores; HTTP/1.0 with and without keep-alive, `Connection: close`,
 * `Expect: 100-continue`, chunked bodies with trailers, bodies sent in pieces each
 * read by the server before the next (the moment marked in the log), bodies over the
 * limit; and clients that leave (reset, close, or half-close), after a request or two
 * answered on the connection, in the middle of the body, before the head, after the
 * head, or in the middle of a small or large answer (streamed, sent, a file,
 * `static`).
 *
 * What is compared: every answer's status line, header lines but Date (X-Powered-By's
 * value hidden) and body (only the head of an answer the client left in the middle
 * of: how much came before is timing), what the client had before it sent the body
 * the app refuses, whether the connection was kept, closed or left, the listeners
 * left on a kept connection, each request's log in order, and that the server
 * answers afterwards; no exception goes uncaught, no warning is printed. What Node's
 * timing decides on Express itself (which of read or write sees a reset, the thread
 * pool against the client's next move) is kept out of the scenarios or of what is
 * compared; where webapp differs by design, `comparable` says so and why. A failure
 * names each differing scenario with its number and seed.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import morgan from 'morgan';
import webapp = require('../../src/index');
import { captureStderrOf } from '../support/capture-stderr';
import { brandHidden, isDeepStrictEqual, show, wireAnswers, type WireAnswer } from '../support/generated-answers';
import { chance, pick, prng, testSeed, type Random } from '../support/prng';

type Any = any;

/** The on-finished package (untyped), as morgan, finalhandler, body-parser and send use it. */
const onFinished: (msg: object, listener: (err: Any) => void) => void = require('on-finished');

const SEED = 0xc1_1e27;
const SCENARIOS = 300;
/** How long a fact may take to come true on a loaded machine before the scenario gives up on it. */
const WAIT_LIMIT = 5000;
/** Turns of the event loop without a new log entry after which a server counts as quiet. */
const QUIET_TURNS = 12;
const LIMIT = 1024;
/** More than loopback's socket buffers hold, so that a client leaving mid-answer leaves it unfinished. */
const LARGE = 48 * 1024 * 1024;
/** A body `res.send` takes whole, larger than the socket's buffers too. */
const LARGE_TEXT = 'x'.repeat(16 * 1024 * 1024);

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'webapp-generated-clients-'));
  writeFileSync(join(root, 'small.txt'), 'a small file\n');
  // Over 64 KB: sent as a stream by webapp too (docs/migrating-from-express-4.md, small files).
  writeFileSync(join(root, 'medium.bin'), Buffer.alloc(100 * 1024, 'm'));
  writeFileSync(join(root, 'large.bin'), Buffer.alloc(LARGE, 'l'));
});
after(() => rmSync(root, { recursive: true, force: true }));

// ---------------------------------------------------------------------------
// What the server saw

/** Conditions waited on, looked at again each time something happens (`notify`). */
class Waiters {
  private readonly checks = new Set<() => void>();

  notify(): void {
    for (const check of [...this.checks]) check();
  }

  /** Resolves with true once `condition()` holds (now or at a notify), false after WAIT_LIMIT. */
  until(condition: () => boolean): Promise<boolean> {
    if (condition()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const check = () => {
        if (condition()) done(true);
      };
      const done = (result: boolean) => {
        clearTimeout(timer);
        this.checks.delete(check);
        resolve(result);
      };
      const timer = setTimeout(() => done(false), WAIT_LIMIT);
      this.checks.add(check);
    });
  }
}

/** Each request's log, by the id its URL carries (`?id=`). */
class ServerLog {
  private readonly byId = new Map<string, string[]>();
  private readonly waiters = new Waiters();
  /** Entries so far, of every request. */
  count = 0;

  add(id: string, entry: string): void {
    let entries = this.byId.get(id);
    if (!entries) this.byId.set(id, (entries = []));
    entries.push(entry);
    this.count++;
    this.waiters.notify();
  }

  has(id: string, prefix: string): boolean {
    return this.of(id).some((entry) => entry.startsWith(prefix));
  }

  of(id: string): string[] {
    return [...(this.byId.get(id) ?? [])];
  }

  /** The requests logged, in the order they came. */
  ids(): string[] {
    return [...this.byId.keys()];
  }

  /** Resolves with true once `condition()` holds after an entry (or already), false after WAIT_LIMIT. */
  until(condition: () => boolean): Promise<boolean> {
    return this.waiters.until(condition);
  }

  /** Resolves once no entry has come for QUIET_TURNS turns of the event loop. */
  async quiet(): Promise<void> {
    let seen = this.count;
    let calm = 0;
    for (let turn = 0; calm < QUIET_TURNS && turn < 2000; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.count === seen) calm++;
      else [seen, calm] = [this.count, 0];
    }
  }
}

/** Handlers that answer when the test says so, by request id. */
class Gates {
  private readonly opened = new Set<string>();
  private readonly waiting = new Map<string, () => void>();

  wait(id: string, fn: () => void): void {
    if (this.opened.has(id)) fn();
    else this.waiting.set(id, fn);
  }

  open(id: string): void {
    this.opened.add(id);
    const fn = this.waiting.get(id);
    this.waiting.delete(id);
    fn?.();
  }

  openAll(): void {
    for (const id of [...this.waiting.keys()]) this.open(id);
  }
}

const idOf = (url: string | undefined): string => /[?&]id=([^&]*)/.exec(url ?? '')?.[1] ?? '?';

/** What an error handler or a callback reads of an error. */
function describeError(err: Any): string {
  if (!err) return 'ok';
  // The socket's own error when the client reset it: whether the kernel reports it to a
  // read or a write, as a reset or a broken pipe, is a matter of timing (on express@4 too).
  if (err.syscall === 'read' || err.syscall === 'write') return 'socket error';
  return [err.status, err.type, err.code, err.message].filter((part) => part !== undefined).join(' ');
}

// ---------------------------------------------------------------------------
// The app

type Shape =
  | 'json'
  | 'form'
  | 'raw'
  | 'ignore'
  | 'small'
  | 'send-large'
  | 'stream'
  | 'stream-large'
  | 'file-small'
  | 'file-medium'
  | 'file-large'
  | 'download'
  | 'file-missing'
  | 'static-small'
  | 'static-medium'
  | 'static-large'
  | 'static-dir'
  | 'static-304'
  | 'static-range'
  | 'static-large-range'
  | 'throw'
  | 'throw-after'
  | 'next-after'
  | 'missing'
  | 'wait'
  | 'head-wait';

/** Each shape's request line, the method and the path (the id's query is added), and a header it sends. */
const ROUTES: Record<Shape, [string, string, string?]> = {
  json: ['POST', '/json'],
  form: ['POST', '/form'],
  raw: ['PUT', '/raw'],
  ignore: ['POST', '/ignore'],
  small: ['GET', '/small'],
  'send-large': ['GET', '/send-large'],
  stream: ['GET', '/stream'],
  'stream-large': ['GET', '/stream-large'],
  'file-small': ['GET', '/file/small.txt'],
  'file-medium': ['GET', '/file/medium.bin'],
  'file-large': ['GET', '/file/large.bin'],
  download: ['GET', '/download/small.txt'],
  'file-missing': ['GET', '/file/missing.txt'],
  'static-small': ['GET', '/static/small.txt'],
  'static-medium': ['GET', '/static/medium.bin'],
  'static-large': ['GET', '/static/large.bin'],
  'static-dir': ['GET', '/static'],
  'static-304': ['GET', '/static/small.txt', 'If-Modified-Since: Thu, 01 Jan 2099 00:00:00 GMT'],
  'static-range': ['GET', '/static/medium.bin', 'Range: bytes=100-299'],
  'static-large-range': ['GET', '/static/large.bin', 'Range: bytes=1000-'],
  throw: ['POST', '/throw'],
  'throw-after': ['GET', '/throw-after'],
  'next-after': ['GET', '/next-after'],
  missing: ['GET', '/missing'],
  wait: ['POST', '/wait'],
  'head-wait': ['GET', '/head-wait'],
};

const BODY_SHAPES = new Set<Shape>(['json', 'form', 'raw', 'ignore', 'wait', 'throw']);
/**
 * Shapes whose answer waits on the thread pool (a stat, a read): when it comes, against
 * the client's next move, is Node's timing, so a client moves only once they answered.
 */
const FILE_SHAPES = new Set<Shape>([
  'file-small',
  'file-medium',
  'file-large',
  'download',
  'file-missing',
  'static-small',
  'static-medium',
  'static-large',
  'static-dir',
  'static-304',
  'static-range',
  'static-large-range',
]);
/** Shapes a client also asks for with HEAD. */
const HEADABLE = new Set<Shape>([
  'small',
  'stream',
  'file-small',
  'file-medium',
  'download',
  'static-small',
  'static-medium',
  'static-304',
  'static-range',
  'missing',
]);

function defineApp(framework: Any, log: ServerLog, gates: Gates): http.RequestListener {
  const app = framework();
  // Error pages without stack traces, whose frames differ between the two (the
  // final handler logs them to stderr instead, which the test captures).
  app.set('env', 'production');
  app.use((req: Any, res: Any, next: Any) => {
    const id = idOf(req.url);
    const state = () => `headersSent=${res.headersSent} writableEnded=${res.writableEnded} complete=${req.complete}`;
    log.add(id, `start ${req.method} HTTP/${req.httpVersion}`);
    req.on('aborted', () => log.add(id, `req aborted ${state()}`));
    req.on('end', () => log.add(id, `req end trailers=${JSON.stringify(req.trailers)}`));
    req.on('close', () => log.add(id, `req close ${state()}`));
    res.on('finish', () => log.add(id, `res finish ${state()}`));
    res.on('close', () => log.add(id, `res close ${state()}`));
    onFinished(res, (err: Any) => log.add(id, `on-finished res ${describeError(err)} ${state()}`));
    onFinished(req, (err: Any) => log.add(id, `on-finished req ${describeError(err)}`));
    next();
  });
  // A logger at the end of each response, as most apps have: what it reads then.
  app.use(
    morgan(
      (tokens: Any, req: Any, res: Any) =>
        `${idOf(req.originalUrl)} ${tokens.status(req, res)} ${tokens.res(req, res, 'content-length')}`,
      {
        stream: { write: (line: string) => log.add(line.split(' ')[0], `morgan ${line.trim()}`) },
      },
    ),
  );
  const echo = (req: Any, res: Any) => res.json({ body: req.body ?? null });
  app.post('/json', framework.json({ limit: LIMIT }), echo);
  app.post('/form', framework.urlencoded({ extended: false, limit: LIMIT }), echo);
  app.put('/raw', framework.raw({ type: () => true, limit: LIMIT }), (req: Any, res: Any) =>
    res.json({ bytes: Buffer.isBuffer(req.body) ? req.body.length : null }),
  );
  app.all('/ignore', (req: Any, res: Any) => res.send('the body was not read'));
  app.get('/small', (req: Any, res: Any) => res.send('a small answer'));
  app.get('/send-large', (req: Any, res: Any) => res.send(LARGE_TEXT));
  app.get('/stream', (req: Any, res: Any) => {
    res.type('text');
    let left = 3;
    const more = () => {
      if (left-- === 0) return res.end('end\n');
      res.write(`piece ${left}\n`);
      setImmediate(more);
    };
    more();
  });
  app.get('/stream-large', (req: Any, res: Any) => {
    const id = idOf(req.url);
    res.type('bin');
    const piece = Buffer.alloc(64 * 1024, 's');
    let left = LARGE / piece.length;
    // Writes while the socket takes them, then waits for a drain or the client's leaving.
    const more = () => {
      while (left > 0 && !res.destroyed) {
        left--;
        if (!res.write(piece)) return void res.once('drain', more);
      }
      log.add(id, `stream stopped destroyed=${res.destroyed}`);
      res.end();
    };
    res.once('close', () => res.removeListener('drain', more));
    more();
  });
  const fileCallback = (what: string, req: Any, res: Any, next: Any) => (err: Any) => {
    log.add(idOf(req.url), `${what} callback ${describeError(err)} headersSent=${res.headersSent}`);
    if (err && !res.headersSent) next(err);
  };
  app.get('/file/:name', (req: Any, res: Any, next: Any) =>
    res.sendFile(join(root, req.params.name), fileCallback('sendFile', req, res, next)),
  );
  app.get('/download/:name', (req: Any, res: Any, next: Any) =>
    res.download(join(root, req.params.name), 'report.txt', fileCallback('download', req, res, next)),
  );
  app.use('/static', framework.static(root));
  app.all('/throw', () => {
    throw new Error('thrown before the head');
  });
  app.get('/throw-after', (req: Any, res: Any) => {
    res.type('text');
    res.write('a partial answer ');
    throw new Error('thrown after the head');
  });
  app.get('/next-after', (req: Any, res: Any, next: Any) => {
    res.type('text');
    res.write('a partial answer ');
    setImmediate(() => next(new Error('passed on after the head')));
  });
  app.all('/wait', (req: Any, res: Any) => {
    const id = idOf(req.url);
    log.add(id, 'waiting');
    gates.wait(id, () => {
      log.add(id, `answers destroyed=${res.destroyed}`);
      res.send('a late answer');
    });
  });
  app.get('/head-wait', (req: Any, res: Any) => {
    const id = idOf(req.url);
    res.type('text');
    res.write('the head and a first piece ');
    log.add(id, 'head written');
    gates.wait(id, () => {
      log.add(id, `ends destroyed=${res.destroyed}`);
      res.end('the last piece');
    });
  });
  app.get('/ping', (req: Any, res: Any) => res.send('pong'));
  app.use((err: Any, req: Any, res: Any, next: Any) => {
    log.add(idOf(req.url), `error ${describeError(err)} headersSent=${res.headersSent}`);
    next(err);
  });
  return app;
}

// ---------------------------------------------------------------------------
// Scenarios

interface Req {
  id: string;
  shape: Shape;
  version: '1.0' | '1.1';
  connection: 'close' | 'keep-alive' | undefined;
  body: Buffer | undefined;
  chunked: boolean;
  trailers: boolean;
  expect: boolean;
  /** The body in this many writes, each once the server has read the one before. */
  pieces: number;
  /** HEAD in place of GET. */
  head: boolean;
}

type Leaving = 'destroy' | 'reset' | 'end';

type Scenario = { index: number } & (
  | { kind: 'exchange'; reqs: Req[]; pipelined: boolean; ending: 'follow-up' | 'half-close' | 'leave' }
  | {
      kind: 'leave';
      /** Requests answered on the connection first (kept alive). */
      earlier: Req[];
      req: Req;
      at: 'mid-body' | 'before-head' | 'after-head' | 'mid-answer';
      how: Leaving;
    }
  | { kind: 'over-limit'; req: Req }
);

const int = (random: Random, min: number, max: number) => min + Math.floor(random() * (max - min + 1));

function bodyFor(random: Random, shape: Shape, over: boolean): Buffer {
  const size = over ? int(random, LIMIT + 1, LIMIT * 8) : int(random, 0, 300);
  if (shape === 'json') {
    if (chance(random, 0.15) && !over) return Buffer.from(pick(random, ['{"n":', '[1,2', 'nope', '{"a":1}x']));
    return Buffer.from(JSON.stringify({ n: size, text: 't'.repeat(Math.max(0, size - 20)) }));
  }
  if (shape === 'form') return Buffer.from(`n=${size}&text=${'f'.repeat(size)}`);
  return Buffer.from(Array.from({ length: size }, (_, i) => (i * 7 + size) % 256));
}

function contentType(shape: Shape): string | undefined {
  if (shape === 'json') return 'application/json';
  if (shape === 'form') return 'application/x-www-form-urlencoded';
  if (shape === 'raw') return 'application/octet-stream';
  return undefined;
}

function makeReq(random: Random, id: string, shape: Shape, options: Partial<Req> = {}): Req {
  // Now and then a body to a handler that never reads it (a GET with a body, as some clients send).
  const hasBody = BODY_SHAPES.has(shape) || chance(random, 0.1);
  const version = options.version ?? (chance(random, 0.2) ? '1.0' : '1.1');
  const chunked = hasBody && version === '1.1' && chance(random, 0.35);
  return {
    id,
    shape,
    version,
    connection:
      version === '1.0'
        ? pick(random, [undefined, 'keep-alive'] as const)
        : pick(random, [undefined, undefined, undefined, 'close', 'keep-alive'] as const),
    body: hasBody ? bodyFor(random, shape, chance(random, 0.15)) : undefined,
    chunked,
    trailers: chunked && chance(random, 0.5),
    // (Not to a file's answer, which comes from the thread pool: the body would race it, see FILE_SHAPES.)
    expect: hasBody && version === '1.1' && !FILE_SHAPES.has(shape) && chance(random, 0.2),
    pieces: 1,
    head: ROUTES[shape][0] === 'GET' && HEADABLE.has(shape) && chance(random, 0.12),
    ...options,
  };
}

/** Shapes that answer on their own, whole or cut. */
const ANSWERING: Shape[] = [
  'json',
  'json',
  'form',
  'raw',
  'ignore',
  'small',
  'stream',
  'file-small',
  'file-medium',
  'download',
  'file-missing',
  'static-small',
  'static-medium',
  'static-dir',
  'static-304',
  'static-range',
  'throw',
  'throw-after',
  'next-after',
  'missing',
];

function generate(random: Random, index: number): Scenario {
  const id = (k: number) => `${index}.${k}`;
  const kind = pick(random, ['exchange', 'exchange', 'exchange', 'leave', 'leave', 'over-limit'] as const);
  if (kind === 'exchange') {
    const pipelined = chance(random, 0.4);
    const count = pipelined ? int(random, 2, 4) : int(random, 1, 3);
    // Now and then a slow first answer, the others queued behind it (its gate opens once they all started).
    const slowFirst = pipelined && chance(random, 0.2);
    const reqs = Array.from({ length: count }, (_, k) => {
      const req = makeReq(random, id(k), slowFirst && k === 0 ? 'wait' : pick(random, ANSWERING));
      // A client that waits for 100 Continue, or sends its body in pieces, sends one request at a time.
      // Node refuses what follows a request that closes the connection (a 400 for all): now and then.
      if (pipelined && k < count - 1 && chance(random, 0.85))
        return { ...req, expect: false, connection: req.version === '1.0' ? ('keep-alive' as const) : undefined };
      if (pipelined) return { ...req, expect: false };
      const slow = req.body !== undefined && !FILE_SHAPES.has(req.shape) && chance(random, 0.3);
      return { ...req, pieces: slow ? int(random, 2, 4) : 1 };
    });
    // A file's answer waits on the thread pool; a handler behind it that writes over later
    // turns (stream, next-after) is caught by the connection's end (the file's answer may
    // close it: a 304 to HTTP/1.0) early or late as the pool's timing decides. Behind a
    // file, every handler answers in one go.
    if (pipelined && reqs.some((req) => FILE_SHAPES.has(req.shape)))
      for (const req of reqs) {
        if (req.shape === 'next-after') req.shape = 'throw-after';
        if (req.shape === 'stream') req.shape = 'small';
      }
    const ending = pick(random, ['follow-up', 'follow-up', 'half-close', 'leave'] as const);
    return { index, kind, reqs, pipelined, ending };
  }
  if (kind === 'leave') {
    const at = pick(random, ['mid-body', 'before-head', 'after-head', 'mid-answer'] as const);
    const how = pick(random, ['destroy', 'reset', 'end'] as const);
    const shape: Shape =
      at === 'mid-body'
        ? pick(random, ['json', 'form', 'raw', 'wait', 'ignore', 'throw'] as const)
        : at === 'before-head'
          ? 'wait'
          : at === 'after-head'
            ? 'head-wait'
            : pick(random, [
                'stream-large',
                'send-large',
                'file-large',
                'static-large',
                'static-large-range',
                'small',
                'stream',
                'file-small',
                'static-small',
              ] as const);
    const req = makeReq(random, id(0), shape, { expect: false, pieces: 1, head: false });
    if (at === 'mid-body' && !req.body?.length) req.body = bodyFor(random, shape, false);
    if (at === 'mid-body' && req.body!.length < 2) req.body = Buffer.from('{"padding":"to cut"}');
    const earlier = Array.from({ length: pick(random, [0, 0, 1, 2]) }, (_, k) =>
      makeReq(random, id(k + 1), pick(random, ['small', 'json', 'file-small', 'static-small', 'missing'] as const), {
        version: '1.1',
        connection: undefined,
        expect: false,
      }),
    );
    if (req.version === '1.0' && earlier.length > 0) req.connection = 'keep-alive';
    return { index, kind, earlier, req, at, how };
  }
  const shape = pick(random, ['json', 'form', 'raw'] as const);
  return { index, kind, req: makeReq(random, id(0), shape, { body: bodyFor(random, shape, true), expect: false }) };
}

/** The request's head as written. */
function headOf(req: Req): Buffer {
  const [method, path, header] = ROUTES[req.shape];
  const lines = [`${req.head ? 'HEAD' : method} ${path}?id=${req.id} HTTP/${req.version}`];
  if (req.version === '1.1') lines.push('Host: localhost');
  if (header) lines.push(header);
  if (req.connection) lines.push(`Connection: ${req.connection}`);
  const type = contentType(req.shape);
  if (req.body !== undefined && type) lines.push(`Content-Type: ${type}`);
  if (req.body !== undefined) {
    if (req.chunked) lines.push('Transfer-Encoding: chunked');
    else lines.push(`Content-Length: ${req.body.length}`);
  }
  if (req.trailers) lines.push('Trailer: X-Checksum');
  if (req.expect) lines.push('Expect: 100-continue');
  return Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1');
}

/** The body as written, in `req.pieces` parts (framed as chunks when chunked). */
function bodyPieces(req: Req): Buffer[] {
  if (req.body === undefined) return [];
  const parts: Buffer[] = [];
  const size = Math.ceil(req.body.length / req.pieces) || 1;
  for (let at = 0; at < req.body.length || parts.length === 0; at += size) {
    const part = req.body.subarray(at, at + size);
    if (!req.chunked) parts.push(part);
    else
      parts.push(
        part.length
          ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')])
          : Buffer.alloc(0),
      );
  }
  if (req.chunked) {
    const trailer = req.trailers ? `X-Checksum: ${req.body.length}\r\n` : '';
    parts[parts.length - 1] = Buffer.concat([parts[parts.length - 1], Buffer.from(`0\r\n${trailer}\r\n`)]);
  }
  return parts.filter((part, i) => part.length > 0 || i === parts.length - 1);
}

function describeReq(req: Req): string {
  const parts = [`${req.id} ${req.shape} HTTP/${req.version}`];
  if (req.connection) parts.push(`connection: ${req.connection}`);
  if (req.body) parts.push(`${req.body.length} bytes${req.chunked ? ' chunked' : ''}`);
  if (req.trailers) parts.push('trailers');
  if (req.expect) parts.push('expect 100');
  if (req.pieces > 1) parts.push(`in ${req.pieces} pieces`);
  if (req.head) parts.push('HEAD');
  return parts.join(', ');
}

function describeScenario(s: Scenario): string {
  const seed = `#${s.index} (WEBAPP_TEST_SEED=${testSeed()})`;
  if (s.kind === 'exchange') {
    const how = `${s.pipelined ? 'pipelined' : 'one after another'}, then ${s.ending}`;
    return `${seed} ${how}: ${s.reqs.map(describeReq).join(' | ')}`;
  }
  if (s.kind === 'leave') {
    const earlier = s.earlier.map((req) => `${describeReq(req)}, then `).join('');
    return `${seed} ${earlier}the client leaves (${s.how}) ${s.at}: ${describeReq(s.req)}`;
  }
  return `${seed} a body over the limit, its end sent once the server has the rest: ${describeReq(s.req)}`;
}

// ---------------------------------------------------------------------------
// The client

/** An answer as compared: the status line, header lines, the body as latin1 text, whether it all came. */
type Answer = Omit<WireAnswer, 'interim'>;

/** The answers in `text`, interim ones (100 Continue) included. `heads[n]`: the nth final answer is to HEAD. */
const answers = (text: string, heads: readonly boolean[]) => wireAnswers(text, (final) => heads[final] === true);

const finals = (list: Answer[]) => list.filter((answer) => !/^HTTP\/1\.[01] 1\d\d /.test(answer.status));

class Client {
  readonly socket: net.Socket;
  private readonly chunks: Buffer[] = [];
  private readonly waiters = new Waiters();
  /** The server ended its side or the connection closed. */
  ended = false;
  closed = false;
  written = 0;
  /** Which of the requests sent (in order) are HEAD requests. */
  heads: boolean[] = [];

  constructor(port: number) {
    this.socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
    this.socket.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.waiters.notify();
    });
    this.socket.on('end', () => {
      this.ended = true;
      this.waiters.notify();
    });
    this.socket.on('close', () => {
      this.closed = this.ended = true;
      this.waiters.notify();
    });
    // A reset shows as the close; what came before it is what the test compares.
    this.socket.on('error', () => undefined);
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('latin1');
  }

  /** Final answers that came whole (an answer delimited by the close is whole once the connection ended). */
  wholeAnswers(): number {
    const list = finals(answers(this.text(), this.heads).list);
    return list.filter((answer, i) => answer.whole || (this.ended && i === list.length - 1)).length;
  }

  write(bytes: Buffer): void {
    if (this.ended || this.socket.destroyed || !this.socket.writable) return;
    this.written += bytes.length;
    this.socket.write(bytes);
  }

  /** Resolves with true once `condition()` holds (looked at on each thing the socket does), false after WAIT_LIMIT. */
  until(condition: () => boolean): Promise<boolean> {
    return this.waiters.until(condition);
  }

  leave(how: Leaving): void {
    if (how === 'reset') this.socket.resetAndDestroy();
    else if (how === 'destroy') this.socket.destroy();
    else this.socket.end();
  }
}

/** A side: the app on one framework, its server, log and gates. */
interface Side {
  port: number;
  log: ServerLog;
  gates: Gates;
  /** The server's end of the connection accepted last. */
  lastConnection(): net.Socket | undefined;
}

/** Resolves once the server's end of the client's connection has read everything the client wrote. */
async function serverRead(side: Side, client: Client): Promise<boolean> {
  const limit = Date.now() + WAIT_LIMIT;
  while (Date.now() < limit) {
    const connection = side.lastConnection();
    if (connection && connection.bytesRead >= client.written) return true;
    // The server closed the connection: nothing more will be read.
    if (client.ended) return true;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return false;
}

interface Outcome {
  answers: Answer[];
  rest: string;
  /** kept: a follow-up request on the connection was answered; closed: the server closed it; left: the client did. */
  connection: 'kept' | 'closed' | 'left' | 'timeout';
  /** What the client had when it sent the body the app refused. */
  before?: string;
  /** The listeners on the server's end of a kept connection between requests: none left behind by the ones before. */
  listeners?: Record<string, number>;
  timeouts: string[];
  log: Record<string, string[]>;
  serving: boolean;
}

async function connectClient(side: Side): Promise<Client> {
  const client = new Client(side.port);
  await new Promise<void>((resolve) => {
    client.socket.once('connect', () => resolve());
    client.socket.once('close', () => resolve());
  });
  // The server has accepted it: its end is the last connection (scenarios run one at a time a side).
  await side.log.until(() => side.lastConnection()?.remotePort === client.socket.localPort);
  return client;
}

async function run(side: Side, s: Scenario): Promise<Outcome> {
  const timeouts: string[] = [];
  const must = async (what: string, fact: Promise<boolean>) => {
    if (!(await fact)) timeouts.push(what);
  };
  const client = await connectClient(side);
  const log = side.log;
  let connection: Outcome['connection'] = 'left';
  let listeners: Record<string, number> | undefined;
  let before: string | undefined;
  /**
   * Writes the body; in pieces, each once the server has read the one before and the
   * app has done with it, the moment marked in the request's log (so the log shows
   * whether the app answered before the whole body came).
   */
  const sendBody = async (req: Req) => {
    for (const [k, piece] of bodyPieces(req).entries()) {
      if (req.pieces > 1) {
        await must('the server read the piece before', serverRead(side, client));
        await log.quiet();
        if (log.has(req.id, 'start')) log.add(req.id, `(the client sends piece ${k})`);
      }
      client.write(piece);
    }
  };
  /** Sends a request; with Expect, its body once 100 Continue or an answer came. */
  const send = async (req: Req, answered: number) => {
    const from = client.text().length;
    client.write(headOf(req));
    if (req.expect) {
      await must(
        '100 Continue or an answer',
        client.until(() => client.ended || / 100 /.test(client.text().slice(from)) || client.wholeAnswers() > answered),
      );
    }
    await sendBody(req);
  };
  /** Whether the connection is kept: a follow-up request on it is answered, or the server closes it. */
  const followUp = async (answered: number) => {
    const last = finals(answers(client.text(), client.heads).list).at(-1);
    const says = last?.headers.find(([name]) => name === 'connection')?.[1];
    if (!client.ended && says?.toLowerCase() !== 'close') {
      client.write(Buffer.from(`GET /ping?id=${s.index}.ping HTTP/1.1\r\nHost: localhost\r\n\r\n`));
      await must(
        'the follow-up answered',
        client.until(() => client.ended || client.wholeAnswers() > answered),
      );
      if (!client.ended) {
        const connection = side.lastConnection();
        if (connection) listeners = listenersOf(connection);
        return 'kept';
      }
    }
    return (await client.until(() => client.closed)) ? 'closed' : 'timeout';
  };

  client.heads = (s.kind === 'exchange' ? s.reqs : s.kind === 'leave' ? [...s.earlier, s.req] : [s.req]).map(
    (req) => req.head,
  );
  if (s.kind === 'exchange') {
    if (s.pipelined) {
      client.write(Buffer.concat(s.reqs.flatMap((req) => [headOf(req), ...bodyPieces(req)])));
      const first = s.reqs[0];
      if (first.shape === 'wait') {
        // Node parses no request after one that closes the connection.
        const closing = s.reqs.findIndex(
          (req) => req.connection === 'close' || (req.version === '1.0' && !req.connection),
        );
        const parsed = closing === -1 ? s.reqs : s.reqs.slice(0, closing + 1);
        await must(
          'the requests queued',
          log.until(() => parsed.every((req) => log.has(req.id, 'start'))),
        );
        await log.quiet();
        side.gates.open(first.id);
      }
    } else {
      for (const [k, req] of s.reqs.entries()) {
        if (client.ended) break;
        await send(req, k);
        await must(
          `answer ${k}`,
          client.until(() => client.ended || client.wholeAnswers() > k),
        );
      }
    }
    if (s.ending === 'half-close') {
      // With a file among the requests, once the answers came (see FILE_SHAPES); else at once.
      if (s.reqs.some((req) => FILE_SHAPES.has(req.shape)))
        await must(
          'the answers',
          client.until(() => client.ended || client.wholeAnswers() >= s.reqs.length),
        );
      client.socket.end();
      connection = (await client.until(() => client.closed)) ? 'closed' : 'timeout';
    } else {
      await must(
        'the answers',
        client.until(() => client.ended || client.wholeAnswers() >= s.reqs.length),
      );
      if (s.ending === 'follow-up') connection = await followUp(s.reqs.length);
      else if (!client.ended) client.leave('destroy');
      else connection = 'closed';
    }
  } else if (s.kind === 'leave') {
    const { req, at, how } = s;
    const id = req.id;
    for (const [k, earlier] of s.earlier.entries()) {
      await send(earlier, k);
      await must(
        `answer ${k}`,
        client.until(() => client.ended || client.wholeAnswers() > k),
      );
    }
    if (at === 'mid-body') {
      const body = Buffer.concat(bodyPieces(req));
      client.write(Buffer.concat([headOf(req), body.subarray(0, Math.floor(body.length / 2))]));
      await must(
        'the app has the request',
        log.until(() => log.has(id, 'start')),
      );
      await must('the server read the part', serverRead(side, client));
    } else {
      client.write(Buffer.concat([headOf(req), ...bodyPieces(req)]));
      if (at === 'before-head')
        await must(
          'the app waits',
          log.until(() => log.has(id, 'waiting')),
        );
      else if (at === 'after-head')
        await must(
          'the head',
          client.until(() => client.ended || client.text().includes('\r\n\r\n')),
        );
      else
        await must(
          'a first piece of the answer',
          client.until(() => client.ended || /\r\n\r\n[^]/.test(client.text())),
        );
    }
    client.leave(how);
    // The server has seen the client go (a half-closed client: only once the app answered).
    if (how !== 'end')
      await must(
        'the response closed',
        log.until(() => log.has(id, 'res close')),
      );
    if (how === 'end')
      await new Promise<void>((resolve) => client.socket.once('finish', resolve).once('close', resolve));
    side.gates.open(id);
    connection = how === 'end' && (await client.until(() => client.closed)) ? 'closed' : 'left';
  } else {
    const { req } = s;
    const pieces = bodyPieces(req);
    client.write(headOf(req));
    // A chunked body is known to be over the limit once more than the limit came: all but its last chunk.
    if (req.chunked) for (const piece of pieces.slice(0, -1)) client.write(piece);
    await must('the server read the head', serverRead(side, client));
    await log.quiet();
    before = client.text();
    client.write(req.chunked ? pieces.at(-1)! : Buffer.concat(pieces));
    await must(
      'the answer',
      client.until(() => client.ended || client.wholeAnswers() >= 1),
    );
    connection = await followUp(1);
  }

  side.gates.openAll();
  // Every request the app saw has ended, as far as the app can tell, before the log is read.
  const started = log.ids().filter((id) => id.startsWith(`${s.index}.`));
  // (A response queued behind one whose connection was cut never closes: its request does.)
  for (const id of started)
    await must(
      `${id} closed`,
      log.until(() => log.has(id, 'res close') || log.has(id, 'req close')),
    );
  await log.quiet();
  if (!client.closed) client.socket.destroy();
  const parsed = answers(client.text(), client.heads);
  const cut = s.kind === 'leave' && s.at === 'mid-answer';
  return {
    answers: parsed.list.map((answer) => ({
      status: answer.status,
      headers: brandHidden(answer.headers.filter(([name]) => name !== 'date')),
      // What came before the client left in the middle is a matter of timing.
      body: cut ? '<cut>' : summary(answer.body),
      whole: cut || answer.whole,
    })),
    rest: cut ? '' : summary(parsed.rest),
    connection,
    before,
    listeners,
    timeouts,
    log: Object.fromEntries(started.map((id) => [id, log.of(id)])),
    serving: await serving(side),
  };
}

/** A long body as its length and edges, so that a difference reads in a line. */
function summary(body: string): string {
  return body.length <= 400 ? body : `${body.slice(0, 150)}...<${body.length} bytes>...${body.slice(-150)}`;
}

/** How many listeners a socket has for each of its events. */
function listenersOf(socket: net.Socket): Record<string, number> {
  return Object.fromEntries(socket.eventNames().map((name) => [String(name), socket.listenerCount(name)]));
}

/** The server answers a plain request on a new connection. */
async function serving(side: Side): Promise<boolean> {
  const client = await connectClient(side);
  client.write(Buffer.from('GET /ping?id=check HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'));
  const closed = await client.until(() => client.closed);
  if (!closed) client.socket.destroy();
  return closed && client.text().endsWith('\r\n\r\npong') && client.text().startsWith('HTTP/1.1 200 OK');
}

/**
 * The app on `framework`, served by `app.listen` (webapp's own server classes) or by
 * `http.createServer(app)` (the prototypes swapped on each request).
 */
async function startSide(framework: Any, listen: boolean): Promise<Side & { close(): Promise<void> }> {
  const log = new ServerLog();
  const gates = new Gates();
  const app = defineApp(framework, log, gates) as Any;
  const server: http.Server = listen ? app.listen(0, '127.0.0.1') : http.createServer(app).listen(0, '127.0.0.1');
  let last: net.Socket | undefined;
  server.on('connection', (socket: net.Socket) => {
    last = socket;
    // The observers' on-finished listeners on the connection add up with pipelined
    // requests (on Express too); webapp's file sending listens to the socket itself
    // besides, where Express's send joins the on-finished package's listener, so up to 3
    // more: Node's warning at 11 would come at 5 pipelined file requests, not 8. What is
    // compared instead is what stays on a kept connection between requests (listeners).
    socket.setMaxListeners(20);
    // Connecting clients wait for it (connectClient): an entry of no request.
    log.add('', 'connection');
  });
  if (!server.listening) await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    log,
    gates,
    lastConnection: () => last,
    close: async () => {
      gates.openAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const FILE_CALLBACK = /^(?:sendFile|download) callback /;

/**
 * Express's and webapp's outcomes as they are compared: the differences below are
 * by design or not the app's to see, and are taken out of both.
 */
function comparable(s: Scenario, expected: Outcome, actual: Outcome): [Outcome, Outcome] {
  const logs = [{ ...expected.log }, { ...actual.log }];
  for (const id of Object.keys(expected.log)) {
    if (!actual.log[id]) continue;
    const file = s.kind === 'exchange' && s.reqs.some((req) => req.id === id && FILE_SHAPES.has(req.shape));
    // A file response queued behind another on a pipelined connection that closed before
    // its turn (it never finished; on Node 20 it may never close either, its request
    // does). Express opens the file at once: its callback comes without an error, with
    // the file's error, or never, and the error handlers read the request or not, as the
    // thread pool's timing against the connection's end decides. webapp opens it at its
    // turn, so the callback gets the error of a client that left (ECONNABORTED, or the
    // connection's own error) and its error handler runs then (docs/migrating-from-
    // express-4.md, "A client pipelines file requests": a file, a HEAD or a 304 answer
    // waiting for its turn; "A pipelined file request waiting behind another"). That the
    // app had the request and saw it close is compared.
    const queued = (log: string[]) => !log.some((entry) => entry.startsWith('res finish'));
    if (s.kind === 'exchange' && s.pipelined && file && queued(expected.log[id]) && queued(actual.log[id]))
      for (const log of logs)
        log[id] = log[id]
          .filter((entry) => entry.startsWith('start ') || entry.startsWith('req close'))
          .map((entry) => entry.replace(/ headersSent=.*$/, ''));
    // Where a file's callback runs on the connection's error (the client left), Express's
    // comes with the other on-finished listeners of the response, before those of the
    // request (the on-finished package keeps one queue a message, which send joins);
    // webapp's file sending has its own listener on the socket, added when the file is
    // sent, so the request's on-finished listeners added before it run first. Whether it
    // ran is compared, not its place among the request's.
    for (const log of logs)
      if (log[id].some((entry) => FILE_CALLBACK.test(entry))) log[id] = placeless(log[id], 'on-finished req');
    // A file response queued behind another (pipelined): Express makes its answer at
    // once, so its request, read and ended, closes while the answer waits; webapp makes
    // it at its turn (docs/migrating-from-express-4.md, "A pipelined file request
    // waiting behind another"), and the request closes after it. That it closed, and in
    // what state, is compared.
    const behind = s.kind === 'exchange' && s.pipelined && s.reqs.findIndex((req) => req.id === id) > 0;
    if (behind && file) for (const log of logs) log[id] = placeless(log[id], 'req close');
  }
  return [
    { ...expected, log: logs[0] },
    { ...actual, log: logs[1] },
  ];
}

/** The log with the entries that start with `prefix` taken from their places and put last. */
function placeless(log: string[], prefix: string): string[] {
  const moved = log.filter((entry) => entry.startsWith(prefix)).sort();
  return [...log.filter((entry) => !entry.startsWith(prefix)), ...moved];
}

/** What differs between two outcomes, a line a differing part (the rest is the same). */
function difference(s: Scenario, expected: Outcome, actual: Outcome): string {
  const lines = [describeScenario(s)];
  for (const key of Object.keys(expected) as Array<keyof Outcome>) {
    if (key === 'log') continue;
    if (!isDeepStrictEqual(actual[key], expected[key]))
      lines.push(`  ${key}:\n    express: ${show(expected[key], 600, 5)}\n    webapp:  ${show(actual[key], 600, 5)}`);
  }
  for (const id of new Set([...Object.keys(expected.log), ...Object.keys(actual.log)]))
    if (!isDeepStrictEqual(actual.log[id], expected.log[id]))
      lines.push(`  log of ${id}:\n    express: ${show(expected.log[id])}\n    webapp:  ${show(actual.log[id])}`);
  return lines.join('\n');
}

describe('generated client behaviours over time: webapp does as express@4 does', () => {
  it(`${SCENARIOS} seeded scenarios (seed ${testSeed()}), and both keep serving`, async () => {
    const random = prng(SEED);
    const scenarios = Array.from({ length: SCENARIOS }, (_, index) => generate(random, index));
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUncaught);
    // A listener left on a kept-alive socket by each request shows as Node's MaxListeners warning.
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const differences: string[] = [];
    // The final handlers log each error's stack in production: kept out of the test's output.
    await captureStderrOf(async () => {
      // Scenarios take turns between the two ways of serving an app.
      const sides = [false, true].map(async (listen) => ({
        oracle: await startSide(express, listen),
        subject: await startSide(webapp, listen),
      }));
      const servers = await Promise.all(sides);
      try {
        for (const s of scenarios) {
          const { oracle, subject } = servers[s.index % 2];
          const [expected, actual] = comparable(s, ...(await Promise.all([run(oracle, s), run(subject, s)])));
          assert.ok(actual.serving, `webapp stopped serving after ${describeScenario(s)}`);
          if (!isDeepStrictEqual(actual, expected)) differences.push(difference(s, expected, actual));
          // A fact the client or the test waits for that never came on Express is a scenario that tests nothing.
          else if (expected.timeouts.length > 0)
            differences.push(`${describeScenario(s)}\n  waited in vain on both: ${expected.timeouts.join(', ')}`);
          if (differences.length >= 5) break;
        }
      } finally {
        await Promise.all(servers.flatMap(({ oracle, subject }) => [oracle.close(), subject.close()]));
      }
    });
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
    process.off('warning', onWarning);
    assert.deepEqual(uncaught, [], 'an exception or rejection went uncaught');
    assert.deepEqual(warnings, [], 'warnings');
    assert.equal(differences.length, 0, `${differences.length} scenarios differ:\n${differences.join('\n')}`);
  });
});
