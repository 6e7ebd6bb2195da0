/**
 * Oracles that cannot run on every Node line. Connect 2.30 (and Express 3.21,
 * built on it) break on newer lines (they read `res._headers`, for one), so on
 * those lines their HTTP answers are replayed from recordings made where they run,
 * and webapp is still compared with them. The mode, per process:
 *
 * - `live`: the oracle answers (the lines listed in LIVE_MAJORS);
 * - `record`: the oracle answers through a recording proxy, and the answers are
 *   written to test/support/oracle-recordings/ (scripts/record-oracles.mjs);
 * - `replay`: a stand-in server answers each request with the recorded answer to
 *   the same request, and 599 with an explanation when there is none.
 *
 * WEBAPP_ORACLES=live|record|replay overrides the choice by Node line.
 * Only HTTP answers are recorded: a test that looks at what the oracle does
 * besides answering (its log lines, its calls), or that sends it random data,
 * runs only where the oracle is live (`itWithLiveOracle`).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import { dirname, join, relative } from 'node:path';

export type OracleMode = 'live' | 'record' | 'replay';

/**
 * Node major versions where Connect 2.30 and Express 3.21 run. From Node 24 on,
 * Connect's favicon (serve-favicon 2.3) breaks and a request to it never ends.
 */
const LIVE_MAJORS = new Set([20, 22]);

const ROOT = join(__dirname, '..', '..');
export const RECORDINGS_DIR = join(__dirname, 'oracle-recordings');

export function oracleMode(): OracleMode {
  const forced = process.env.WEBAPP_ORACLES;
  if (forced === 'live' || forced === 'record' || forced === 'replay') return forced;
  if (forced) throw new Error(`WEBAPP_ORACLES must be live, record or replay, not ${JSON.stringify(forced)}`);
  return LIVE_MAJORS.has(Number(process.versions.node.split('.')[0])) ? 'live' : 'replay';
}

/** False where the oracle runs, else why a test that needs it running is skipped. */
export function oracleNotLive(what: string): false | string {
  return oracleMode() === 'replay'
    ? `${what}: needs Connect 2.30 / Express 3.21 running, which Node ${process.version} cannot`
    : false;
}

/** While above zero, the recording proxy passes answers on without keeping them. */
let unrecorded = 0;

/**
 * A test that checks more than the oracle's answers (what it logs, what it calls)
 * or sends it something different each run (a random token): it runs where the
 * oracle is live, is skipped where it is replayed, and its oracle answers are not
 * recorded, so the answers of the tests after it replay in their own order.
 */
export function itWithLiveOracle(name: string, what: string, fn: () => Promise<void>): void {
  it(name, { skip: oracleNotLive(what) }, async () => {
    unrecorded++;
    try {
      await fn();
    } finally {
      unrecorded--;
    }
  });
}

const markedOracles = new WeakSet<object>();

/** Marks a wrapper around an oracle's listener (see legacy-oracles.ts) as that oracle. */
export function markOracleListener<T extends object>(listener: T): T {
  markedOracles.add(listener);
  return listener;
}

/**
 * True for an app made by Connect 2.30 or Express 3.21: recognised by their own
 * `use` function (or marked by markOracleListener), so no webapp app is ever
 * taken for one. Loads them only when asked, in record and replay modes.
 */
export function isOracleListener(listener: unknown): boolean {
  if (typeof listener !== 'function') return false;
  if (markedOracles.has(listener)) return true;
  const use = (listener as { use?: unknown }).use;
  if (typeof use !== 'function') return false;

  return use === loadedOnly('connect')?.proto.use || use === loadedOnly('express3')?.application.use;
}

/**
 * A module the test process has loaded already, else undefined: a listener cannot be
 * an app of a package nobody loaded, and loading Connect 2 to find out would patch
 * `http.ServerResponse.prototype` (its setHeader and appendHeader) for every server of
 * the process, webapp's included, which then go through the patch as they must.
 */
function loadedOnly(name: string): any {
  const path = require.resolve(name);
  return require.cache[path] ? require(path) : undefined;
}

export interface RecordedAnswer {
  status?: number;
  message?: string;
  rawHeaders?: string[];
  body?: string; // base64
  /** The oracle closed the connection without an answer. */
  dropped?: true;
}

export interface Recording {
  node: string;
  answers: Record<string, RecordedAnswer[]>;
}

/**
 * Values that differ from one run to the next and can appear in an oracle's
 * answers (a temporary directory in an upload's path, in an error message):
 * recorded as a placeholder, replayed as this run's value.
 */
const runValues = new Map<string, string>();

/** Declares `value` as this run's value of `name` for recording and replay; returns it. */
export function oracleRunValue(name: string, value: string): string {
  runValues.set(name, value);
  return value;
}

function placeholder(name: string): string {
  return `{{oracle run value: ${name}}}`;
}

/** Swaps run values for placeholders (`toRecording`) or back, in header values and body, fixing Content-Length. */
function withRunValues(answer: RecordedAnswer, toRecording: boolean): RecordedAnswer {
  if (runValues.size === 0 || answer.dropped) return answer;
  const swap = (text: string): string => {
    for (const [name, value] of runValues)
      text = toRecording ? text.split(value).join(placeholder(name)) : text.split(placeholder(name)).join(value);
    return text;
  };
  const before = Buffer.from(answer.body ?? '', 'base64');
  const body = Buffer.from(swap(before.toString('latin1')), 'latin1');
  // Content-Length moves by what the swap changed (a HEAD answer keeps announcing the GET's length).
  const grown = body.length - before.length;
  const rawHeaders = (answer.rawHeaders ?? []).map((item, i, all) => {
    if (i % 2 === 0) return item;
    return all[i - 1].toLowerCase() === 'content-length' ? String(Number(item) + grown) : swap(item);
  });
  return { ...answer, rawHeaders, body: body.toString('base64') };
}

/** Headers that differ between two runs of the same request (the port, the connection handling). */
const UNSTABLE_REQUEST_HEADERS = new Set(['host', 'connection', 'keep-alive']);

/** What identifies a request: method, URL, headers (but the unstable ones) and the body's bytes. */
function requestKey(req: http.IncomingMessage, body: Buffer): string {
  const headers: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i].toLowerCase();
    if (!UNSTABLE_REQUEST_HEADERS.has(name)) headers.push(`${name}: ${req.rawHeaders[i + 1]}`);
  }
  const bodyHash = createHash('sha1').update(body).digest('hex');
  return createHash('sha1')
    .update(JSON.stringify([req.method, req.url, headers, bodyHash]))
    .digest('hex')
    .slice(0, 24);
}

/** The recordings of one test file, named after it. */
function recordingFile(): string {
  const testFile = process.argv[1] ? relative(ROOT, process.argv[1]) : 'unknown';
  return join(RECORDINGS_DIR, testFile.replace(/\.test\.ts$/, '').replace(/[\\/]/g, '__') + '.json');
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function writeAnswer(res: http.ServerResponse, answer: RecordedAnswer): void {
  if (answer.dropped) {
    res.socket?.destroy();
    return;
  }
  res.writeHead(answer.status ?? 500, answer.message, answer.rawHeaders ?? []);
  res.end(Buffer.from(answer.body ?? '', 'base64'));
}

/** The answers recorded or replayed in this process: one recording per test file. */
let fileRecording: Recording | null = null;

function thisFilesRecording(mode: 'record' | 'replay'): Recording {
  if (fileRecording) return fileRecording;
  const file = recordingFile();
  if (mode === 'record') {
    const recording: Recording = { node: process.version, answers: {} };
    process.once('exit', () => saveRecording(recording, file));
    fileRecording = recording;
  } else {
    fileRecording = existsSync(file) ? loadRecording(file) : { node: 'none', answers: {} };
  }
  return fileRecording;
}

export function saveRecording(recording: Recording, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const answers: Record<string, RecordedAnswer[]> = {};
  for (const key of Object.keys(recording.answers).sort()) answers[key] = recording.answers[key];
  writeFileSync(file, JSON.stringify({ node: recording.node, answers }, null, 1) + '\n');
}

export function loadRecording(file: string): Recording {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Forwards each request, exactly as received, to the oracle on `oraclePort`, and records the answer. */
function recordingProxy(oraclePort: number, recording: Recording): http.RequestListener {
  return (req, res) => {
    void readBody(req).then((body) => {
      const key = requestKey(req, body);
      const keep = (answer: RecordedAnswer): void => {
        if (unrecorded === 0) (recording.answers[key] ??= []).push(withRunValues(answer, true));
        writeAnswer(res, answer);
      };
      const forward = http.request(
        {
          host: '127.0.0.1',
          port: oraclePort,
          method: req.method,
          path: req.url,
          headers: req.rawHeaders,
          agent: false,
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () =>
            keep({
              status: answer.statusCode,
              message: answer.statusMessage,
              // Kept verbatim: node:http chunks the replayed body itself when they say chunked.
              rawHeaders: answer.rawHeaders,
              body: Buffer.concat(chunks).toString('base64'),
            }),
          );
          answer.on('error', () => keep({ dropped: true }));
        },
      );
      forward.on('error', () => keep({ dropped: true }));
      forward.end(body);
    });
  };
}

/**
 * Answers from the recording instead of the oracle. Each answer is used once, in
 * the order recorded, across every server of the test file (the recording is
 * consumed), so a request repeated in a flow (a session's second visit, or the
 * same request to a differently configured app) gets its own answer.
 */
function replayServer(recording: Recording, source: string): http.RequestListener {
  return (req, res) => {
    void readBody(req).then((body) => {
      const answer = recording.answers[requestKey(req, body)]?.shift();
      if (answer) return writeAnswer(res, withRunValues(answer, false));
      res.writeHead(599, { 'content-type': 'text/plain' });
      res.end(
        `no recorded oracle answer to ${req.method} ${req.url} in ${source} (recorded on Node ${recording.node}); ` +
          're-record on a line where the oracle runs: node scripts/record-oracles.mjs',
      );
    });
  };
}

/**
 * A server for the recording proxy or the replay: unlike the oracle, it answers
 * a little later (after a forward or a lookup), so bytes a client sends after a
 * request without framing (a DELETE with an unannounced body) must not make
 * node:http answer 400 in its place: the answer in progress is written first,
 * then the connection closes, as the oracle's own server would have done.
 */
function standInServer(listener: http.RequestListener): http.Server {
  const answering = new WeakSet<object>();
  const server = http.createServer((req, res) => {
    answering.add(req.socket);
    res.on('finish', () => answering.delete(req.socket));
    listener(req, res);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (answering.has(socket)) return; // its answer is on the way; the socket closes after it
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy(error);
  });
  return server;
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * The server a test talks to for an oracle app: the app itself (live), the app
 * behind a recording proxy (record) or the recordings (replay). Resolves to the
 * port and a function that closes whatever was started.
 */
export async function startOracleServer(
  listener: http.RequestListener,
  { mode = oracleMode(), recording }: { mode?: OracleMode; recording?: Recording } = {},
): Promise<{ port: number; close: () => Promise<void> }> {
  if (mode === 'replay') {
    const answers = recording ?? thisFilesRecording('replay');
    const server = standInServer(
      replayServer(answers, recording ? 'the given recording' : relative(ROOT, recordingFile())),
    );
    return { port: await listen(server), close: () => close(server) };
  }
  const oracle = http.createServer(listener);
  const oraclePort = await listen(oracle);
  if (mode === 'live') return { port: oraclePort, close: () => close(oracle) };
  const proxy = standInServer(recordingProxy(oraclePort, recording ?? thisFilesRecording('record')));
  const port = await listen(proxy);
  return {
    port,
    close: async () => {
      await close(proxy);
      await close(oracle);
    },
  };
}
