/**
 * Generated shutdown scenarios (seeded; WEBAPP_TEST_SEED draws others) against a real
 * server under webapp.graceful() on 127.0.0.1: `app.listen`, `http.createServer(app)`,
 * `https.createServer` and `http2.createSecureServer({ allowHTTP1 })`. A scenario opens
 * a few connections, each with a script of exchanges: none (a fresh connection that
 * stays silent), quick requests on a kept-alive connection, a request in flight (its
 * handler answers once the test resolves its promise), a response streamed in pieces
 * (chunked or with Content-Length), an upload sent in pieces (chunked, with
 * Content-Length, with `Expect: 100-continue`), one answered 401 before its body came,
 * pipelined requests, a request head sent in two parts, HTTP/1.0 and `Connection:
 * close` clients, an upgrade (101 through the server's `upgrade` event), an event
 * stream, a request that never gets an answer, a TLS connection whose handshake
 * begins only after the close, and HTTP/2 sessions with streams in flight. The steps
 * of all connections are interleaved, `server.close()` comes at a generated point,
 * and the rest follows (handlers released, more requests on kept-alive connections,
 * new connections attempted).
 *
 * Each step waits for a fact it can observe (the app has the request, the server
 * has read the bytes, the client has the answer), never for a fixed time. Three
 * modes: the default 100 ms grace (or another short one) with a far deadline; a
 * long grace (every connection then sends a request after the close, which must be
 * answered with `Connection: close`); and a short deadline with something that
 * hangs. What docs/production.md promises is checked for each scenario:
 *
 * - every request the app saw, or whose bytes the server had read before the close,
 *   is answered in full (status, body byte for byte), unless the deadline cut it;
 *   one sent after the close is answered in full or not at all (the race the docs
 *   describe), never in part; an answer whose head was written after the close, the
 *   connection's last, says `Connection: close`, and a request pipelined behind an
 *   answer that said it is neither run nor answered (RFC 9112 section 9.6);
 * - no connection is accepted after the close, and a new one is refused;
 * - the server closes every connection it holds (a silent or idle one after the
 *   grace, never before it; one whose upload is still coming after an early answer
 *   only once it has come; an upgraded one only in `onDrain` or at the deadline);
 * - `close()`'s callback comes once, without an error, once everything has drained;
 *   with something hanging, not before the deadline and not long after it;
 * - nothing is left open (server connections, TCP/TLS handles), no warning and
 *   nothing on stderr, and an upgrade asked for during the drain never reaches the
 *   app's listener.
 *
 * A child-process variant runs `webapp.graceful` with its signals: SIGTERM or SIGINT
 * during requests in flight, then the exit code, the order of `onDrain`, the
 * responses' `close`, the server's `close` and `onShutdown`, the handles left when
 * `onShutdown` runs, and the deadline when a request hangs.
 *
 * Times are only checked one way (nothing closed before the grace or the deadline, on
 * the event loop's clock, which the drain's timers use) plus generous upper bounds, so
 * a slow, loaded machine passes. A failure names its scenario and seed and lists the
 * steps as they ran: `WEBAPP_TEST_SEED=<n>` with `--test-name-pattern` reproduces it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import { before, describe, it } from 'node:test';
import webapp = require('../../src/index');
import { watchChild } from '../support/child-output';
import { chance, pick, prng, testSeed, type Random } from '../support/prng';
import { selfSignedCert } from '../support/self-signed-cert';
import { connect, parseResponses, refused, signal, type Connection } from './connection';

type Any = any;

const SEED = 0x5d_0c10;
/** In-process scenarios a run: about 5 s of the file's wall time on a loaded 2-core machine. */
const SCENARIOS = 20;
/** Child-process (signal) scenarios a run: each starts a Node process with tsx. */
const SIGNAL_SCENARIOS = 2;
/** A deadline far beyond the test's own waits: only the drain itself may end the connections. */
const FAR = 10 * 60 * 1000;
/** The grace of the long-grace mode: never reached, every connection sends a request within it. */
const LONG_GRACE = 60 * 1000;
/** How long a fact may take to become true on a loaded machine before the scenario fails. */
const WAIT_LIMIT = 20_000;
/**
 * A close this much before the grace or the deadline still counts as on time: the event loop's
 * clock (loopNow) counts whole milliseconds. For the child process, whose clock is not ours,
 * SIGNAL_SLACK: a signal's handler runs on a loop time taken after the signal came, so only
 * rounding separates the two. Far below any grace, so closing at once is still caught.
 */
const SLACK = 2;
const SIGNAL_SLACK = 5;

let key: Buffer;
let cert: Buffer;
before(() => {
  ({ key, cert } = selfSignedCert());
});

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The event loop's clock, which timers count from (a Timeout's start), in ms. Not the
 * moment's (performance.now()): the loop takes its time once a turn, so a process held
 * off the CPU between that and the close() would see the drain's timers fire "early" by
 * the moment's clock; by the loop's, nothing closed before its time ever looks early.
 */
const loopNow: () => number = (() => {
  const start = () => {
    const timer = setTimeout(() => {}, 0);
    clearTimeout(timer);
    return (timer as unknown as { _idleStart?: unknown })._idleStart;
  };
  return typeof start() === 'number' ? () => start() as number : () => performance.now();
})();

/** Resolves once `condition()` holds (polled), or rejects with `what` after `limit` ms. */
async function until(condition: () => boolean, what: string, limit = WAIT_LIMIT): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > limit) throw new Error(`waited ${limit} ms for ${what}`);
    await delay(2);
  }
}

/** Resolves once `promise` has, or after `limit` ms (its timer cleared either way: nothing holds the process). */
async function within(promise: Promise<unknown>, limit: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, limit)));
  try {
    await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------
// Scenarios

type ServerKind = 'app.listen' | 'http.createServer' | 'https' | 'http2';
/** short: a short grace, far deadline; long: a grace never reached; deadline: something hangs, a short deadline. */
type Mode = 'short' | 'long' | 'deadline';
type Version = '1.1' | '1.1-close' | '1.0' | '1.0-keep-alive';

type Exchange =
  | { kind: 'quick' | 'slow' | 'hang'; version: Version; size: number }
  | { kind: 'stream'; version: Version; sizes: number[]; length: boolean }
  | { kind: 'events' }
  | { kind: 'upload'; sizes: number[]; chunked: boolean; expect: boolean }
  | { kind: 'reject'; sizes: number[] }
  | { kind: 'pipelined'; parts: ('quick' | 'slow')[] }
  | { kind: 'partial'; split: number }
  | { kind: 'upgrade'; clientEnds: boolean };

interface ConnPlan {
  protocol: 'h1' | 'h2';
  /** TLS servers: TCP connect before the close, the handshake with the first request. */
  lateHandshake: boolean;
  exchanges: Exchange[];
}

interface Scenario {
  index: number;
  seed: number;
  server: ServerKind;
  mode: Mode;
  idleGrace: number | undefined;
  timeout: number;
  onDrain: boolean;
  conns: ConnPlan[];
  probes: number;
  random: Random;
}

const int = (random: Random, min: number, max: number) => min + Math.floor(random() * (max - min + 1));
const sizes = (random: Random, count: number, max: number) => Array.from({ length: count }, () => int(random, 1, max));
const bodySize = (random: Random) => pick(random, [0, 5, 100, 5000, 70_000, 300_000]);

function version(random: Random): Version {
  return chance(random, 0.6) ? '1.1' : pick(random, ['1.1-close', '1.0', '1.0-keep-alive'] as const);
}

function generateExchange(random: Random, server: ServerKind, mode: Mode, onDrain: boolean): Exchange {
  const kinds: Exchange['kind'][] = ['quick', 'quick', 'slow', 'slow', 'stream', 'upload', 'pipelined', 'partial'];
  kinds.push('reject');
  if (server !== 'http2') kinds.push('upgrade');
  if (onDrain || mode === 'deadline') kinds.push('events');
  if (mode === 'deadline') kinds.push('hang');
  const kind = pick(random, kinds);
  switch (kind) {
    case 'quick':
    case 'slow':
    case 'hang':
      return { kind, version: version(random), size: kind === 'slow' ? bodySize(random) : 0 };
    case 'stream':
      return {
        kind,
        version: version(random),
        sizes: sizes(random, int(random, 2, 4), 40_000),
        length: chance(random, 0.5),
      };
    case 'events':
      return { kind };
    case 'upload':
      return {
        kind,
        sizes: sizes(random, int(random, 1, 4), 50_000),
        chunked: chance(random, 0.5),
        expect: chance(random, 0.25),
      };
    case 'reject':
      return { kind, sizes: sizes(random, int(random, 2, 3), 20_000) };
    case 'pipelined':
      return { kind, parts: Array.from({ length: int(random, 2, 3) }, () => pick(random, ['quick', 'slow'] as const)) };
    case 'partial':
      return { kind, split: int(random, 1, 20) };
    case 'upgrade':
      return { kind, clientEnds: !onDrain && mode !== 'deadline' };
  }
}

/** Whether nothing may follow `exchange` on its connection (the client or the server ends it after). */
function endsConnection(exchange: Exchange): boolean {
  if (exchange.kind === 'upgrade' || exchange.kind === 'events' || exchange.kind === 'hang') return true;
  const v = 'version' in exchange ? exchange.version : '1.1';
  return v === '1.1-close' || v === '1.0';
}

function generate(index: number): Scenario {
  const seed = (SEED + index * 7919) >>> 0;
  const random = prng(seed);
  const server = pick(random, ['app.listen', 'http.createServer', 'https', 'http2'] as const);
  const mode = pick(random, ['short', 'short', 'long', 'deadline'] as const);
  const idleGrace = mode === 'long' ? LONG_GRACE : pick(random, [undefined, undefined, 50, 150]);
  const timeout = mode === 'deadline' ? pick(random, [250, 400]) : FAR;
  const onDrain = mode === 'deadline' ? chance(random, 0.5) : chance(random, 0.6);
  const conns: ConnPlan[] = [];
  for (let c = int(random, 2, 5); c > 0; c--) {
    const protocol = server === 'http2' && chance(random, 0.4) ? 'h2' : 'h1';
    const exchanges: Exchange[] = [];
    const count = chance(random, 0.15) ? 0 : int(random, 1, 3);
    for (let e = 0; e < count; e++) {
      if (protocol === 'h2') {
        const kind = pick(
          random,
          mode === 'deadline' ? (['quick', 'slow', 'hang'] as const) : (['quick', 'slow'] as const),
        );
        exchanges.push({ kind, version: '1.1', size: kind === 'slow' ? bodySize(random) : 0 });
        continue;
      }
      const exchange = generateExchange(random, server, mode, onDrain);
      exchanges.push(exchange);
      if (endsConnection(exchange)) break;
    }
    const secure = server === 'https' || server === 'http2';
    conns.push({ protocol, lateHandshake: secure && protocol === 'h1' && chance(random, 0.15), exchanges });
  }
  if (mode === 'deadline' && !conns.some((conn) => conn.exchanges.some(hangs(onDrain)))) {
    conns.push({ protocol: 'h1', lateHandshake: false, exchanges: [{ kind: 'hang', version: '1.1', size: 0 }] });
  }
  return { index, seed, server, mode, idleGrace, timeout, onDrain, conns, probes: int(random, 0, 2), random };
}

/** Exchanges nothing ends before the deadline (without onDrain, event streams and upgrades the client keeps too). */
const hangs = (onDrain: boolean) => (exchange: Exchange) =>
  exchange.kind === 'hang' ||
  (!onDrain && (exchange.kind === 'events' || (exchange.kind === 'upgrade' && !exchange.clientEnds)));

function describeScenario(s: Scenario): string {
  const show = (e: Exchange) => {
    const { kind, ...rest } = e;
    return `${kind}${Object.keys(rest).length ? JSON.stringify(rest) : ''}`;
  };
  const conns = s.conns.map(
    (c, i) =>
      `  #${i} ${c.protocol}${c.lateHandshake ? ' late-handshake' : ''}: ` +
      (c.exchanges.map(show).join(', ') || 'silent'),
  );
  return [
    `scenario ${s.index} (seed ${s.seed}, WEBAPP_TEST_SEED=${testSeed()}): ${s.server}, mode ${s.mode}, ` +
      `idleGrace ${s.idleGrace ?? 'default'}, timeout ${s.timeout}, onDrain ${s.onDrain}, probes ${s.probes}`,
    ...conns,
  ].join('\n');
}

// ---------------------------------------------------------------------------
// The server side: an app whose handlers the test drives

/** The bytes every body is made of, derived from the request's id: the test knows each answer. */
const filler = (id: number, size: number) => Buffer.alloc(size, `${id}-body-`);
const piece = (id: number, index: number, size: number) => Buffer.alloc(size, `[${id}:${index}]`);
const uploadPiece = (id: number, index: number, size: number) => Buffer.alloc(size, `u${id}.${index}-`);
const EVENTS_END = Buffer.from('[end]');

class ServerSide {
  closing = false;
  closeAt = 0;
  /** Requests the app has seen, by id, with their response. */
  readonly seen = new Map<number, http.ServerResponse>();
  /** Ids whose response had its head written when close() was called. */
  readonly headSentAtClose = new Set<number>();
  private readonly gates = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  /** Per client port: the socket HTTP/1 requests are read from (TLS: the TLSSocket), and the raw one. */
  readonly requestSockets = new Map<number, net.Socket>();
  readonly rawSockets = new Map<number, net.Socket>();
  acceptedAfterClose = 0;
  sessions = 0;
  readonly upgrades = new Set<net.Socket>();
  readonly upgradesSeenInDrain: string[] = [];
  readonly eventStreams = new Set<http.ServerResponse>();
  readonly errors: string[] = [];
  onDrainCalls = 0;

  gate(key: string): { promise: Promise<void>; resolve: () => void } {
    let gate = this.gates.get(key);
    if (!gate) {
      gate = signal();
      this.gates.set(key, gate);
    }
    return gate;
  }
  release(key: string): void {
    this.gate(key).resolve();
  }

  app(): Any {
    const app = webapp();
    app.use((req: Any, res: Any, next: Any) => {
      const id = Number(req.query.id);
      this.seen.set(id, res);
      res.setHeader('X-Id', String(id));
      next();
    });
    app.get('/quick', (req: Any, res: Any) => res.send(`quick ${req.query.id}`));
    app.get('/slow', async (req: Any, res: Any) => {
      const id = Number(req.query.id);
      await this.gate(String(id)).promise;
      res.send(Buffer.concat([Buffer.from(`slow ${id} `), filler(id, Number(req.query.size))]));
    });
    app.get('/hang', () => {});
    app.get('/stream', async (req: Any, res: Any) => {
      const id = Number(req.query.id);
      const parts = String(req.query.sizes)
        .split(',')
        .map((size, i) => piece(id, i, Number(size)));
      res.type('text');
      if (req.query.length === '1')
        res.setHeader(
          'Content-Length',
          parts.reduce((sum, part) => sum + part.length, 0),
        );
      res.write(parts[0]);
      for (let i = 1; i < parts.length; i++) {
        await this.gate(`${id}:${i}`).promise;
        if (res.destroyed) return;
        res.write(parts[i]);
      }
      res.end();
    });
    app.get('/events', (req: Any, res: Any) => {
      res.type('text');
      res.write(piece(Number(req.query.id), 0, 10));
      this.eventStreams.add(res);
      res.on('close', () => this.eventStreams.delete(res));
    });
    app.post('/upload', (req: Any, res: Any) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        res.send(`${body.length} ${sha(body)}`);
      });
    });
    app.post('/reject', (req: Any, res: Any) => res.status(401).send(`no ${req.query.id}`));
    return app;
  }

  /** Tracks the server's connections and answers upgrades; called before graceful(). */
  watch(server: net.Server): void {
    server.on('connection', (socket: net.Socket) => {
      if (this.closing) this.acceptedAfterClose++;
      this.rawSockets.set(socket.remotePort!, socket);
      if (!(server instanceof tls.Server)) this.requestSockets.set(socket.remotePort!, socket);
    });
    server.on('secureConnection', (socket: tls.TLSSocket) => this.requestSockets.set(socket.remotePort!, socket));
    server.on('session', () => this.sessions++);
    server.on('error', (err: Error) => this.errors.push(`server error: ${err.message}`));
    server.on('upgrade', (req: http.IncomingMessage, socket: net.Socket) => {
      if (this.closing) this.upgradesSeenInDrain.push(req.url ?? '');
      socket.on('error', () => {});
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n');
      socket.on('data', (chunk: Buffer) => socket.write(chunk));
      // The server's sockets allow half-open connections: the app ends its side when the client does.
      socket.on('end', () => socket.end());
      this.upgrades.add(socket);
      socket.on('close', () => this.upgrades.delete(socket));
    });
  }

  /** What the app does as the drain begins: a goodbye on its upgraded connections, the end of its event streams. */
  drain(): void {
    this.onDrainCalls++;
    for (const socket of this.upgrades) socket.end('bye\n');
    for (const res of this.eventStreams) res.end(EVENTS_END);
  }
}

async function startServer(s: Scenario, side: ServerSide): Promise<{ server: net.Server; port: number }> {
  const app = side.app();
  let server: net.Server;
  if (s.server === 'app.listen') server = app.listen(0, '127.0.0.1');
  else if (s.server === 'http.createServer') server = http.createServer(app).listen(0, '127.0.0.1');
  else if (s.server === 'https') server = https.createServer({ key, cert }, app).listen(0, '127.0.0.1');
  else server = http2.createSecureServer({ key, cert, allowHTTP1: true }, app).listen(0, '127.0.0.1');
  side.watch(server);
  webapp.graceful(server, {
    signals: [],
    timeout: s.timeout,
    ...(s.idleGrace === undefined ? {} : { idleGrace: s.idleGrace }),
    ...(s.onDrain ? { onDrain: () => side.drain() } : {}),
  });
  // A connection left to Node's keep-alive timer fails the scenario (it outlasts WAIT_LIMIT).
  (server as { keepAliveTimeout?: number }).keepAliveTimeout = FAR;
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

// ---------------------------------------------------------------------------
// The client side

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  complete: boolean;
}

/**
 * The answers in what a server wrote on an HTTP/1 connection: framed by Content-Length,
 * chunked, or (neither) by the connection's end; 100 Continue skipped; a 101 ends the
 * HTTP part (its body is what followed). The last may be incomplete.
 */
function parseAnswers(bytes: Buffer, ended: boolean): Answer[] {
  const answers: Answer[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const headEnd = bytes.indexOf('\r\n\r\n', offset);
    if (headEnd < 0) {
      answers.push({ status: 0, headers: {}, body: Buffer.alloc(0), complete: false });
      break;
    }
    const [statusLine, ...lines] = bytes.subarray(offset, headEnd).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(statusLine!.split(' ')[1]);
    offset = headEnd + 4;
    if (status === 100) continue;
    if (status === 101) {
      answers.push({ status, headers, body: bytes.subarray(offset), complete: true });
      break;
    }
    if (headers['transfer-encoding'] === 'chunked') {
      const parts: Buffer[] = [];
      let complete = false;
      for (;;) {
        const lineEnd = bytes.indexOf('\r\n', offset);
        if (lineEnd < 0) break;
        const size = parseInt(bytes.subarray(offset, lineEnd).toString('latin1'), 16);
        const start = lineEnd + 2;
        if (size === 0) {
          complete = bytes.length >= start + 2;
          offset = start + 2;
          break;
        }
        parts.push(bytes.subarray(start, Math.min(bytes.length, start + size)));
        if (bytes.length < start + size + 2) break;
        offset = start + size + 2;
      }
      answers.push({ status, headers, body: Buffer.concat(parts), complete });
      if (!complete) break;
    } else if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      const body = bytes.subarray(offset, offset + length);
      answers.push({ status, headers, body, complete: body.length === length });
      if (body.length !== length) break;
      offset += length;
    } else {
      answers.push({ status, headers, body: bytes.subarray(offset), complete: ended });
      break;
    }
  }
  return answers;
}

interface Expected {
  id: number;
  status: number;
  body: Buffer;
  /** The request was written after the close began. */
  afterClose: boolean;
  /** The server had read bytes of it before the close (awaited). */
  readBeforeClose: boolean;
  /** An upgrade request: a 101, or during the drain a 503. */
  upgrade?: boolean;
}

/** What every client connection shares. */
abstract class Client {
  closedAt: number | undefined;
  error: string | undefined;
  /** Whether the client itself ended the connection. */
  endedByClient = false;
  readonly closed = signal();
  readonly expected: Expected[] = [];
  /** Whether the connection was open when the close began. */
  openAtClose = false;

  constructor(
    readonly name: string,
    readonly run: Run,
  ) {}

  protected noteClosed(): void {
    if (this.closedAt !== undefined) return;
    this.closedAt = loopNow();
    this.closed.resolve();
  }
  protected noteError(err: NodeJS.ErrnoException): void {
    this.error ??= err.code ?? err.message;
  }

  abstract steps(plan: ConnPlan): Step[];
  abstract destroy(): void;
  abstract check(violations: string[]): void;
}

interface Step {
  label: string;
  /** Must run before the close (the connect, a request that is to be in flight at the close). */
  beforeClose: boolean;
  run: () => Promise<void>;
}

class H1Client extends Client {
  socket: net.Socket | undefined;
  private raw: net.Socket | undefined;
  private readonly chunks: Buffer[] = [];
  private length = 0;
  private parsed: { length: number; ended: boolean; answers: Answer[] } | undefined;
  port = 0;
  written = 0;
  /** The part of a body the server closed the connection before reading, after answering it early. */
  lostBody: string | undefined;

  constructor(
    name: string,
    run: Run,
    private readonly secure: boolean,
    private readonly lateHandshake: boolean,
  ) {
    super(name, run);
  }

  answers(): Answer[] {
    const ended = this.closedAt !== undefined;
    if (this.parsed?.length !== this.length || this.parsed.ended !== ended) {
      this.parsed = { length: this.length, ended, answers: parseAnswers(Buffer.concat(this.chunks), ended) };
    }
    return this.parsed.answers;
  }

  /** The answer to this connection's request number `n`, once complete. */
  answered(n: number): boolean {
    const answers = this.answers();
    return answers.length > n && answers[n]!.complete;
  }

  /** Whether no further request may be sent: closed, upgraded, or told `Connection: close`. */
  get finished(): boolean {
    if (this.closedAt !== undefined || this.endedByClient) return true;
    const answers = this.answers();
    const last = answers[answers.length - 1];
    // Told close by an answer still coming (one that ends with the connection) is told too.
    return last !== undefined && ((last.complete && last.status === 101) || last.headers.connection === 'close');
  }

  private attach(socket: net.Socket): void {
    socket.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.length += chunk.length;
    });
    socket.on('error', (err) => this.noteError(err));
    socket.on('close', () => this.noteClosed());
  }

  async connect(): Promise<void> {
    const { port } = this.run;
    const raw = net.connect(port, '127.0.0.1');
    this.raw = raw;
    raw.on('error', (err) => this.noteError(err));
    await new Promise<void>((resolve, reject) => raw.once('connect', resolve).once('error', reject));
    this.port = raw.localPort!;
    // Accepted by the server too (not only by the kernel's backlog), before the close.
    await until(() => this.run.side.rawSockets.has(this.port), `the server to accept ${this.name}`);
    if (this.secure && !this.lateHandshake) await this.handshake();
    else if (!this.secure) {
      this.socket = raw;
      this.attach(raw);
    } else raw.on('close', () => this.noteClosed());
  }

  private async handshake(): Promise<void> {
    const socket = tls.connect({ socket: this.raw!, servername: 'localhost', ca: cert, ALPNProtocols: ['http/1.1'] });
    this.socket = socket;
    this.attach(socket);
    await until(
      () => this.closedAt !== undefined || this.run.side.requestSockets.has(this.port),
      `the TLS handshake of ${this.name}`,
    );
  }

  /** Writes `bytes` unless the connection is over; false when it was. */
  async write(bytes: string | Buffer): Promise<boolean> {
    if (this.socket === undefined && this.closedAt === undefined) await this.handshake();
    if (this.closedAt !== undefined || this.socket === undefined || this.endedByClient) return false;
    this.socket.write(bytes);
    this.written += Buffer.byteLength(bytes);
    return true;
  }

  /** Resolves once the server has read everything written so far (or the connection closed); true when it had. */
  async serverRead(what: string): Promise<boolean> {
    const side = this.run.side;
    await until(
      () => this.closedAt !== undefined || (side.requestSockets.get(this.port)?.bytesRead ?? 0) >= this.written,
      `the server to read ${what}`,
    );
    return (side.requestSockets.get(this.port)?.bytesRead ?? 0) >= this.written;
  }

  private expect(id: number, status: number, body: Buffer, extra: Partial<Expected> = {}): Expected {
    const expected: Expected = {
      id,
      status,
      body,
      afterClose: this.run.side.closing,
      readBeforeClose: false,
      ...extra,
    };
    this.expected.push(expected);
    return expected;
  }

  /** Awaits the app seeing `id`, or the connection closing; notes a read before the close. */
  private async seen(id: number, expected: Expected): Promise<void> {
    const side = this.run.side;
    await until(() => side.seen.has(id) || this.closedAt !== undefined, `the app to see request ${id} on ${this.name}`);
    if (side.seen.has(id) && !side.closing) expected.readBeforeClose = true;
  }

  private async answer(n: number, what: string): Promise<void> {
    await until(() => this.answered(n) || this.closedAt !== undefined, `the answer to ${what} on ${this.name}`);
  }

  steps(plan: ConnPlan): Step[] {
    const steps: Step[] = [{ label: `${this.name} connects`, beforeClose: true, run: () => this.connect() }];
    for (const exchange of plan.exchanges)
      steps.push(...this.exchangeSteps(exchange, hangs(this.run.s.onDrain)(exchange)));
    return steps;
  }

  private exchangeSteps(e: Exchange, hanging: boolean): Step[] {
    const run = this.run;
    const side = run.side;
    const label = (what: string) => `${this.name} ${what}`;
    const step = (what: string, fn: () => Promise<void>, beforeClose = false): Step => ({
      label: label(what),
      beforeClose,
      run: async () => {
        if (!this.finished) await fn();
      },
    });
    // The request's number on this connection, known once its first step runs.
    let n = -1;
    switch (e.kind) {
      case 'quick':
      case 'slow':
      case 'hang': {
        const id = run.nextId();
        const path = `/${e.kind}?id=${id}&size=${e.size}`;
        let expected: Expected | undefined;
        const body =
          e.kind === 'quick'
            ? Buffer.from(`quick ${id}`)
            : Buffer.concat([Buffer.from(`slow ${id} `), filler(id, e.size)]);
        const send = step(
          `sends GET ${path} (${e.version})`,
          async () => {
            n = this.expected.length;
            if (!(await this.write(head('GET', path, e.version)))) return;
            expected = this.expect(id, 200, body);
            if (e.kind === 'quick') await this.answer(n, path);
            else await this.seen(id, expected);
          },
          hanging,
        );
        if (e.kind !== 'slow') return [send];
        return [
          send,
          {
            label: label(`'s handler for ${id} answers`),
            beforeClose: false,
            run: async () => {
              run.side.release(String(id));
              if (expected) await this.answer(n, path);
            },
          },
        ];
      }
      case 'stream': {
        const id = run.nextId();
        const path = `/stream?id=${id}&sizes=${e.sizes.join(',')}&length=${e.length ? 1 : 0}`;
        const parts = e.sizes.map((size, i) => piece(id, i, size));
        let sent = false;
        const received = (count: number) => parts.slice(0, count).reduce((sum, part) => sum + part.length, 0);
        const steps: Step[] = [
          step(`sends GET ${path} (${e.version})`, async () => {
            n = this.expected.length;
            if (!(await this.write(head('GET', path, e.version)))) return;
            const expected = this.expect(id, 200, Buffer.concat(parts));
            sent = true;
            await this.seen(id, expected);
            await until(
              () => this.closedAt !== undefined || (this.answers()[n]?.body.length ?? 0) >= received(1),
              `the first piece of ${path}`,
            );
          }),
        ];
        for (let i = 1; i < parts.length; i++) {
          steps.push({
            label: label(`'s stream ${id} writes piece ${i}`),
            beforeClose: false,
            run: async () => {
              side.release(`${id}:${i}`);
              if (!sent) return;
              await until(
                () =>
                  this.closedAt !== undefined ||
                  (this.answers()[n]?.body.length ?? 0) >= received(i + 1) ||
                  this.answered(n),
                `piece ${i} of ${path}`,
              );
            },
          });
        }
        return steps;
      }
      case 'events': {
        const id = run.nextId();
        return [
          step(
            `opens event stream ${id}`,
            async () => {
              n = this.expected.length;
              if (!(await this.write(head('GET', `/events?id=${id}`, '1.1')))) return;
              const expected = this.expect(id, 200, Buffer.concat([piece(id, 0, 10), EVENTS_END]));
              await this.seen(id, expected);
              await until(
                () => this.closedAt !== undefined || (this.answers()[n]?.body.length ?? 0) >= 10,
                `event ${id}`,
              );
            },
            true,
          ),
        ];
      }
      case 'upload':
      case 'reject': {
        const id = run.nextId();
        const reject = e.kind === 'reject';
        const pieces = e.sizes.map((size, i) => uploadPiece(id, i, size));
        const body = Buffer.concat(pieces);
        const chunked = e.kind === 'upload' && e.chunked;
        const expectContinue = e.kind === 'upload' && e.expect;
        const framed = (i: number) => {
          const data = pieces[i]!;
          if (!chunked) return data;
          const last = i === pieces.length - 1 ? '0\r\n\r\n' : '';
          return Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from(`\r\n${last}`)]);
        };
        const path = `/${e.kind}?id=${id}`;
        const headers = [chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`];
        if (expectContinue) headers.push('Expect: 100-continue');
        let expected: Expected | undefined;
        let rejectedBeforeClose = false;
        const steps: Step[] = [
          step(
            `sends POST ${path} (${chunked ? 'chunked' : 'length'}${expectContinue ? ', 100-continue' : ''})`,
            async () => {
              n = this.expected.length;
              const first = head('POST', path, '1.1', headers);
              if (!(await this.write(expectContinue ? first : Buffer.concat([Buffer.from(first), framed(0)])))) return;
              expected = this.expect(
                id,
                reject ? 401 : 200,
                Buffer.from(reject ? `no ${id}` : `${body.length} ${sha(body)}`),
              );
              if (reject) {
                await this.answer(n, path);
                // Answered before the close, keep-alive: the rest of the body is still to come, and
                // the connection is not idle until it has (docs/production.md).
                rejectedBeforeClose = this.answered(n) && !side.closing;
              } else {
                await this.seen(id, expected);
                // The whole body went with the head: its answer comes before the connection's next request.
                if (pieces.length === 1 && !expectContinue) await this.answer(n, path);
              }
            },
          ),
        ];
        for (let i = expectContinue ? 0 : 1; i < pieces.length; i++) {
          steps.push({
            label: label(`sends piece ${i} of ${path}`),
            beforeClose: false,
            run: async () => {
              if (expected === undefined) return;
              if (!(await this.write(framed(i)))) {
                if (rejectedBeforeClose) this.lostBody = `piece ${i} of ${path}`;
                return;
              }
              if (i === pieces.length - 1 && !reject) await this.answer(n, path);
              else if (await this.serverRead(`piece ${i} of ${path}`)) {
                if (!side.closing) expected.readBeforeClose = true;
              } else if (rejectedBeforeClose) this.lostBody = `piece ${i} of ${path}`;
            },
          });
        }
        return steps;
      }
      case 'pipelined': {
        const ids = e.parts.map(() => run.nextId());
        const expectations: Expected[] = [];
        const first = step(`pipelines ${e.parts.map((kind, i) => `${kind} ${ids[i]}`).join(', ')}`, async () => {
          n = this.expected.length;
          const text = e.parts.map((kind, i) => head('GET', `/${kind}?id=${ids[i]}&size=5`, '1.1')).join('');
          if (!(await this.write(text))) return;
          e.parts.forEach((kind, i) => {
            const id = ids[i]!;
            const body =
              kind === 'quick'
                ? Buffer.from(`quick ${id}`)
                : Buffer.concat([Buffer.from(`slow ${id} `), filler(id, 5)]);
            expectations.push(this.expect(id, 200, body));
          });
          // The first one is read with the others; the app sees the others once it has answered the quick ones.
          await this.seen(ids[0]!, expectations[0]!);
          if (e.parts.every((kind) => kind === 'quick'))
            await this.answer(n + e.parts.length - 1, 'the pipelined requests');
        });
        const steps = [first];
        e.parts.forEach((kind, i) => {
          if (kind !== 'slow') return;
          steps.push({
            label: label(`'s pipelined handler for ${ids[i]} answers`),
            beforeClose: false,
            run: async () => {
              side.release(String(ids[i]));
              if (expectations.length === 0) return;
              // Answered in order: everything up to the next slow one comes now.
              let last = i;
              while (last + 1 < e.parts.length && e.parts[last + 1] === 'quick') last++;
              await until(
                () => this.closedAt !== undefined || side.seen.has(ids[last]!) || this.answered(n + last),
                `pipelined request ${ids[last]}`,
              );
              await this.answer(n + last, `pipelined request ${ids[last]}`);
            },
          });
        });
        return steps;
      }
      case 'partial': {
        const id = run.nextId();
        const request = head('GET', `/quick?id=${id}`, '1.1');
        let expected: Expected | undefined;
        return [
          step(`sends ${e.split} bytes of GET /quick?id=${id}`, async () => {
            n = this.expected.length;
            if (!(await this.write(request.slice(0, e.split)))) return;
            expected = this.expect(id, 200, Buffer.from(`quick ${id}`));
            if ((await this.serverRead(`the start of request ${id}`)) && !side.closing) expected.readBeforeClose = true;
          }),
          {
            label: label(`sends the rest of request ${id}`),
            beforeClose: false,
            run: async () => {
              if (expected === undefined || !(await this.write(request.slice(e.split)))) return;
              await this.answer(n, `request ${id}`);
            },
          },
        ];
      }
      case 'upgrade': {
        const id = run.nextId();
        const steps: Step[] = [
          step(
            `asks for an upgrade (${id})`,
            async () => {
              n = this.expected.length;
              const request = head('GET', `/upgrade?id=${id}`, '1.1', ['Upgrade: echo', 'Connection: Upgrade']);
              if (!(await this.write(request))) return;
              this.expect(id, 101, Buffer.alloc(0), { upgrade: true });
              await this.answer(n, 'the upgrade');
              if (this.answers()[n]?.status !== 101) return;
              // The upgraded connection echoes.
              this.socket!.write(`ping ${id}\n`);
              await until(
                () => this.closedAt !== undefined || this.answers()[n]!.body.toString().includes(`ping ${id}\n`),
                `the echo on ${this.name}`,
              );
            },
            hanging,
          ),
        ];
        if (e.clientEnds)
          steps.push({
            label: label('ends its upgraded connection'),
            beforeClose: false,
            run: async () => {
              if (this.closedAt !== undefined || this.answers()[n]?.status !== 101) return;
              this.endedByClient = true;
              this.socket!.end();
            },
          });
        return steps;
      }
    }
  }

  /** The long grace's last step: a request on every connection still open, to be answered with Connection: close. */
  finalStep(): Step {
    return {
      label: `${this.name} sends a last request`,
      beforeClose: false,
      run: async () => {
        if (this.finished) return;
        const id = this.run.nextId();
        const n = this.expected.length;
        if (!(await this.write(head('GET', `/quick?id=${id}`, '1.1')))) return;
        this.expect(id, 200, Buffer.from(`quick ${id}`));
        await this.answer(n, `last request ${id}`);
      },
    };
  }

  destroy(): void {
    this.socket?.destroy();
    this.raw?.destroy();
  }

  check(v: string[]): void {
    const { s, side } = this.run;
    const fail = (what: string) => v.push(`${this.name}: ${what}`);
    const answers = this.answers();
    const cutByDeadline =
      s.mode === 'deadline' && this.closedAt !== undefined && this.closedAt >= side.closeAt + s.timeout - SLACK;
    if (this.closedAt === undefined) {
      fail('never closed');
      return;
    }
    let answeredCount = 0;
    let toldClose = false;
    for (let i = 0; i < this.expected.length; i++) {
      const expected = this.expected[i]!;
      const answer = answers[i];
      const seen = side.seen.has(expected.id);
      if (toldClose) {
        // Sent before the client had the answer that said close: the client sends it again
        // elsewhere, so the app must not have run it, and no answer may follow the close.
        if (seen) fail(`request ${expected.id}, behind an answer that said Connection: close, was run`);
        if (answer !== undefined) fail(`request ${expected.id} was answered after an answer that said close`);
        break;
      }
      const must = seen || expected.readBeforeClose || (s.mode === 'long' && !this.endedByClient);
      if (answer === undefined) {
        if (must && !cutByDeadline)
          fail(`request ${expected.id} (${why(seen, expected)}) got no answer ` + `(${this.error ?? 'closed'})`);
        break;
      }
      if (!answer.complete) {
        if (!cutByDeadline)
          fail(
            `the answer to ${expected.id} was cut short: ${answer.body.length} of ${expected.body.length} bytes ` +
              `(${this.error ?? 'closed'})`,
          );
        break;
      }
      answeredCount++;
      toldClose = answer.headers.connection === 'close';
      if (expected.upgrade) {
        if (answer.status === 101 ? expected.afterClose : answer.status !== 503 || !expected.afterClose)
          fail(
            `upgrade ${expected.id} asked for ${expected.afterClose ? 'during' : 'before'} the drain: ${answer.status}`,
          );
        break;
      }
      if (answer.headers['x-id'] !== String(expected.id))
        fail(`answer ${i} is for ${answer.headers['x-id']}, not ${expected.id}`);
      if (answer.status !== expected.status)
        fail(`request ${expected.id}: status ${answer.status}, not ${expected.status}`);
      if (!answer.body.equals(expected.body))
        fail(
          `request ${expected.id}: the body differs (${answer.body.length} bytes, ${expected.body.length} expected)`,
        );
    }
    if (this.lostBody && !cutByDeadline)
      fail(`closed before the rest of a body answered early had come (${this.lostBody}): it was not idle yet`);
    if (answers.length > this.expected.length) fail(`${answers.length} answers to ${this.expected.length} requests`);
    const last = answeredCount > 0 ? answers[answeredCount - 1]! : undefined;
    const lastExpected = answeredCount > 0 ? this.expected[answeredCount - 1]! : undefined;
    const upgraded = last?.status === 101;
    // An answer whose head went out after the close began, the connection's last, says so.
    if (last && lastExpected && !upgraded && last.status !== 503 && side.seen.has(lastExpected.id)) {
      if (!side.headSentAtClose.has(lastExpected.id) && last.headers.connection !== 'close')
        fail(
          `the last answer (${lastExpected.id}), written during the drain, says Connection: ${last.headers.connection}`,
        );
    }
    // Nothing closed before its time: a connection left idle, or silent, gets the grace.
    const ownEnd = this.endedByClient || (last !== undefined && last.headers.connection === 'close');
    if (this.openAtClose && !ownEnd && !upgraded && this.closedAt < side.closeAt + this.run.grace - SLACK)
      fail(
        `closed ${Math.round(this.closedAt - side.closeAt)} ms after close(), within the ${this.run.grace} ms grace`,
      );
    if (
      upgraded &&
      this.openAtClose &&
      !this.endedByClient &&
      !s.onDrain &&
      this.closedAt < side.closeAt + s.timeout - SLACK
    )
      fail(
        `the upgraded connection closed ${Math.round(this.closedAt - side.closeAt)} ms into the drain, before its end`,
      );
    if (upgraded && s.onDrain && this.openAtClose && !answers[answeredCount - 1]!.body.toString().endsWith('bye\n'))
      fail('the upgraded connection closed without the goodbye of onDrain');
  }
}

/** Why a request had to be answered. */
const why = (seen: boolean, expected: Expected) =>
  seen ? 'seen by the app' : expected.readBeforeClose ? 'read before the close' : 'sent in the long grace';

function head(method: string, path: string, v: Version, extra: string[] = []): string {
  const lines = [`${method} ${path} ${v.startsWith('1.0') ? 'HTTP/1.0' : 'HTTP/1.1'}`, 'Host: localhost', ...extra];
  if (v === '1.1-close') lines.push('Connection: close');
  if (v === '1.0-keep-alive') lines.push('Connection: keep-alive');
  return `${lines.join('\r\n')}\r\n\r\n`;
}

interface H2Result {
  status: number;
  body: Buffer;
  ended: boolean;
  rstCode: number;
}

class H2Client extends Client {
  session: http2.ClientHttp2Session | undefined;
  goaway = false;
  private readonly results = new Map<number, H2Result>();
  private readonly refusedIds = new Set<number>();

  async connect(): Promise<void> {
    const sessions = this.run.side.sessions;
    const session = http2.connect(`https://localhost:${this.run.port}`, { ca: cert });
    this.session = session;
    session.on('goaway', () => (this.goaway = true));
    session.on('error', (err) => this.noteError(err));
    session.on('close', () => this.noteClosed());
    await new Promise<void>((resolve, reject) => session.once('connect', () => resolve()).once('error', reject));
    await until(() => this.run.side.sessions > sessions, `the server's session for ${this.name}`);
  }

  private request(id: number, path: string): void {
    let stream: http2.ClientHttp2Stream;
    try {
      stream = this.session!.request({ ':path': path });
    } catch {
      // The client had the GOAWAY already: it does not send the request.
      this.refusedIds.add(id);
      return;
    }
    const chunks: Buffer[] = [];
    let status = 0;
    let ended = false;
    stream.on('response', (headers) => (status = Number(headers[':status'])));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => (ended = true));
    stream.on('error', () => {});
    stream.on('close', () =>
      this.results.set(id, { status, body: Buffer.concat(chunks), ended, rstCode: stream.rstCode ?? 0 }),
    );
  }

  private settled(id: number): boolean {
    return this.results.has(id) || this.refusedIds.has(id) || this.closedAt !== undefined;
  }

  steps(plan: ConnPlan): Step[] {
    const steps: Step[] = [{ label: `${this.name} connects (h2)`, beforeClose: true, run: () => this.connect() }];
    for (const e of plan.exchanges) {
      if (e.kind !== 'quick' && e.kind !== 'slow' && e.kind !== 'hang') continue;
      const id = this.run.nextId();
      const path = `/${e.kind}?id=${id}&size=${e.size}`;
      const body =
        e.kind === 'quick'
          ? Buffer.from(`quick ${id}`)
          : Buffer.concat([Buffer.from(`slow ${id} `), filler(id, e.size)]);
      let expected: Expected | undefined;
      steps.push({
        label: `${this.name} opens a stream for ${path}`,
        beforeClose: e.kind === 'hang',
        run: async () => {
          if (this.closedAt !== undefined) return;
          expected = { id, status: 200, body, afterClose: this.run.side.closing, readBeforeClose: false };
          this.expected.push(expected);
          this.request(id, path);
          const side = this.run.side;
          if (e.kind === 'quick') await until(() => this.settled(id), `stream ${id}`);
          else await until(() => side.seen.has(id) || this.settled(id), `the app to see stream ${id}`);
          if (side.seen.has(id) && !side.closing) expected.readBeforeClose = true;
        },
      });
      if (e.kind === 'slow')
        steps.push({
          label: `${this.name}'s handler for stream ${id} answers`,
          beforeClose: false,
          run: async () => {
            this.run.side.release(String(id));
            if (expected) await until(() => this.settled(id), `stream ${id}`);
          },
        });
    }
    return steps;
  }

  destroy(): void {
    this.session?.destroy();
  }

  check(v: string[]): void {
    const { s, side } = this.run;
    const fail = (what: string) => v.push(`${this.name}: ${what}`);
    if (this.closedAt === undefined) {
      fail('the session never closed');
      return;
    }
    const cutByDeadline = s.mode === 'deadline' && this.closedAt >= side.closeAt + s.timeout - SLACK;
    if (this.openAtClose && !cutByDeadline && !this.goaway) fail('no GOAWAY');
    for (const expected of this.expected) {
      const result = this.results.get(expected.id);
      const must = side.seen.has(expected.id) || expected.readBeforeClose;
      const complete = result !== undefined && result.status !== 0 && result.ended && result.rstCode === 0;
      if (!complete) {
        if (must && !cutByDeadline)
          fail(
            `stream ${expected.id}, seen by the app, ended without its whole answer: ${JSON.stringify(result ?? null)}`,
          );
        continue;
      }
      if (result.status !== expected.status || !result.body.equals(expected.body))
        fail(
          `stream ${expected.id}: ${result.status} with ${result.body.length} bytes, ` +
            `not ${expected.status} with ${expected.body.length}`,
        );
    }
  }
}

// ---------------------------------------------------------------------------
// One scenario

class Run {
  readonly side = new ServerSide();
  server!: net.Server;
  port = 0;
  private id = 0;
  readonly clients: Client[] = [];
  readonly grace: number;
  /** The steps as they ran, the close among them: shown with a failure. */
  readonly trail: string[] = [];

  constructor(readonly s: Scenario) {
    this.grace = Math.min(s.idleGrace ?? 100, s.timeout);
  }

  nextId(): number {
    return ++this.id;
  }

  async execute(): Promise<string[]> {
    const { s, side } = this;
    ({ server: this.server, port: this.port } = await startServer(s, side));
    const secure = s.server === 'https' || s.server === 'http2';
    const perClient: Step[][] = s.conns.map((plan, i) => {
      const client =
        plan.protocol === 'h2'
          ? new H2Client(`conn #${i}`, this)
          : new H1Client(`conn #${i}`, this, secure, plan.lateHandshake);
      this.clients.push(client);
      return client.steps(plan);
    });
    const { before, after } = interleave(s.random, perClient);
    const probes = Array.from({ length: s.probes }, () => int(s.random, 0, after.length));

    const violations: string[] = [];
    for (const step of before) {
      this.trail.push(step.label);
      await step.run();
    }
    this.trail.push('server.close()');
    for (const client of this.clients) client.openAtClose = client.closedAt === undefined;
    // What the app had already written the head of: those answers promised keep-alive.
    for (const [id, res] of side.seen) if (res.headersSent) side.headSentAtClose.add(id);
    let callbacks = 0;
    let closeError: Error | undefined;
    let closedAt = 0;
    const serverClosed = signal();
    side.closing = true;
    side.closeAt = loopNow();
    this.server.close((err?: Error) => {
      callbacks++;
      closeError = err;
      closedAt = loopNow();
      serverClosed.resolve();
    });
    if (s.onDrain && side.onDrainCalls !== 1)
      violations.push(`onDrain ran ${side.onDrainCalls} times as close() returned`);
    for (let i = 0; i <= after.length; i++) {
      for (const at of probes)
        if (at === i) {
          this.trail.push('a new connection is attempted');
          await probe(this.port, violations);
        }
      if (i < after.length) {
        this.trail.push(after[i]!.label);
        await after[i]!.run();
      }
    }
    if (s.mode === 'long')
      for (const client of this.clients) if (client instanceof H1Client) await client.finalStep().run();

    const limit = (s.mode === 'deadline' ? s.timeout : 0) + WAIT_LIMIT;
    await within(serverClosed.promise, limit);
    if (callbacks === 0) violations.push(`close()'s callback did not come within ${limit} ms`);
    await within(Promise.all(this.clients.map((client) => client.closed.promise)), WAIT_LIMIT);
    // A second callback would come at once, on the same turn as the close or the next ones.
    await delay(10);
    if (callbacks > 1) violations.push(`close()'s callback ran ${callbacks} times`);
    if (closeError) violations.push(`close()'s callback got ${closeError.message}`);
    const hanging = s.conns.some((conn) => conn.exchanges.some(hangs(s.onDrain)));
    if (callbacks > 0 && hanging && closedAt < side.closeAt + s.timeout - SLACK)
      violations.push(
        `close()'s callback came ${Math.round(closedAt - side.closeAt)} ms after close(), before the deadline`,
      );
    if (callbacks > 0 && s.mode !== 'deadline' && closedAt > side.closeAt + WAIT_LIMIT)
      violations.push('the drain took longer than any of its waits');
    for (const client of this.clients) client.check(violations);
    if (side.acceptedAfterClose) violations.push(`${side.acceptedAfterClose} connections accepted after close()`);
    if (side.upgradesSeenInDrain.length)
      violations.push(`the app saw upgrades during the drain: ${side.upgradesSeenInDrain}`);
    if (!s.onDrain && side.onDrainCalls) violations.push('onDrain ran without being given');
    const open = await new Promise<number>((resolve) => this.server.getConnections((_err, count) => resolve(count)));
    if (open !== 0) violations.push(`${open} connections still open on the server`);
    violations.push(...side.errors);
    return violations;
  }

  cleanUp(): void {
    for (const client of this.clients) client.destroy();
  }
}

/**
 * The steps of every connection interleaved at random (each connection's in order), and the
 * close placed at a random point: the steps that must come first (connects, requests meant to
 * be in flight at the close), and those before them on their connection, come before it.
 */
function interleave(random: Random, perClient: Step[][]): { before: Step[]; after: Step[] } {
  const tokens: [number, number][] = [];
  const next = perClient.map(() => 0);
  for (;;) {
    const open = perClient.map((steps, c) => (next[c]! < steps.length ? c : -1)).filter((c) => c >= 0);
    if (open.length === 0) break;
    const c = pick(random, open);
    tokens.push([c, next[c]!++]);
  }
  const cut = int(random, 0, tokens.length);
  const required = perClient.map((steps) => steps.reduce((last, step, i) => (step.beforeClose ? i : last), -1));
  const before: Step[] = [];
  const after: Step[] = [];
  tokens.forEach(([c, i], position) => (position < cut || i <= required[c]! ? before : after).push(perClient[c]![i]!));
  return { before, after };
}

async function probe(port: number, violations: string[]): Promise<void> {
  try {
    const code = await refused(port);
    if (code !== 'ECONNREFUSED')
      violations.push(`a new connection after close() failed with ${code}, not ECONNREFUSED`);
  } catch (err) {
    violations.push(`a new connection after close(): ${(err as Error).message}`);
  }
}

/** TCP, TLS and HTTP/2 handles the process holds (getActiveResourcesInfo's names). */
function networkHandles(): number {
  return process.getActiveResourcesInfo().filter((name) => /TCP|TLS|Http2/.test(name)).length;
}

/** Runs `fn` collecting warnings and what is written to stderr. */
async function watchingOutput<T>(fn: () => Promise<T>): Promise<{ result: T; output: string[] }> {
  const output: string[] = [];
  const onWarning = (warning: Error) => output.push(`warning: ${warning.name}: ${warning.message}`);
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    output.push(`stderr: ${String(chunk)}`);
    return true;
  }) as typeof process.stderr.write;
  process.on('warning', onWarning);
  try {
    return { result: await fn(), output };
  } finally {
    process.stderr.write = write;
    process.off('warning', onWarning);
  }
}

async function runScenario(s: Scenario): Promise<void> {
  const handlesBefore = networkHandles();
  const run = new Run(s);
  let violations: string[];
  let output: string[];
  try {
    ({ result: violations, output } = await watchingOutput(() =>
      run.execute().catch((err: Error) => [`the scenario failed: ${err.stack}`]),
    ));
  } finally {
    run.cleanUp();
    if (run.server?.listening) run.server.close();
  }
  violations.push(...output);
  // The handles of closed sockets go a turn or so after their `close`.
  const left = await until(() => networkHandles() <= handlesBefore, 'handles', 5000).then(
    () => 0,
    () => networkHandles() - handlesBefore,
  );
  if (left > 0) violations.push(`${left} network handles left open: ${process.getActiveResourcesInfo().join(', ')}`);
  assert.deepEqual(violations, [], `${describeScenario(s)}\nsteps:\n  ${run.trail.join('\n  ')}`);
}

describe('graceful shutdown: generated scenarios', () => {
  for (let index = 0; index < SCENARIOS; index++) {
    const s = generate(index);
    it(`scenario ${index}: ${s.server}, ${s.mode}, ${s.conns.length} connections`, { timeout: 60_000 }, () =>
      runScenario(s),
    );
  }
});

// ---------------------------------------------------------------------------
// Signal scenarios: a child process under webapp.graceful() with its signals

interface SignalScenario {
  index: number;
  seed: number;
  tls: boolean;
  signal: 'SIGTERM' | 'SIGINT';
  timeout: number;
  idleGrace: number | undefined;
  /** The requests each connection makes: in flight at the signal, answered before it, none, or never answered. */
  conns: ('slow' | 'idle' | 'silent' | 'hang')[];
  /** The order the slow handlers are released in, after the signal. */
  releaseOrder: number[];
}

function generateSignal(index: number): SignalScenario {
  const seed = (SEED + 0x51_6e41 + index * 104729) >>> 0;
  const random = prng(seed);
  const hang = chance(random, 0.4);
  const conns: SignalScenario['conns'] = Array.from({ length: int(random, 1, 5) }, () =>
    pick(random, ['slow', 'slow', 'idle', 'silent'] as const),
  );
  if (hang) conns.push('hang');
  else if (!conns.includes('slow')) conns.push('slow');
  const slow = conns.map((kind, i) => (kind === 'slow' ? i : -1)).filter((i) => i >= 0);
  const releaseOrder: number[] = [];
  while (slow.length) releaseOrder.push(slow.splice(int(random, 0, slow.length - 1), 1)[0]!);
  return {
    index,
    seed,
    tls: chance(random, 0.3),
    signal: pick(random, ['SIGTERM', 'SIGINT'] as const),
    timeout: hang ? pick(random, [300, 600]) : FAR,
    idleGrace: pick(random, [undefined, 50]),
    conns,
    releaseOrder,
  };
}

async function runSignalScenario(s: SignalScenario): Promise<void> {
  const { index, seed, ...shape } = s;
  const context = `signal scenario ${index} (seed ${seed}, WEBAPP_TEST_SEED=${testSeed()}): ${JSON.stringify(shape)}`;
  const config = {
    ...(s.tls ? { tls: { key: key.toString(), cert: cert.toString() } } : {}),
    timeout: s.timeout,
    idleGrace: s.idleGrace,
  };
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', join(__dirname, 'fixtures/generated-server.ts')], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, SCENARIO: JSON.stringify(config) },
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (stderr += chunk));
  const watched = watchChild(child);
  const clients: Connection[] = [];
  try {
    const port = Number((await watched.printed(/listening (\d+)/))[1]);
    for (const [i, kind] of s.conns.entries()) {
      const from = watched.output().length;
      const client = await connect(port, s.tls ? { ca: cert } : undefined);
      clients.push(client);
      await watched.printed(new RegExp(`accepted ${client.socket.localPort}\\n`), from);
      if (kind === 'silent') continue;
      const path = `/${kind === 'idle' ? 'quick' : kind}?id=${i}`;
      const answered = new Promise<void>((resolve) => client.socket.once('data', () => resolve()));
      client.socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      if (kind === 'idle') await answered;
      else await watched.printed(new RegExp(`entered ${i}\\n`), from);
    }
    const signalledAt = performance.now();
    child.kill(s.signal);
    await watched.printed(/onDrain\n/);
    assert.equal(await refused(port), 'ECONNREFUSED', `${context}: a connection after the signal`);
    for (const i of s.releaseOrder) {
      child.stdin!.write(`release ${i}\n`);
      const [answer] = parseResponses(await clients[i]!.received);
      assert.equal(answer?.body.toString(), `slow ${i}`, `${context}: connection ${i}'s answer`);
      assert.equal(answer?.headers.connection, 'close', `${context}: connection ${i}'s answer`);
    }
    const [code, signalled] = await watched.exited;
    const exitedAfter = performance.now() - signalledAt;
    assert.deepEqual([code, signalled], [0, null], `${context}: the exit\n${watched.output()}${stderr}`);
    for (const [i, kind] of s.conns.entries()) {
      const answers = parseResponses(await clients[i]!.received).map((answer) => answer.body.toString());
      const expected = { slow: [`slow ${i}`], idle: [`quick ${i}`], silent: [], hang: [] }[kind];
      assert.deepEqual(answers, expected, `${context}: what connection ${i} (${kind}) received`);
    }
    const lines = watched.output().split('\n');
    const at = (line: string) => lines.indexOf(line);
    const inFlight = s.conns.map((kind, i) => (kind === 'slow' || kind === 'hang' ? i : -1)).filter((i) => i >= 0);
    for (const i of inFlight) {
      assert.ok(at(`response closed ${i}`) > at('onDrain'), `${context}: response ${i} closed after onDrain\n${lines}`);
      assert.ok(at(`response closed ${i}`) < at('onShutdown'), `${context}: response ${i} closed before onShutdown`);
    }
    assert.ok(at('onDrain') >= 0 && at('server close') > at('onDrain'), `${context}: the order\n${lines.join('\n')}`);
    assert.ok(at('onShutdown') > at('server close'), `${context}: the order\n${lines.join('\n')}`);
    assert.equal(lines[at('onShutdown') + 1], 'handles 0', `${context}: network handles open at onShutdown`);
    assert.deepEqual(
      lines.filter((line) => line.startsWith('warning')),
      [],
      `${context}: warnings`,
    );
    assert.equal(stderr, '', `${context}: stderr`);
    if (s.conns.includes('hang')) {
      assert.ok(
        exitedAfter >= s.timeout - SIGNAL_SLACK,
        `${context}: exited ${exitedAfter} ms after the signal, before the deadline`,
      );
      assert.ok(exitedAfter < s.timeout + WAIT_LIMIT, `${context}: exited ${exitedAfter} ms after the signal`);
    }
  } finally {
    child.kill('SIGKILL');
    for (const client of clients) client.socket.destroy();
  }
}

describe('graceful shutdown on a signal: generated scenarios in a child process', () => {
  for (let index = 0; index < SIGNAL_SCENARIOS; index++) {
    const s = generateSignal(index);
    it(`signal scenario ${index}: ${s.signal}, ${s.conns.join(' ')}`, { timeout: 60_000 }, () => runSignalScenario(s));
  }
});

// ---------------------------------------------------------------------------
// Regressions: what the generated scenarios found, made deterministic

describe('graceful shutdown: regressions found by the generated scenarios', () => {
  it(
    "an upgrade asked for during the drain is refused before the app's upgrade listener runs",
    { timeout: 30_000 },
    async () => {
      // graceful's own listener ran first and destroyed the socket, but the app's listener
      // then ran too, with that socket: a proxy would have opened its backend connection, a
      // hand-written handler counted a WebSocket (docs/production.md: "before the app's
      // `upgrade` listeners see it").
      const server = webapp.graceful(http.createServer(webapp()), { signals: [], timeout: FAR, idleGrace: LONG_GRACE });
      const seen: string[] = [];
      server.on('upgrade', (req: http.IncomingMessage, socket: net.Socket) => {
        seen.push(req.url ?? '');
        socket.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const accepted = new Promise((resolve) => server.once('connection', resolve));
      const client = await connect((server.address() as AddressInfo).port);
      await accepted;
      const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
      client.socket.write('GET /ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
      assert.match((await client.received).toString('latin1'), /^HTTP\/1\.1 503 Service Unavailable\r\n/);
      assert.equal(await serverClosed, undefined);
      assert.deepEqual(seen, []);
      // Listening again, upgrades reach the app as before.
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const again = await connect((server.address() as AddressInfo).port);
      again.socket.write('GET /again HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
      await again.received;
      assert.deepEqual(seen, ['/again']);
      await new Promise((resolve) => server.close(resolve));
    },
  );

  it(
    'a connection answered before its upload ended is not closed as idle while the client pauses',
    { timeout: 30_000 },
    async () => {
      // The drain took it for idle at the grace when no byte of the body came in the meantime,
      // and cut the upload (docs/production.md: idle "once the rest of the body has come").
      const app = webapp();
      app.post('/upload', (_req: Any, res: Any) => res.status(401).send('sign in first'));
      const server = webapp.graceful(http.createServer(app), { signals: [], timeout: FAR });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      const sockets: net.Socket[] = [];
      server.on('connection', (socket: net.Socket) => sockets.push(socket));
      const uploader = await connect(port);
      const answered = new Promise<void>((resolve) => uploader.socket.once('data', () => resolve()));
      uploader.socket.write('POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 20000\r\n\r\n');
      uploader.socket.write(Buffer.alloc(5000, 'a'));
      await answered;
      const silent = await connect(port);
      await until(() => sockets.length === 2, 'the server to accept the silent connection');
      const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
      // The silent connection closes when the grace ends: the uploader has paused past it.
      assert.equal((await silent.received).length, 0);
      uploader.socket.write(Buffer.alloc(15000, 'b'));
      const total =
        Buffer.byteLength('POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 20000\r\n\r\n') + 20000;
      await until(() => sockets[0]!.destroyed || sockets[0]!.bytesRead >= total, 'the rest of the upload');
      assert.equal(sockets[0]!.bytesRead, total, 'the server read the whole upload');
      assert.deepEqual(
        parseResponses(await uploader.received).map((r) => `${r.status} ${r.body}`),
        ['401 sign in first'],
      );
      assert.equal(await serverClosed, undefined);
    },
  );
});
