/**
 * Hostile and malformed requests, sent byte for byte over raw sockets to one server per
 * parser configuration on body-parser@1.20 (the oracle) and one on webapp/body-parser:
 * the answers (status, parsed value or the error's fields) and the error each parser
 * passed to `next` must be the same, and after the hostile requests a well-formed one
 * must still be answered by the same server. What webapp answers differently on purpose
 * is at the end, with the reason.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import util from 'node:util';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import ours = require('../../src/body-parser/index');
import { decoderFor } from '../../src/body-parser/charset';
import { prng, pick } from '../support/prng';
import type { Parser } from './support';

const theirs = require('body-parser');
process.env.NO_DEPRECATION = 'body-parser,webapp,http-errors';

type BodyParserModule = typeof ours;
type Factory = (module: BodyParserModule) => Parser;

/** One request as written on the socket, and how the client leaves. */
interface Hostile {
  name: string;
  pieces: Array<string | Buffer>;
  /**
   * `answer` (default): read the answer, then close. `end`: half-close after writing
   * (the body is cut short); `abort`: destroy the socket once the server has read
   * `abortAfter` bytes of the body. For those two only the error passed to `next` is compared.
   */
  leave?: 'answer' | 'end' | 'abort';
  abortAfter?: number;
}

/** A value as the comparison sees it: Buffers as hex, prototypes named, long strings cut. */
function shown(value: unknown): string {
  if (Buffer.isBuffer(value)) return 'Buffer ' + value.toString('hex').slice(0, 400);
  return util.inspect(value, { depth: 40, breakLength: Infinity, maxArrayLength: 40, maxStringLength: 400 });
}

/** What a parser passed to `next`: the error's fields (own keys in order), or the parsed body. */
function outcome(req: http.IncomingMessage & { body?: unknown }, err: unknown): Record<string, unknown> {
  if (!err) {
    const body = req.body;
    const proto = body !== null && typeof body === 'object' ? Object.getPrototypeOf(body) : undefined;
    return {
      body: shown(body),
      proto: proto === null ? 'null' : proto === undefined ? typeof body : proto.constructor.name,
      polluted: ({} as Record<string, unknown>).polluted ?? null,
    };
  }
  const e = err as Error & Record<string, unknown>;
  const fields: Record<string, unknown> = {
    status: e.status,
    statusCode: e.statusCode,
    expose: e.expose,
    type: e.type,
    message: e.message,
    name: e.name,
    keys: Object.keys(e),
  };
  for (const key of Object.keys(e)) if (!(key in fields)) fields[key] = shown(e[key]);
  return fields;
}

/** What the client saw of one request: the first answer (if it read one) and its connection's port. */
interface Sent {
  answer: { status: number; body: string } | undefined;
  port: number;
}

/**
 * A server around one parser that answers with the outcome and remembers it, by the
 * client's port: a request that leaves a pipelined one behind cannot shift another's.
 * Only a connection's first request is remembered, and only until it is read: over a
 * run's thousands of connections the system gives a client port again, and a later
 * connection from it must not be answered with an earlier one's outcome.
 */
class Subject {
  private outcomes = new Map<number, Record<string, unknown>>();
  private remembered = new WeakSet<object>();
  private waiting = new Map<number, () => void>();
  private bodyWatch: { bytes: number; reached: () => void } | undefined;
  private server: http.Server;
  port = 0;

  constructor(parser: Parser) {
    this.server = http.createServer((req, res) => {
      const client = req.socket.remotePort as number;
      parser(req, res, (err?: unknown) => {
        const result = outcome(req, err);
        if (!this.remembered.has(req.socket)) {
          this.remembered.add(req.socket);
          this.outcomes.set(client, result);
        }
        this.waiting.get(client)?.();
        res.statusCode = err ? ((err as { status?: number }).status ?? 500) : 200;
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify(result));
      });
      const watch = this.bodyWatch;
      if (watch) {
        let seen = 0;
        req.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen >= watch.bytes) watch.reached();
        });
      }
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Resolves with what the parser passed to `next` for the first request of the client's connection. */
  async outcomeOf(client: number): Promise<Record<string, unknown>> {
    if (!this.outcomes.has(client)) await new Promise<void>((resolve) => this.waiting.set(client, resolve));
    this.waiting.delete(client);
    const result = this.outcomes.get(client)!;
    this.outcomes.delete(client);
    return result;
  }

  /** Resolves once the next request's body has delivered `bytes` bytes to the server. */
  private bodyBytes(bytes: number): Promise<void> {
    return new Promise((resolve) => {
      this.bodyWatch = {
        bytes,
        reached: () => {
          this.bodyWatch = undefined;
          resolve();
        },
      };
    });
  }

  /** Sends one hostile request on a connection of its own. */
  send(request: Hostile): Promise<Sent> {
    const leave = request.leave ?? 'answer';
    const watched = leave === 'abort' ? this.bodyBytes(request.abortAfter ?? 1) : undefined;
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port: this.port, host: '127.0.0.1', noDelay: true });
      let received = Buffer.alloc(0);
      let settled = false;
      let port = 0;
      const settle = (answer: Sent['answer']) => {
        if (settled) return;
        settled = true;
        socket.destroy();
        resolve({ answer, port });
      };
      socket.on('data', (data: Buffer) => {
        received = Buffer.concat([received, data]);
        const answer = firstAnswer(received);
        if (answer) settle(answer);
      });
      socket.on('close', () => settle(firstAnswer(received, true)));
      socket.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
      });
      socket.on('connect', async () => {
        port = socket.localPort as number;
        for (const piece of request.pieces) {
          if (socket.destroyed) return;
          socket.write(piece);
          await new Promise((r) => setImmediate(r));
        }
        if (leave === 'end') socket.end();
        if (leave === 'abort') {
          await watched;
          settle(undefined);
        }
      });
    });
  }
}

/** The first complete final answer in `bytes` (or what there is once the connection closed). */
function firstAnswer(bytes: Buffer, closed = false): Sent['answer'] {
  let start = 0;
  // `100 Continue` and other interim answers come before the one compared.
  while (bytes.subarray(start, start + 10).toString('latin1') === 'HTTP/1.1 1') {
    const end = bytes.indexOf('\r\n\r\n', start);
    if (end === -1) return undefined;
    start = end + 4;
  }
  const headEnd = bytes.indexOf('\r\n\r\n', start);
  if (headEnd === -1) return closed && bytes.length > start ? { status: 0, body: bytes.toString('latin1') } : undefined;
  const head = bytes.subarray(start, headEnd).toString('latin1');
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
  if (bytes.length < headEnd + 4 + length && !closed) return undefined;
  return {
    status: Number(head.split(' ')[1]),
    body: bytes.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8'),
  };
}

/** Node's own 400 for a request it cannot parse (the parsers never see it): no body. */
function refusedByNode(answer: Sent['answer']): boolean {
  return answer !== undefined && answer.status === 400 && answer.body === '';
}

/** A request written as given: headers in order (repeats allowed), Content-Length added unless framed. */
function post(headers: Array<[string, string]> | Record<string, string>, body: string | Buffer = '', method = 'POST') {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const list = Array.isArray(headers) ? headers : Object.entries(headers);
  const framed = list.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name));
  const lines = (framed ? list : [...list, ['Content-Length', String(bytes.length)]])
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return [`${method} / HTTP/1.1\r\nHost: localhost\r\n${lines}\r\n`, bytes];
}

const hostile = (name: string, pieces: Array<string | Buffer>, leave?: Hostile['leave'], abortAfter?: number) => ({
  name,
  pieces,
  leave,
  abortAfter,
});

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * Sends every request to a server on the oracle and one on webapp built by `factory`,
 * compares the answers and the outcomes passed to `next`, then checks that `healthy`
 * (a well-formed request) is still answered by both.
 */
async function sameOnBoth(factory: Factory, requests: Hostile[], healthy = post({ 'Content-Type': JSON_TYPE }, '{}')) {
  const subjects = [new Subject(factory(theirs)), new Subject(factory(ours))];
  await Promise.all(subjects.map((subject) => subject.start()));
  try {
    for (const request of requests) {
      const seen = [];
      for (const subject of subjects) {
        const { answer, port } = await subject.send(request);
        const passedOn = refusedByNode(answer) ? undefined : await subject.outcomeOf(port);
        // A client that left sees no answer, or one that races its leaving: only `next` is compared.
        seen.push({ answer: request.leave && request.leave !== 'answer' ? undefined : answer, passedOn });
      }
      assert.deepEqual(seen[1], seen[0], request.name);
    }
    for (const subject of subjects) {
      const { answer } = await subject.send({ name: 'healthy', pieces: healthy });
      assert.equal(answer?.status, 200, 'a well-formed request after the hostile ones');
    }
  } finally {
    await Promise.all(subjects.map((subject) => subject.stop()));
  }
}

describe('hostile requests: webapp/body-parser answers as body-parser@1.20', () => {
  const json = '{"a":1}';

  it('Content-Length lies, duplicated and invalid lengths, chunked framing, pipelined requests', async () => {
    const requests = [
      hostile('length shorter than the body', post({ 'Content-Type': JSON_TYPE, 'Content-Length': '3' }, json)),
      hostile(
        'length longer, connection half-closed',
        post({ 'Content-Type': JSON_TYPE, 'Content-Length': '20' }, json),
        'end',
      ),
      hostile('negative length', post({ 'Content-Type': JSON_TYPE, 'Content-Length': '-1' }, json)),
      hostile('non-numeric length', post({ 'Content-Type': JSON_TYPE, 'Content-Length': 'abc' }, json)),
      hostile('length 1e1', post({ 'Content-Type': JSON_TYPE, 'Content-Length': '1e1' }, json)),
      hostile('length 0x7', post({ 'Content-Type': JSON_TYPE, 'Content-Length': '0x7' }, json)),
      hostile('length +7', post({ 'Content-Type': JSON_TYPE, 'Content-Length': '+7' }, json)),
      hostile(
        'huge length',
        post({ 'Content-Type': JSON_TYPE, 'Content-Length': '99999999999999999999' }, json),
        'end',
      ),
      hostile(
        'two equal lengths',
        post(
          [
            ['Content-Type', JSON_TYPE],
            ['Content-Length', '7'],
            ['Content-Length', '7'],
          ],
          json,
        ),
      ),
      hostile(
        'two lengths',
        post(
          [
            ['Content-Type', JSON_TYPE],
            ['Content-Length', '7'],
            ['Content-Length', '8'],
          ],
          json,
        ),
      ),
      hostile(
        'length and chunked',
        post(
          { 'Content-Type': JSON_TYPE, 'Content-Length': '7', 'Transfer-Encoding': 'chunked' },
          `7\r\n${json}\r\n0\r\n\r\n`,
        ),
      ),
      hostile(
        'chunked',
        post({ 'Content-Type': JSON_TYPE, 'Transfer-Encoding': 'chunked' }, `7\r\n${json}\r\n0\r\n\r\n`),
      ),
      hostile(
        'chunked, bad size',
        post({ 'Content-Type': JSON_TYPE, 'Transfer-Encoding': 'chunked' }, `zz\r\n${json}\r\n`),
      ),
      hostile(
        'chunked, trailers and extensions',
        post({ 'Content-Type': JSON_TYPE, 'Transfer-Encoding': 'chunked' }, `7;x=1\r\n${json}\r\n0\r\nX-T: 1\r\n\r\n`),
      ),
      hostile(
        'chunked, cut short',
        post({ 'Content-Type': JSON_TYPE, 'Transfer-Encoding': 'chunked' }, `70\r\n${json}`),
        'end',
      ),
      hostile('length 0', post({ 'Content-Type': JSON_TYPE, 'Content-Length': '0' })),
      hostile('no length, no body', post({ 'Content-Type': JSON_TYPE, 'Transfer-Encoding': 'chunked' }, '0\r\n\r\n')),
      hostile('GET with a body', post({ 'Content-Type': JSON_TYPE }, json, 'GET')),
      hostile('DELETE with a body', post({ 'Content-Type': JSON_TYPE }, json, 'DELETE')),
      hostile('Expect: 100-continue', post({ 'Content-Type': JSON_TYPE, Expect: '100-continue' }, json)),
      hostile('pipelined after a parse error', [
        post({ 'Content-Type': JSON_TYPE }, '{bad').join('') + post({}, '').join(''),
      ]),
    ];
    await sameOnBoth((m) => m.json(), requests);
    await sameOnBoth((m) => m.text({ limit: 5, type: () => true }), requests);
  });

  it('limits: exactly at and one byte over, string and number limits, chunked bodies, inflated bodies', async () => {
    const atLimit = '[' + ' '.repeat(102400 - 2) + ']';
    const overLimit = '[' + ' '.repeat(102400 - 1) + ']';
    const chunkedBody = (body: string) => `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const requests = [
      hostile('at the limit', post({ 'Content-Type': JSON_TYPE }, atLimit)),
      hostile('one over', post({ 'Content-Type': JSON_TYPE }, overLimit)),
      hostile(
        'chunked, at the limit',
        post({ 'Content-Type': JSON_TYPE, 'Transfer-Encoding': 'chunked' }, chunkedBody(atLimit)),
      ),
      hostile(
        'chunked, one over',
        post({ 'Content-Type': JSON_TYPE, 'Transfer-Encoding': 'chunked' }, chunkedBody(overLimit)),
      ),
      hostile(
        'gzip, inflating to the limit',
        post({ 'Content-Type': JSON_TYPE, 'Content-Encoding': 'gzip' }, zlib.gzipSync(atLimit)),
      ),
      hostile(
        'gzip, inflating one over',
        post({ 'Content-Type': JSON_TYPE, 'Content-Encoding': 'gzip' }, zlib.gzipSync(overLimit)),
      ),
      hostile(
        'gzip bomb',
        post({ 'Content-Type': JSON_TYPE, 'Content-Encoding': 'gzip' }, zlib.gzipSync(Buffer.alloc(5e6, 32))),
      ),
      hostile(
        'deflate bomb',
        post({ 'Content-Type': JSON_TYPE, 'Content-Encoding': 'deflate' }, zlib.deflateSync(Buffer.alloc(5e6))),
      ),
      hostile('one over, announced small', post({ 'Content-Type': JSON_TYPE, 'Content-Length': '10' }, overLimit)),
      hostile('pipelined after a 413', [
        post({ 'Content-Type': JSON_TYPE }, overLimit).join('') + post({ 'Content-Type': JSON_TYPE }, '[2]').join(''),
      ]),
    ];
    await sameOnBoth((m) => m.json(), requests);
    await sameOnBoth((m) => m.json({ limit: '100kb' }), requests);
    await sameOnBoth((m) => m.raw({ limit: 102400, type: () => true }), requests);
    const small = [hostile('8 bytes', post({}, '12345678')), hostile('9 bytes', post({}, '123456789'))];
    for (const limit of [8, '8b', '8B', '0.0078125kb', '8.9', 0, '0b'] as const)
      await sameOnBoth((m) => m.raw({ limit, type: () => true }), small, post({}, ''));
  });

  it('aborted uploads: 400 request.aborted with the sizes read, and the server keeps serving', async () => {
    const requests = [
      hostile(
        'identity, mid-body',
        post({ 'Content-Type': JSON_TYPE, 'Content-Length': '1000' }, '{"a":"' + 'x'.repeat(200)),
        'abort',
        206,
      ),
      hostile(
        'chunked, mid-body',
        post({ 'Content-Type': JSON_TYPE, 'Transfer-Encoding': 'chunked' }, `3e8\r\n{"a":"${'x'.repeat(100)}`),
        'abort',
        106,
      ),
      hostile(
        'identity, after the head',
        [post({ 'Content-Type': JSON_TYPE, 'Content-Length': '50' }, '')[0], '{'],
        'abort',
        1,
      ),
    ];
    await sameOnBoth((m) => m.json(), requests);
    await sameOnBoth((m) => m.raw({ type: '*/*' }), requests);
  });

  it('Content-Encoding: gzip, deflate, identity, case, lists, unknown, corrupt and truncated streams', async () => {
    const gz = zlib.gzipSync(json);
    const corruptCrc = Buffer.from(gz);
    corruptCrc[corruptCrc.length - 6] ^= 0xff;
    const encoded = (encoding: string | string[], body: string | Buffer) =>
      post(
        [
          ['Content-Type', JSON_TYPE],
          ...[encoding].flat().map((value): [string, string] => ['Content-Encoding', value]),
        ],
        body,
      );
    const requests = [
      hostile('gzip', encoded('gzip', gz)),
      hostile('GZIP', encoded('GZIP', gz)),
      hostile('Deflate', encoded('Deflate', zlib.deflateSync(json))),
      hostile('raw deflate as deflate', encoded('deflate', zlib.deflateRawSync(json))),
      hostile('identity', encoded('identity', json)),
      hostile('IDENTITY', encoded('IDENTITY', json)),
      hostile('empty', encoded('', json)),
      hostile('x-gzip', encoded('x-gzip', gz)),
      hostile('compress', encoded('compress', json)),
      hostile('gzip, gzip', encoded('gzip, gzip', zlib.gzipSync(gz))),
      hostile('two headers', encoded(['gzip', 'gzip'], zlib.gzipSync(gz))),
      hostile('gzip, identity', encoded('gzip, identity', gz)),
      hostile('not gzip', encoded('gzip', 'not gzip at all')),
      hostile('truncated gzip', encoded('gzip', gz.subarray(0, 15))),
      hostile('gzip with a bad CRC', encoded('gzip', corruptCrc)),
      hostile('gzip and garbage', encoded('gzip', Buffer.concat([gz, Buffer.from('garbage')]))),
      hostile('two gzip members', encoded('gzip', Buffer.concat([zlib.gzipSync('{"a":'), zlib.gzipSync('1}')]))),
      hostile('corrupt deflate', encoded('deflate', 'xxxxxxx')),
      hostile('empty gzip body', encoded('gzip', '')),
    ];
    await sameOnBoth((m) => m.json(), requests);
    await sameOnBoth((m) => m.json({ inflate: false }), requests);
    await sameOnBoth((m) => m.text({ type: '*/*', limit: 10 }), requests);
  });

  it('Content-Type syntax and charsets, with each form of the type option', async () => {
    const types = [
      'application/json;;',
      'application/json; charset="utf-8"',
      'application/json; charset="UTF-16"',
      'application/json; charset=utf-32',
      'application/json; charset=utf-',
      'application/json; charset=latin1',
      'application/json; charset=UTF8',
      'application/json; charset=',
      'application/json; charset=""',
      'application/json; charset',
      'application/json; charset=utf-8; charset=latin1',
      'application/json; CHARSET=latin1',
      'application/json; charset="utf\\-8"',
      "application/json; charset='utf-8'",
      'application/json ;charset=utf-8',
      'application/json,text/plain',
      ';charset=utf-8',
      '',
      'json',
      '/json',
      'application/',
      '*/*',
      'application/merge-patch+json',
      'text/json',
      'text/plain; charset=bogus',
      'text/plain; charset=" utf-8"',
    ];
    const requests = types.map((type) =>
      hostile(`Content-Type ${JSON.stringify(type)}`, post({ 'Content-Type': type }, '{"a":"é"}')),
    );
    requests.push(hostile('no Content-Type', post({}, json)));
    requests.push(
      hostile(
        'two Content-Types',
        post(
          [
            ['Content-Type', JSON_TYPE],
            ['Content-Type', 'text/plain'],
          ],
          json,
        ),
      ),
    );
    await sameOnBoth((m) => m.json(), requests);
    await sameOnBoth((m) => m.json({ verify: () => undefined }), requests);
    await sameOnBoth((m) => m.json({ type: '*/*' }), requests);
    await sameOnBoth((m) => m.json({ type: ['json', '+json', 'text/*'] }), requests);
    await sameOnBoth((m) => m.json({ type: () => 'truthy' as never }), requests);
    await sameOnBoth((m) => m.urlencoded({ extended: true, type: '*/*' }), requests);
    await sameOnBoth((m) => m.text({ type: '*/*', defaultCharset: 'latin1' }), requests);
    await sameOnBoth((m) => m.text({ type: '*/*', defaultCharset: 'utf-16' }), requests);
    await sameOnBoth((m) => m.raw({ type: '' }), requests);
  });

  it('json: strict first character, BOM, deep nesting, duplicate and __proto__ keys, SyntaxError texts', async () => {
    const bodies = [
      ' \t\r\n{"a":1}',
      '\ufeff{"a":1}',
      '\ufeff\ufeff{}',
      '\u00a0{}',
      '\u2028{}',
      '\x0b{}',
      '"\ufeff"',
      ' true',
      'tru',
      '{"a":1}x',
      '{"a":1,}',
      "{'a':1}",
      '[1e400, -0, 01]',
      '[' + '"x",'.repeat(1000) + '1]',
      '['.repeat(100000),
      '['.repeat(100000) + ']'.repeat(100000),
      '{"a":'.repeat(20000) + '1' + '}'.repeat(20000),
      '{"a":1,"a":2}',
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"a":"\\ud800"}',
      Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
      Buffer.from([0x5b, 0xf0, 0x9f, 0x92]),
    ];
    // Seeded fragments of JSON, so that every kind of SyntaxError message is compared.
    const random = prng(0x150);
    const fragments = [
      '{',
      '}',
      '[',
      ']',
      '"',
      ':',
      ',',
      ' ',
      '\n',
      '1',
      '-',
      '.',
      'e',
      'null',
      'x',
      '\\u',
      '\ufeff',
      '\x00',
    ];
    for (let i = 0; i < 150; i++)
      bodies.push(Array.from({ length: 1 + Math.floor(random() * 10) }, () => pick(random, fragments)).join(''));
    const requests = bodies.map((body, i) => hostile(`json body ${i}`, post({ 'Content-Type': JSON_TYPE }, body)));
    await sameOnBoth((m) => m.json(), requests);
    await sameOnBoth((m) => m.json({ strict: false }), requests);
    await sameOnBoth(
      (m) => m.json({ reviver: (key: string, value: unknown) => (key === 'a' ? undefined : value) }),
      requests,
    );
  });

  it('urlencoded: depth, parameterLimit, arrayLimit, prototype keys, malformed escapes, empty keys', async () => {
    const many = (count: number, part: (i: number) => string) =>
      Array.from({ length: count }, (_, i) => part(i)).join('&');
    const bodies = [
      'a' + '[b]'.repeat(32) + '=1',
      'a' + '[b]'.repeat(33) + '=1',
      'a' + '['.repeat(40) + '=1',
      '['.repeat(40) + 'a' + ']'.repeat(40) + '=1',
      many(1000, () => 'a'),
      many(1001, () => 'a'),
      many(1001, () => ''),
      many(150, (i) => `a[]=${i}`),
      many(150, (i) => `a[${149 - i}]=${i}`),
      'a[]=1&a[0]=2',
      'a[0]=2&a[]=1',
      'a[21]=x',
      'a[100]=x',
      'a[101]=x&a[0]=y',
      '__proto__[polluted]=1&constructor[prototype][polluted]=1',
      'a[__proto__][polluted]=1&__proto__=x',
      'hasOwnProperty=1&a[hasOwnProperty]=2&toString[a]=3',
      'a=%ZZ&%E2%82=1&%=%&%%%',
      'a+b=c+d%2B&+=+',
      '&&&',
      '=',
      '=&=',
      'a==b',
      '[]=1&[0]=1&[a]=1',
      'a[=1&a]=1&a[b=1&a[b]c=1',
      'k'.repeat(60000) + '=v',
      'a=1;b=2',
    ];
    const random = prng(0xf04);
    const fragments = [
      'a',
      '[',
      ']',
      '=',
      '&',
      '%',
      '%5B',
      '%5D',
      '[]',
      '[0]',
      '[21]',
      '__proto__',
      'constructor',
      '+',
      '.',
    ];
    for (let i = 0; i < 150; i++)
      bodies.push(Array.from({ length: 1 + Math.floor(random() * 12) }, () => pick(random, fragments)).join(''));
    const requests = bodies.map((body, i) => hostile(`form body ${i}`, post({ 'Content-Type': FORM_TYPE }, body)));
    const healthy = post({ 'Content-Type': FORM_TYPE }, 'a=1');
    await sameOnBoth((m) => m.urlencoded({ extended: true }), requests, healthy);
    await sameOnBoth((m) => m.urlencoded({ extended: true, depth: 1, parameterLimit: 5 }), requests, healthy);
    await sameOnBoth((m) => m.urlencoded({ extended: false }), requests, healthy);
    await sameOnBoth((m) => m.urlencoded({ extended: false, parameterLimit: 3 }), requests, healthy);
  });

  it('text and raw: defaultCharset, type functions, empty bodies, bodies without a Content-Type', async () => {
    const requests = [
      hostile('text', post({ 'Content-Type': 'text/plain' }, 'héllo')),
      hostile('empty', post({ 'Content-Type': 'text/plain' }, '')),
      hostile('no type', post({}, 'x')),
      hostile(
        'utf-16 with a BOM',
        post({ 'Content-Type': 'text/plain; charset=utf-16' }, Buffer.from('\ufeffhi', 'utf16le').swap16()),
      ),
      hostile(
        'utf-16 without a BOM',
        post({ 'Content-Type': 'text/plain; charset=utf-16' }, Buffer.from('hi', 'utf16le')),
      ),
      hostile(
        'utf-16, odd length',
        post({ 'Content-Type': 'text/plain; charset=utf-16' }, Buffer.from([0x68, 0, 0x69])),
      ),
      hostile('unknown charset', post({ 'Content-Type': 'text/plain; charset=nope' }, 'x')),
      hostile('GET with a body', post({ 'Content-Type': 'text/plain' }, 'x', 'GET')),
    ];
    const healthy = post({ 'Content-Type': 'text/plain' }, 'ok');
    await sameOnBoth((m) => m.text(), requests, healthy);
    await sameOnBoth((m) => m.text({ defaultCharset: 'latin1', type: () => true }), requests, healthy);
    await sameOnBoth(
      (m) => m.text({ defaultCharset: 'nope', type: 'text/*' }),
      requests,
      post({ 'Content-Type': 'text/plain; charset=utf-8' }, 'ok'),
    );
    await sameOnBoth((m) => m.raw({ type: (req) => req.headers['content-type'] === undefined }), requests, healthy);
  });

  it('Mac OS Roman: every byte decodes as iconv-lite reads it (0xdb, 0xbd, 0xf0), under all names', async () => {
    const everyByte = Buffer.from(Array.from({ length: 256 }, (_, byte) => byte));
    const requests = ['macintosh', 'MAC', 'csmacintosh', 'macroman', 'x-mac-roman'].map((charset) =>
      hostile(charset, post({ 'Content-Type': 'text/plain; charset=' + charset }, everyByte)),
    );
    await sameOnBoth((m) => m.text(), requests, post({ 'Content-Type': 'text/plain' }, 'ok'));
  });

  it('double-byte charsets: every byte pair and generated runs as iconv-lite reads them, by their names', async () => {
    // Each of the 65,536 pairs, then a line feed: lone bytes, pairs that stand for nothing
    // (U+FFFD for the first byte, the second read again), user-defined rows, Korean's
    // extension (81 41 is U+AC02), GBK's private-use pairs of GB18030-2005.
    const everyPair = Buffer.alloc(256 * 256 * 3);
    for (let pair = 0; pair < 256 * 256; pair++) everyPair.set([pair >> 8, pair & 0xff, 0x0a], pair * 3);
    const random = prng(949);
    const runs = Array.from({ length: 30 }, () =>
      Buffer.from(Array.from({ length: 1 + Math.floor(random() * 64) }, () => Math.floor(random() * 256))),
    );
    const text = (charset: string, body: Buffer) => post({ 'Content-Type': 'text/plain; charset=' + charset }, body);
    const names = ['euc-kr', 'cp949', 'ks_c_5601-1987', 'shift_jis', 'windows-31j', 'gbk', 'x-gbk', 'cp950'];
    const requests = names.flatMap((charset) => [
      hostile(charset, text(charset, everyPair)),
      ...runs.map((run, i) => hostile(`${charset} run ${i}`, text(charset, run))),
    ]);
    await sameOnBoth((m) => m.text({ limit: '1mb' }), requests, post({ 'Content-Type': 'text/plain' }, 'ok'));
  });

  it('double-byte charsets: where iconv-lite has characters Node cannot name, and nothing else, differ', () => {
    const iconv = require(require.resolve('iconv-lite', { paths: [require.resolve('body-parser')] }));
    // [name, pairs only iconv-lite decodes, pairs only webapp decodes] (double-byte-charsets.ts):
    // Big5's Hong Kong supplement; the GBK additions code page 936 lacks in iconv-lite.
    const expected: Array<[string, number, number]> = [
      ['big5', 5058, 0],
      ['gb2312', 0, 82],
    ];
    for (const [charset, onlyTheirs, onlyOurs] of expected) {
      const decoder = decoderFor(charset)!;
      const counts = { theirs: 0, ours: 0, other: 0 };
      for (let lead = 0x80; lead <= 0xff; lead++)
        for (let trail = 0; trail <= 0xff; trail++) {
          const pair = Buffer.from([lead, trail]);
          const [actual, wanted] = [decoder.decode(pair), iconv.decode(pair, charset) as string];
          if (actual === wanted) continue;
          if (actual.startsWith('\ufffd') && !wanted.startsWith('\ufffd')) counts.theirs++;
          else if (wanted.startsWith('\ufffd') && !actual.startsWith('\ufffd')) counts.ours++;
          else counts.other++;
        }
      // Which pairs Node names is its ICU's table: 20.9.0's names one GBK pair fewer.
      assert.ok(counts.ours <= onlyOurs && counts.ours >= onlyOurs - 2, `${charset}: ${counts.ours} only ours`);
      assert.deepEqual({ ...counts, ours: 0 }, { theirs: onlyTheirs, ours: 0, other: 0 }, charset);
    }
  });

  it('a body already read (req._body) is passed over; two parsers in a row; verify throwing errors', async () => {
    const requests = [
      hostile('json', post({ 'Content-Type': JSON_TYPE }, json)),
      hostile('form', post({ 'Content-Type': FORM_TYPE }, 'a[b]=1')),
      hostile('text', post({ 'Content-Type': 'text/plain' }, 'x')),
      hostile('bad json', post({ 'Content-Type': JSON_TYPE }, '{x')),
    ];
    const preset =
      (parser: Parser): Parser =>
      (req, res, next) => {
        Object.assign(req, { _body: true, body: 'already' });
        parser(req, res, next);
      };
    const inRow =
      (first: Parser, second: Parser): Parser =>
      (req, res, next) =>
        first(req, res, (err) => (err ? next(err) : second(req, res, next)));
    await sameOnBoth((m) => preset(m.json()), requests);
    await sameOnBoth((m) => inRow(m.json(), m.urlencoded({ extended: true })), requests);
    await sameOnBoth((m) => inRow(m.text({ type: '*/*' }), m.json({ type: '*/*' })), requests);
    const thrown = [
      () => Object.assign(new Error('status string'), { status: '404' }),
      () => Object.assign(new Error('status 600'), { status: 600 }),
      () => Object.assign(new Error('status 399'), { status: 399 }),
      () => Object.assign(new Error('exposed 500'), { status: 500, expose: true }),
      () => Object.assign(new Error('own body'), { type: 'x.y', body: 'mine' }),
      () => ({ status: 404, message: 'plain object' }),
      () => ({}),
    ];
    for (const make of thrown) {
      await sameOnBoth(
        (m) =>
          m.json({
            verify: () => {
              throw make();
            },
          }),
        requests.slice(0, 1),
        post({ 'Content-Type': 'text/plain' }, 'passed over'),
      );
    }
  });
});

describe('hostile requests webapp/body-parser answers differently, on purpose', () => {
  /** What verify or the reviver throws, by the request's X-Throw header. */
  const throwables: Record<string, () => unknown> = {
    undefined: () => undefined,
    null: () => null,
    number: () => 42,
    boolean: () => false,
    symbol: () => Symbol('thrown'),
    frozen: () => Object.freeze(new TypeError('frozen')),
    sealed: () => Object.seal(new Error('sealed')),
    'frozen with a status': () => Object.freeze(Object.assign(new Error('no entry'), { status: 401 })),
    'read-only type': () => Object.defineProperty(new Error('read-only'), 'type', { value: 'own.type' }),
    'read-only status': () => Object.defineProperty(new Error('read-only'), 'status', { value: 404 }),
    'throwing getter': () =>
      Object.defineProperty(new Error('getter'), 'status', {
        get() {
          throw new Error('from a getter');
        },
      }),
    proxy: () =>
      new Proxy(new Error('proxied'), {
        get(target, key) {
          if (key === 'type') throw new Error('from a trap');
          return Reflect.get(target, key);
        },
      }),
  };
  const thrownBy = (req: http.IncomingMessage) => throwables[String(req.headers['x-throw'])]?.();
  let subject: Subject;
  before(async () => {
    subject = new Subject((req, res, next) => {
      const parser =
        req.headers['x-in'] === 'reviver'
          ? ours.json({
              reviver: (key: string, value: unknown) => {
                if (key === 'a') throw thrownBy(req);
                return value;
              },
            })
          : ours.json({
              verify: (req) => {
                throw thrownBy(req);
              },
            });
      parser(req, res, next);
    });
    await subject.start();
  });
  after(() => subject.stop());

  const answerTo = async (thrown: string, place: string) => {
    const headers = { 'Content-Type': JSON_TYPE, 'X-Throw': thrown, 'X-In': place };
    const { answer } = await subject.send(hostile(thrown, post(headers, '{"a":1}')));
    return { status: answer?.status, error: JSON.parse(answer?.body ?? '{}') };
  };

  // body-parser 1.20 reads `err.type` of what verify threw and hands a primitive to
  // http-errors, which refuses it; it decorates a frozen or sealed error, or one with a
  // read-only field, in place, and reads fields through getters and traps: each of these
  // throws out of the request's 'end' listener and ends the process. One request must
  // not stop the server for every other client: webapp passes an error on instead.
  it('verify throwing a primitive: 403 entity.verify.failed, and the server keeps serving', async () => {
    for (const thrown of ['undefined', 'null', 'number', 'boolean', 'symbol']) {
      const { status, error } = await answerTo(thrown, 'verify');
      assert.equal(status, 403, thrown);
      assert.equal(error.type, 'entity.verify.failed', thrown);
      assert.equal(error.message, 'Forbidden', thrown);
      assert.equal(error.expose, true, thrown);
    }
  });

  it('verify or a reviver throwing an error that cannot take the fields: a new error of what is readable', async () => {
    const expected: Record<string, [number, string, string]> = {
      frozen: [403, 'frozen', 'entity.verify.failed'],
      sealed: [403, 'sealed', 'entity.verify.failed'],
      'frozen with a status': [401, 'no entry', 'entity.verify.failed'],
      'read-only type': [403, 'read-only', 'own.type'],
      'read-only status': [404, 'read-only', 'entity.verify.failed'],
      'throwing getter': [403, 'Forbidden', 'entity.verify.failed'],
      proxy: [403, 'proxied', 'entity.verify.failed'],
    };
    for (const [thrown, [status, message, type]] of Object.entries(expected)) {
      const { status: actual, error } = await answerTo(thrown, 'verify');
      assert.deepEqual([actual, error.message, error.type, error.expose], [status, message, type, true], thrown);
      assert.equal(error.body, 'Buffer 7b2261223a317d', thrown);
    }
    // A reviver's error keeps only its message (json.ts): those it cannot strip are replaced.
    for (const thrown of ['sealed', 'proxy']) {
      const { status, error } = await answerTo(thrown, 'reviver');
      assert.deepEqual(
        [status, error.message, error.type],
        [400, thrown === 'proxy' ? 'proxied' : 'sealed', 'entity.parse.failed'],
      );
    }
    const { answer } = await subject.send(
      hostile('healthy', post({ 'Content-Type': JSON_TYPE, 'X-In': 'reviver' }, '{"ok":1}')),
    );
    assert.equal(answer?.status, 200);
    assert.equal(JSON.parse(answer!.body).body, '{ ok: 1 }');
  });
});
