/**
 * The sending and comparing half of every generated differential (compat, v3,
 * middleware): thousands of requests sent to one server over kept-alive
 * connections, a few at a time, their answers kept in the order of the requests,
 * and the differences between two sides' answers reported as one assertion.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { inspect } from 'node:util';
import { withServer, type RequestSpec } from './raw-http';

/** Header lines in the order sent, names lower-cased. */
export type HeaderLines = Array<[string, string]>;
/** Headers as Node's client joins them (`res.headers`). */
export type HeaderRecord = Record<string, string | string[]>;

/** An answer as compared: status, headers but the volatile ones, body as latin1 text. */
export interface Answer<Headers = HeaderLines> {
  status: number;
  headers: Headers;
  body: string;
}

/** Vary by clock or brand, or by how the connection is handled (not what an app decides). */
export const VOLATILE: ReadonlySet<string> = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * X-Powered-By names the framework that answered (`Express`, `webapp`): whether the
 * header is there is what two answers must share, so its value is hidden.
 */
const BRAND = '<brand>';

/** Header lines with X-Powered-By's value hidden (see BRAND). */
export function brandHidden(headers: HeaderLines): HeaderLines {
  return headers.map(([name, value]): [string, string] => [name, name === 'x-powered-by' ? BRAND : value]);
}

/** Headers as `res.headers` holds them, X-Powered-By's value hidden (see BRAND). */
export function brandHiddenIn<Headers extends object>(headers: Headers): Headers {
  const copy = { ...headers } as Record<string, unknown>;
  if (copy['x-powered-by'] !== undefined) copy['x-powered-by'] = BRAND;
  return copy as Headers;
}

/** How an answer's headers are read, and what an answer without headers holds. */
export interface HeaderReader<Headers> {
  read(res: http.IncomingMessage): Headers;
  none(): Headers;
}

/** Header lines in the order sent, but the names in `volatile`. */
export function headerLines(volatile: ReadonlySet<string> = VOLATILE): HeaderReader<HeaderLines> {
  return {
    read: (res) => {
      const headers: HeaderLines = [];
      for (let i = 0; i < res.rawHeaders.length; i += 2) {
        const name = res.rawHeaders[i].toLowerCase();
        if (!volatile.has(name)) headers.push([name, res.rawHeaders[i + 1]]);
      }
      return headers;
    },
    none: () => [],
  };
}

/** Headers as `res.headers` holds them, but the names in `volatile`. */
export function headerRecord(volatile: ReadonlySet<string> = VOLATILE): HeaderReader<HeaderRecord> {
  return {
    read: (res) => {
      const headers: HeaderRecord = {};
      for (const [name, value] of Object.entries(res.headers))
        if (!volatile.has(name) && value !== undefined) headers[name] = value;
      return headers;
    },
    none: () => ({}),
  };
}

export interface SendOptions<Headers> {
  /** Requests in flight at once (default 8; 1 for cases that depend on order). */
  parallel?: number;
  /** How headers are read (default: header lines but VOLATILE). */
  headers?: HeaderReader<Headers>;
  /**
   * What Node's client refuses to send (values beyond latin1, control characters)
   * or cannot read (a 1xx status, a body after it) goes again as bytes on a
   * connection of its own, and is compared as what the server wrote (`sendRaw`).
   * Otherwise such a request answers status -1 with the client's error code as body.
   */
  raw?: boolean;
}

/**
 * Sends every request, at most `parallel` at a time over kept-alive connections, to
 * a server for `listener`; answers in the order of the requests. A request the
 * server cut off answers status -1 (-2 if cut off in the body) with the client's
 * error code as its body.
 */
export function answersOf(listener: http.RequestListener, requests: readonly RequestSpec[]): Promise<Answer[]>;
export function answersOf<Headers>(
  listener: http.RequestListener,
  requests: readonly RequestSpec[],
  options: SendOptions<Headers> & { headers: HeaderReader<Headers> },
): Promise<Answer<Headers>[]>;
export function answersOf(
  listener: http.RequestListener,
  requests: readonly RequestSpec[],
  options?: SendOptions<HeaderLines>,
): Promise<Answer[]>;
export function answersOf<Headers>(
  listener: http.RequestListener,
  requests: readonly RequestSpec[],
  options: SendOptions<Headers> = {},
): Promise<Answer<Headers>[]> {
  const parallel = options.parallel ?? 8;
  const reader = options.headers ?? (headerLines() as unknown as HeaderReader<Headers>);
  const raw = options.raw ?? false;
  return withServer(listener, async (port) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: parallel });
    const answers: Answer<Headers>[] = new Array(requests.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      // Bounded: each worker takes the next request until none is left.
      while (next < requests.length) {
        const index = next++;
        const spec = requests[index];
        answers[index] =
          raw && !clientSends(spec)
            ? ((await sendRaw(port, spec)) as Answer<Headers>)
            : await send(port, agent, spec, reader, raw);
      }
    };
    try {
      await Promise.all(Array.from({ length: parallel }, worker));
      // What the client could not read is read again as bytes, on a connection of its own.
      if (raw)
        for (let i = 0; i < requests.length; i++)
          if (answers[i].status < 0) answers[i] = (await sendRaw(port, requests[i])) as Answer<Headers>;
    } finally {
      agent.destroy();
    }
    return answers;
  });
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

function send<Headers>(
  port: number,
  agent: http.Agent,
  spec: RequestSpec,
  reader: HeaderReader<Headers>,
  endOn1xx: boolean,
): Promise<Answer<Headers>> {
  return new Promise((resolve) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: spec.method ?? 'GET', path: spec.path, headers: spec.headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: reader.read(res),
            body: Buffer.concat(chunks).toString('latin1'),
          }),
        );
        res.on('error', (err: NodeJS.ErrnoException) =>
          resolve({ status: -2, headers: reader.none(), body: String(err.code) }),
        );
      },
    );
    // A 1xx status is not the end of an answer for the client: it would wait for another.
    if (endOn1xx) req.on('information', () => req.destroy(Object.assign(new Error('1xx'), { code: 'INFORMATIONAL' })));
    // An answer the client cannot read (a body after a 1xx status, say) is compared as its error.
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ status: -1, headers: reader.none(), body: String(err.code) }),
    );
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

/** assert.deepStrictEqual as a predicate. */
export function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  try {
    assert.deepStrictEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

/** A value on one line of a failure message. */
export function show(value: unknown, maxStringLength = 300, depth = 4): string {
  return inspect(value, { breakLength: Infinity, maxStringLength, depth });
}

/**
 * Fails, where there are differences, with their count out of `total` and the first
 * `shown` of them: `<count> of <total> <what>:` then one difference a paragraph.
 */
export function assertNoDifferences(differences: readonly string[], total: number, what: string, shown = 8): void {
  assert.equal(
    differences.length,
    0,
    `${differences.length} of ${total} ${what}:\n` + differences.slice(0, shown).join('\n'),
  );
}

/** One answer read off a connection's bytes. */
export interface WireAnswer {
  status: string;
  /** Names lower-cased, values trimmed, in the order sent. */
  headers: HeaderLines;
  /** latin1 text: what of the body has come. */
  body: string;
  /** All of its body has come (never for a body that ends with the connection: the caller knows the close). */
  whole: boolean;
  /** A 1xx answer (100 Continue), which comes before the final one. */
  interim: boolean;
}

/**
 * The answers in what a server wrote on one connection (`text`, read as latin1), in
 * order; `isHead(n)` tells whether the nth final answer is to a HEAD request, whose
 * head describes a body it does not have (as 1xx, 204 and 304 answers have none).
 * Bytes that do not parse as an answer end the list, as `rest`.
 */
export function wireAnswers(text: string, isHead: (final: number) => boolean): { list: WireAnswer[]; rest: string } {
  const list: WireAnswer[] = [];
  let at = 0;
  let final = 0;
  // Bounded: every round moves `at` forward or stops.
  while (at < text.length) {
    const headEnd = text.indexOf('\r\n\r\n', at);
    if (!text.startsWith('HTTP/', at) || headEnd === -1) break;
    const [status, ...lines] = text.slice(at, headEnd).split('\r\n');
    const headers: HeaderLines = lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    });
    const code = Number(status.split(' ')[1]);
    const interim = code < 200;
    const value = (name: string) => headers.find(([n]) => n === name)?.[1];
    let end = headEnd + 4;
    let whole = true;
    if (!interim && !isHead(final++) && code !== 204 && code !== 304) {
      if (value('transfer-encoding') === 'chunked') {
        whole = false;
        // Bounded: every chunk moves `pos` on; a size that does not parse takes the rest.
        for (let pos = headEnd + 4; ;) {
          const lineEnd = text.indexOf('\r\n', pos);
          const size = parseInt(text.slice(pos, lineEnd), 16);
          if (lineEnd === -1 || !(size >= 0)) {
            end = text.length;
            break;
          }
          pos = lineEnd + 2 + size + 2;
          end = Math.min(pos, text.length);
          if (size === 0) {
            whole = pos <= text.length;
            break;
          }
        }
      } else if (value('content-length') !== undefined) {
        end += Number(value('content-length'));
        whole = end <= text.length;
        end = Math.min(end, text.length);
      } else {
        end = text.length;
        whole = false;
      }
    }
    list.push({ status, headers, body: text.slice(headEnd + 4, end), whole, interim });
    at = end;
  }
  return { list, rest: text.slice(at) };
}
