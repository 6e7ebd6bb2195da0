/**
 * Generated differential tests: thousands of cases, each a request to the same app
 * built on express@4 and on webapp, one server per framework, answers compared
 * whole (status, every header line in order, body). The cases live in the test
 * process: a request names its case by number (`/c/<n>`), so a case's arguments
 * can be anything JavaScript holds (Dates, NaN, functions, objects with
 * prototype keys), not only what a URL can carry.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { inspect } from 'node:util';
import express from 'express';
import webapp = require('../../src/index');
import { listen, close, type RequestSpec } from './raw-http';
import type { Random } from './prng';

export type Framework = typeof express;

/** An answer as compared: header lines in the order sent, names lower-cased, the volatile ones left out. */
export interface Answer {
  status: number;
  headers: Array<[string, string]>;
  body: string;
}

/** Vary by clock or brand, or by how the connection is handled (not what an app decides). */
const VOLATILE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * Sends every request, at most `parallel` at a time over kept-alive connections, to
 * a server for `listener`; answers in the order of the requests.
 */
export async function answersOf(
  listener: http.RequestListener,
  requests: readonly RequestSpec[],
  parallel = 8,
): Promise<Answer[]> {
  const server = http.createServer(listener);
  const port = await listen(server);
  const agent = new http.Agent({ keepAlive: true, maxSockets: parallel });
  const answers: Answer[] = new Array(requests.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    // Bounded: each worker takes the next request until none is left.
    while (next < requests.length) {
      const index = next++;
      const spec = requests[index];
      answers[index] = clientSends(spec) ? await send(port, agent, spec) : await sendRaw(port, spec);
    }
  };
  try {
    await Promise.all(Array.from({ length: parallel }, worker));
    // What the client could not read is read again as bytes, on a connection of its own.
    for (let i = 0; i < requests.length; i++) if (answers[i].status < 0) answers[i] = await sendRaw(port, requests[i]);
  } finally {
    agent.destroy();
    await close(server);
  }
  return answers;
}

/** Whether Node's client sends these headers as written (it refuses values beyond latin1, control characters). */
function clientSends(spec: RequestSpec): boolean {
  try {
    for (const [name, value] of Object.entries(spec.headers ?? {})) {
      http.validateHeaderName(name);
      for (const item of Array.isArray(value) ? value : [value]) http.validateHeaderValue(name, item);
    }
    return true;
  } catch {
    return false;
  }
}

function send(port: number, agent: http.Agent, spec: RequestSpec): Promise<Answer> {
  return new Promise((resolve) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: spec.method ?? 'GET', path: spec.path, headers: spec.headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const headers: Array<[string, string]> = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            const name = res.rawHeaders[i].toLowerCase();
            if (!VOLATILE.has(name)) headers.push([name, res.rawHeaders[i + 1]]);
          }
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('latin1') });
        });
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ status: -2, headers: [], body: String(err.code) }));
      },
    );
    // A 1xx status is not the end of an answer for the client: it would wait for another.
    req.on('information', () => req.destroy(Object.assign(new Error('1xx'), { code: 'INFORMATIONAL' })));
    // An answer the client cannot read (a body after a 1xx status, say) is compared as its error.
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: -1, headers: [], body: String(err.code) }));
    req.end(spec.body);
  });
}

/**
 * The request written by hand (as UTF-8), and everything the server wrote until it
 * closed the connection (or 2 s passed), as the body of an answer with status 0;
 * the Date line is left out.
 */
function sendRaw(port: number, spec: RequestSpec): Promise<Answer> {
  const lines = [`${spec.method ?? 'GET'} ${spec.path} HTTP/1.1`, 'Connection: close'];
  if (!Object.keys(spec.headers ?? {}).some((name) => name.toLowerCase() === 'host')) lines.push('Host: 127.0.0.1');
  for (const [name, value] of Object.entries(spec.headers ?? {}))
    for (const item of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${item}`);
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.end(Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'utf8')),
    );
    let data = '';
    const done = () => {
      socket.destroy();
      resolve({ status: 0, headers: [], body: data.replace(/^Date: .*\r\n/gim, '') });
    };
    socket.setEncoding('latin1');
    socket.setTimeout(2000, done);
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('close', done);
    socket.on('error', done);
  });
}

/**
 * What a thrown error (or one passed to `next`) looked like to the app's error
 * handler: its class, name, message, code and status as the body, beside the
 * headers set before it was thrown (a Content-Length as X-Failed-Content-Length),
 * written with Node's own methods only (so the report does not depend on the API
 * under test).
 */
export function reportErrors(
  err: { name?: unknown; message?: unknown; code?: unknown; status?: unknown },
  _req: http.IncomingMessage,
  res: http.ServerResponse,
  _next: (err?: unknown) => void,
): void {
  const report = JSON.stringify({
    class: (err as object)?.constructor?.name,
    name: err?.name,
    message: err?.message,
    code: err?.code,
    status: err?.status,
  });
  if (res.headersSent) {
    res.end();
    return;
  }
  res.statusCode = 500;
  // A length set for the body that failed would not fit the report: kept under another name.
  const length = res.getHeader('Content-Length');
  if (length !== undefined) {
    res.removeHeader('Content-Length');
    res.setHeader('X-Failed-Content-Length', length);
  }
  res.end(report);
}

export interface GeneratedOptions<Case> {
  /** Describes a case in a failure message (default: util.inspect of the case). */
  describe?: (item: Case, index: number) => string;
  /** The request for a case (default: GET /c/<n>). */
  request?: (item: Case, index: number) => RequestSpec;
  /** Applied to both answers of a case before comparing. */
  normalize?: (answer: Answer, item: Case) => Answer;
  /** How many differences to show (the count is always given). */
  shown?: number;
}

/**
 * Builds the app with `define` on express@4 and on webapp, sends one request per
 * case to each, and asserts equal answers; a failure lists the first differing
 * cases with their arguments. Returns webapp's answers.
 */
export async function assertSameGenerated<Case>(
  define: (framework: Framework, cases: readonly Case[]) => http.RequestListener,
  cases: readonly Case[],
  options: GeneratedOptions<Case> = {},
): Promise<Answer[]> {
  const request = options.request ?? ((_item: Case, index: number): RequestSpec => ({ path: `/c/${index}` }));
  const requests = cases.map(request);
  const expected = await answersOf(define(express, cases), requests);
  const actual = await answersOf(define(webapp as unknown as Framework, cases), requests);
  const normalize = options.normalize ?? ((answer: Answer) => answer);
  const describe =
    options.describe ?? ((item: Case) => inspect(item, { depth: 4, breakLength: Infinity, maxStringLength: 120 }));
  const differences: string[] = [];
  for (let i = 0; i < cases.length; i++) {
    const want = normalize(expected[i], cases[i]);
    const got = normalize(actual[i], cases[i]);
    if (!isDeepStrictEqual(got, want)) {
      differences.push(
        `#${i} ${describe(cases[i], i)} ${inspect(requests[i].headers ?? {}, { breakLength: Infinity })}\n` +
          `  express: ${inspect(want, { breakLength: Infinity, maxStringLength: 300 })}\n` +
          `  webapp:  ${inspect(got, { breakLength: Infinity, maxStringLength: 300 })}`,
      );
    }
  }
  const shown = options.shown ?? 8;
  assert.equal(
    differences.length,
    0,
    `${differences.length} of ${cases.length} generated cases differ from express@4:\n` +
      differences.slice(0, shown).join('\n'),
  );
  return actual;
}

function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  try {
    assert.deepStrictEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

/** Strings a caller may pass by mistake or by malice: empty, odd, control, non-ASCII, long, numeric. */
export const ODD_STRINGS: readonly string[] = [
  '',
  ' ',
  'a',
  'foo',
  'Foo-Bar',
  '0',
  '1',
  '-1',
  '1e3',
  ' 42 ',
  'NaN',
  'Infinity',
  'null',
  'undefined',
  'true',
  'é',
  'café',
  '☃',
  '😀',
  '\ud800',
  'a\u2028b',
  '\x00',
  'a\tb',
  'a\r\nX-Injected: 1',
  '\n',
  '\x7f',
  'a;b',
  'a,b',
  'a=b',
  '"quoted"',
  "it's",
  'a b',
  '%',
  '%zz',
  '%41',
  '%E2%82%AC',
  'a/b',
  'a\\b',
  '../x',
  '<script>',
  '&amp;',
  '__proto__',
  'constructor',
  'toString',
  'x'.repeat(300),
  'é'.repeat(2000),
];

/** Values of every type, strings among them. */
export function oddValue(random: Random, depth = 0): unknown {
  const roll = Math.floor(random() * 22);
  switch (roll) {
    case 0:
      return undefined;
    case 1:
      return null;
    case 2:
      return NaN;
    case 3:
      return pickOf(random, [0, 1, -1, 1.5, -0, 200, 404, 999, 1e21, 2 ** 53, Infinity, -Infinity]);
    case 4:
      return random() < 0.5;
    case 5:
      return new Date(pickOf(random, [0, 1, 1e12, -1, 8.64e15, NaN]));
    case 6:
      return depth > 1 ? [] : [oddValue(random, depth + 1), oddValue(random, depth + 1)];
    case 7:
      return depth > 1 ? {} : { a: oddValue(random, depth + 1) };
    case 8:
      return JSON.parse('{"__proto__": {"x": 1}, "constructor": "c"}');
    case 9:
      return Object.create({ inherited: 'yes' });
    case 10:
      return Buffer.from('buf');
    case 11:
      return () => 'fn';
    case 12:
      return Symbol.for('s');
    case 13:
      return 10n;
    default:
      return pickOf(random, ODD_STRINGS);
  }
}

export function pickOf<T>(random: Random, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)];
}

/** A string of up to `max` pieces drawn from `alphabet` (characters or short runs). */
export function randomText(random: Random, alphabet: readonly string[], max: number): string {
  let text = '';
  const length = Math.floor(random() * (max + 1));
  for (let i = 0; i < length; i++) text += pickOf(random, alphabet);
  return text;
}
