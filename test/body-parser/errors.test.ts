/**
 * Every error body-parser 1.20 documents (src/body-parser/errors.ts), the inputs clients send in pieces or abort,
 * and the connection staying usable afterwards.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import { describe, it } from 'node:test';
import bodyParser = require('../../src/body-parser/index');
import webapp = require('../../src/index');
import { sharedParserServer, type Parser } from './support';

process.env.NO_DEPRECATION = 'body-parser,webapp';

const shared = sharedParserServer(bodyParser.json());

/** Writes raw bytes on one keep-alive socket; resolves with every response text seen before it ends. */
function rawExchange(chunks: Array<string | Buffer>, { end = true, waitMs = 0 } = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(shared.port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (text += d));
    socket.on('close', () => resolve(text));
    socket.on('error', () => resolve(text));
    (async () => {
      for (const chunk of chunks) {
        socket.write(chunk);
        await new Promise((r) => setImmediate(r));
      }
      if (waitMs) await new Promise((r) => setTimeout(r, waitMs));
      if (end) socket.end();
      else socket.destroy();
    })();
  });
}

/** Puts `parse` on the shared server and resolves with the error it passes to `next`. */
function errorPassedOn(parse: typeof shared.parser): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    shared.parser = (req, res, next) =>
      parse(req, res, (err?: unknown) => {
        resolve(err as Record<string, unknown>);
        next(err);
      });
  });
}

// `any`: the parsed JSON error body, whose fields each test reads.
function json(status: number, body: any) {
  return { status, body };
}

async function send(headers: Record<string, string>, body: string | Buffer) {
  const res = await fetch(`http://127.0.0.1:${shared.port}/`, { method: 'POST', headers, body });
  return json(res.status, await res.json());
}

/**
 * What `text()` passes to next for a stream made to look like a request (a text/plain
 * body of 10 announced bytes, `complete` as given) that `feed` writes to.
 */
async function textFromStream(
  complete: boolean,
  feed: (fake: import('node:stream').PassThrough) => void,
): Promise<Record<string, unknown>> {
  const { PassThrough } = await import('node:stream');
  const fake = Object.assign(new PassThrough(), {
    headers: { 'content-type': 'text/plain', 'content-length': '10' },
    complete,
  });
  return new Promise((resolve) => {
    bodyParser.text()(fake as never, {} as never, (err?: unknown) => resolve(err as Record<string, unknown>));
    feed(fake);
  });
}

describe('body-parser errors', () => {
  it('entity.too.large (413) before reading when Content-Length is over the limit, with limit and length', async () => {
    shared.parser = bodyParser.json({ limit: 10 });
    const res = await send({ 'Content-Type': 'application/json' }, '{"aaaaaaaaaaaaaaa":1}');
    assert.equal(res.status, 413);
    assert.equal(res.body.type, 'entity.too.large');
    assert.equal(res.body.limit, 10);
    assert.equal(res.body.length, 21);
    assert.equal(res.body.expose, true);
  });

  it('a gzip bomb stops at the limit (measured after inflation)', async () => {
    shared.parser = bodyParser.json({ limit: '100kb' });
    const bomb = zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    assert.ok(bomb.length < 100 * 1024);
    const res = await send({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, bomb);
    assert.equal(res.status, 413);
    assert.equal(res.body.type, 'entity.too.large');
  });

  it('brotli bodies are inflated (beyond body-parser 1.20)', async () => {
    shared.parser = bodyParser.json();
    const res = await send(
      { 'Content-Type': 'application/json', 'Content-Encoding': 'br' },
      zlib.brotliCompressSync('{"br":true}'),
    );
    assert.deepEqual(res, json(200, { body: { br: true }, proto: null }));
  });

  it('encoding.unsupported (415) and charset.unsupported (415) with their properties', async () => {
    shared.parser = bodyParser.json({ inflate: false });
    let res = await send({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, zlib.gzipSync('{}'));
    assert.equal(res.status, 415);
    assert.equal(res.body.type, 'encoding.unsupported');
    assert.equal(res.body.encoding, 'gzip');
    shared.parser = bodyParser.text();
    res = await send({ 'Content-Type': 'text/plain; charset=klingon' }, 'x');
    assert.equal(res.status, 415);
    assert.equal(res.body.type, 'charset.unsupported');
    assert.equal(res.body.charset, 'klingon');
    assert.match(res.body.error, /unsupported charset "KLINGON"/);
  });

  it('entity.parse.failed (400) carries the body; parameters.too.many (413)', async () => {
    shared.parser = bodyParser.json();
    let res = await send({ 'Content-Type': 'application/json' }, '{oops');
    assert.equal(res.status, 400);
    assert.equal(res.body.type, 'entity.parse.failed');
    assert.equal(res.body.hasBody, true);
    shared.parser = bodyParser.urlencoded({ extended: false, parameterLimit: 3 });
    res = await send({ 'Content-Type': 'application/x-www-form-urlencoded' }, 'a=1&b=2&c=3&d=4');
    assert.equal(res.status, 413);
    assert.equal(res.body.type, 'parameters.too.many');
  });

  it('request.size.invalid (400) when a stream ends with fewer bytes than its Content-Length', async () => {
    const error = await textFromStream(true, (fake) => fake.end('abcd'));
    assert.equal(error.status, 400);
    assert.equal(error.type, 'request.size.invalid');
    assert.equal(error.expected, 10);
    assert.equal(error.received, 4);
  });

  it("request.aborted when a stream other than Node's request closes before its end", async () => {
    // Node's request emits `aborted` before it closes early, and the reader listens to
    // that alone; a stream that only closes (HTTP/2's request, a look-alike) is listened to for `close`.
    const error = await textFromStream(false, (fake) => fake.write('abcd', () => fake.destroy()));
    assert.equal(error.status, 400);
    assert.equal(error.type, 'request.aborted');
    assert.equal(error.expected, 10);
    assert.equal(error.received, 4);
  });

  it('a compressed body on a request look-alike that closes after its end parses as body-parser does', async () => {
    // The look-alike closes right after its end (autoDestroy), before the inflating
    // stream has given the body's end: a close after the end is no abort.
    const { PassThrough, Readable } = await import('node:stream');
    const theirs = require('body-parser');
    const outcome = (
      parser: Parser,
      makeStream: (body: Buffer) => import('node:stream').Readable,
      encoding: string,
      body: Buffer,
    ) =>
      new Promise<unknown>((resolve) => {
        const fake = Object.assign(makeStream(body), {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': String(body.length),
            'content-encoding': encoding,
          },
        });
        parser(fake as never, {} as never, (err?: unknown) => {
          const e = err as Record<string, unknown> | undefined;
          resolve(e ? { status: e.status, type: e.type, message: e.message } : (fake as { body?: unknown }).body);
        });
      });
    const streams = {
      'a PassThrough ended later': (body: Buffer) => {
        const stream = new PassThrough();
        setImmediate(() => stream.end(body));
        return stream;
      },
      'Readable.from': (body: Buffer) => Readable.from([body]),
    };
    const cases: Array<[string, Buffer]> = [
      ['gzip', zlib.gzipSync('{"a":1}')],
      ['deflate', zlib.deflateSync('{"d":[1,2]}')],
      ['gzip', Buffer.from('not gzip at all')],
      ['gzip', zlib.gzipSync('{"cut":"short"}').subarray(0, 12)],
    ];
    for (const [label, makeStream] of Object.entries(streams)) {
      for (const [encoding, body] of cases) {
        const expected = await outcome(theirs.json(), makeStream, encoding, body);
        const actual = await outcome(bodyParser.json(), makeStream, encoding, body);
        assert.deepEqual(actual, expected, `${label}, ${encoding}, ${body.length} bytes`);
      }
    }
    // The parsed cases did parse (the comparison alone would pass if both refused them).
    assert.deepEqual(await outcome(bodyParser.json(), streams['Readable.from'], 'gzip', cases[0][1]), { a: 1 });
    // Brotli, which body-parser 1.20 refuses: the same close after the end.
    assert.deepEqual(
      await outcome(bodyParser.json(), streams['a PassThrough ended later'], 'br', zlib.brotliCompressSync('{"b":2}')),
      { b: 2 },
    );
  });

  it('a request look-alike that gives strings parses as body-parser parses it', async () => {
    // `Readable.from(['{"name":"ada"}'])` yields strings (tests of middleware in
    // isolation build requests so): one string was a 400, two crashed the process.
    const { Readable } = await import('node:stream');
    const theirs = require('body-parser');
    const outcome = (parser: Parser, type: string, pieces: string[]) =>
      new Promise<unknown>((resolve) => {
        const length = pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0);
        const fake = Object.assign(Readable.from(pieces), {
          method: 'POST',
          headers: { 'content-type': type, 'content-length': String(length) },
        });
        parser(fake as never, {} as never, (err?: unknown) => {
          const e = err as Record<string, unknown> | undefined;
          resolve(e ? { status: e.status, type: e.type } : (fake as { body?: unknown }).body);
        });
      });
    const cases: Array<[string, string, string[]]> = [
      ['json', 'application/json', ['{"name":"ada"}']],
      ['json', 'application/json', ['{"name":', '"ada"}']],
      ['json', 'application/json', ['{"name":', '"ada"']],
      ['urlencoded', 'application/x-www-form-urlencoded', ['a=1&b=', 'caf%C3%A9']],
      ['text', 'text/plain', ['one ', 'two ', 'three']],
    ];
    for (const [kind, type, pieces] of cases) {
      const options = kind === 'urlencoded' ? { extended: false } : {};
      const ours = bodyParser[kind as keyof typeof bodyParser] as (options: object) => Parser;
      const expected = await outcome(theirs[kind](options), type, pieces);
      assert.deepEqual(await outcome(ours(options), type, pieces), expected, pieces.join('|'));
    }
    assert.deepEqual(await outcome(bodyParser.json(), 'application/json', ['{"name":', '"ada"}']), { name: 'ada' });
    // Beyond ASCII, body-parser counts a string's characters against the Content-Length's
    // bytes (a 400 request.size.invalid); webapp counts the bytes it decodes.
    assert.deepEqual(await outcome(bodyParser.json(), 'application/json', ['{"name":', '"José"}']), { name: 'José' });
    assert.equal(await outcome(bodyParser.text(), 'text/plain', ['one ', 'two €']), 'one two €');
    // body-parser's raw parser throws on strings (Buffer.concat): the bytes, here.
    const raw = await outcome(bodyParser.raw(), 'application/octet-stream', ['ab', 'cé']);
    assert.ok(Buffer.isBuffer(raw));
    assert.equal(raw.toString(), 'abcé');
  });

  it('request.aborted: the server stays healthy after a client aborts mid-upload', async () => {
    shared.parser = bodyParser.json();
    await rawExchange(
      ['POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n', '{"a":'],
      { end: false },
    );
    const res = await send({ 'Content-Type': 'application/json' }, '{"after":"abort"}');
    assert.deepEqual(res, json(200, { body: { after: 'abort' }, proto: null }));
  });

  it('request.aborted reaches next with received/expected, after the client destroys its socket mid-body', async () => {
    const seen = errorPassedOn(bodyParser.text());
    const head = 'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 5000\r\n\r\n';
    await rawExchange([head, 'x'.repeat(100), 'y'.repeat(100)], { end: false });
    const error = await seen;
    assert.equal(error.status, 400);
    assert.equal(error.type, 'request.aborted');
    assert.equal(error.code, 'ECONNABORTED');
    assert.equal(error.expected, 5000);
    assert.equal(error.length, 5000);
    assert.equal(error.received, 200);
    shared.parser = bodyParser.text();
    assert.deepEqual(
      await send({ 'Content-Type': 'text/plain' }, 'healthy'),
      json(200, { body: 'healthy', proto: null }),
    );
  });

  // body-parser 1.20 never calls next here: it listens for `aborted` on the decompressor.
  it('request.aborted reaches next for a gzip body whose client goes away mid-upload', async () => {
    const seen = errorPassedOn(bodyParser.json());
    const gz = zlib.gzipSync(JSON.stringify({ big: 'z'.repeat(10000) }));
    const head =
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `Content-Encoding: gzip\r\nContent-Length: ${gz.length}\r\n\r\n`;
    await rawExchange([head, gz.subarray(0, 20)], { end: false });
    const error = await seen;
    assert.equal(error.status, 400);
    assert.equal(error.type, 'request.aborted');
    assert.equal(error.code, 'ECONNABORTED');
  });

  it('an aborted gzip upload and an aborted chunked upload leave the server healthy', async () => {
    shared.parser = bodyParser.json();
    const gz = zlib.gzipSync(JSON.stringify({ big: 'z'.repeat(10000) }));
    await rawExchange(
      [
        'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          `Content-Encoding: gzip\r\nContent-Length: ${gz.length}\r\n\r\n`,
        gz.subarray(0, 20),
      ],
      { end: false },
    );
    await rawExchange(
      [
        'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        '5\r\n{"a":\r\n',
      ],
      { end: false },
    );
    assert.deepEqual(
      await send({ 'Content-Type': 'application/json' }, '{"still":"up"}'),
      json(200, { body: { still: 'up' }, proto: null }),
    );
  });

  it('stream.encoding.set (500) and stream.not.readable (500)', async () => {
    shared.parser = (req, res, next) => {
      req.setEncoding('utf8');
      bodyParser.text()(req, res, next);
    };
    let res = await send({ 'Content-Type': 'text/plain' }, 'x');
    assert.equal(res.status, 500);
    assert.equal(res.body.type, 'stream.encoding.set');
    shared.parser = (req, res, next) => {
      req.resume();
      req.on('end', () => bodyParser.text()(req, res, next));
    };
    res = await send({ 'Content-Type': 'text/plain' }, 'x');
    assert.equal(res.status, 500);
    assert.equal(res.body.type, 'stream.not.readable');
  });

  it('multi-byte characters split across chunks decode whole; the next request on the connection works', async () => {
    shared.parser = bodyParser.text();
    const bytes = Buffer.from('€uro ünïcode', 'utf8');
    const head = `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${bytes.length}\r\n\r\n`;
    const pieces: Buffer[] = [];
    for (let i = 0; i < bytes.length; i++) pieces.push(bytes.subarray(i, i + 1));
    const bad = 'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain; charset=nope\r\nContent-Length: 1\r\n\r\nx';
    const again =
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok';
    const text = await rawExchange([head, ...pieces, bad, again]);
    assert.ok(text.includes(JSON.stringify({ body: '€uro ünïcode', proto: null })), text);
    assert.match(text, /HTTP\/1.1 415/);
    assert.match(text, /"body":"ok"/);
  });
});

describe('stream errors keep the connection usable', () => {
  it('stream.encoding.set and stream.not.readable answers, then a working request on the socket', async () => {
    for (const [prepare, type] of [
      [(req: http.IncomingMessage, run: () => void) => (req.setEncoding('utf8'), run()), 'stream.encoding.set'],
      [(req: http.IncomingMessage, run: () => void) => (req.resume(), req.on('end', run)), 'stream.not.readable'],
    ] as const) {
      const parse = bodyParser.text();
      shared.parser = (req, res, next) =>
        req.headers['x-prepare'] ? prepare(req, () => parse(req, res, next)) : parse(req, res, next);
      const text = await rawExchange([
        'POST / HTTP/1.1\r\nHost: x\r\nX-Prepare: 1\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nabc',
        'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n\r\nnext',
      ]);
      assert.match(text, /^HTTP\/1.1 500/);
      assert.ok(text.includes(`"type":"${type}"`), text);
      assert.ok(text.includes('{"body":"next","proto":null}'), text);
    }
  });
});

describe('deprecations', () => {
  it("bodyParser() and urlencoded() without extended warn with body-parser's wording", () => {
    const previous = process.env.NO_DEPRECATION;
    process.env.NO_DEPRECATION = '';
    const writes: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => (writes.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      bodyParser();
      bodyParser.urlencoded();
    } finally {
      process.stderr.write = write;
      process.env.NO_DEPRECATION = previous;
    }
    const text = writes.join('');
    assert.match(text, /body-parser deprecated bodyParser: use individual json\/urlencoded middlewares at /);
    assert.match(text, /body-parser deprecated undefined extended: provide extended option at /);
  });
});

describe('module shape', () => {
  it('webapp.json/raw/text/urlencoded call the standalone parsers, with their names and arity 1', () => {
    for (const name of ['json', 'raw', 'text', 'urlencoded'] as const) {
      assert.equal(webapp[name].name, bodyParser[name].name, name);
      assert.equal(webapp[name].length, 1, name);
      assert.equal(bodyParser[name].length, 1, name);
      // The same parser: the middleware each makes has the parser's name.
      assert.equal(webapp[name]().name, bodyParser[name]().name, name);
    }
  });

  it('json/raw/text/urlencoded are enumerable (the ESM wrapper re-exports them); the module is a function', () => {
    assert.equal(typeof bodyParser, 'function');
    for (const name of ['json', 'raw', 'text', 'urlencoded']) {
      assert.ok(Object.keys(bodyParser).includes(name), name);
      assert.equal(Object.getOwnPropertyDescriptor(bodyParser, name)?.enumerable, true);
    }

    const theirs = require('body-parser');
    for (const name of ['json', 'raw', 'text', 'urlencoded'] as const)
      assert.equal(bodyParser[name].length, theirs[name].length, name);
    assert.equal(bodyParser.length, theirs.length);
  });

  it('the deprecated combined bodyParser() parses json and urlencoded', async () => {
    shared.parser = bodyParser() as Parser;
    assert.deepEqual(
      await send({ 'Content-Type': 'application/json' }, '{"j":1}'),
      json(200, { body: { j: 1 }, proto: null }),
    );
    assert.deepEqual(
      await send({ 'Content-Type': 'application/x-www-form-urlencoded' }, 'u=2'),
      json(200, { body: { u: '2' }, proto: null }),
    );
  });

  it('leaves req.body alone when another parser already ran, and GET without body skips', async () => {
    const app = webapp();
    app.use(webapp.text({ type: '*/*' }));
    app.use(webapp.json({ type: '*/*' }));
    app.post('/', (req: http.IncomingMessage & { body?: unknown }, res: http.ServerResponse) =>
      res.end(JSON.stringify(req.body)),
    );
    app.get('/', (req: http.IncomingMessage & { body?: unknown }, res: http.ServerResponse) =>
      res.end(JSON.stringify(req.body)),
    );
    const request = (await import('supertest')).default;
    await request(app).post('/').set('Content-Type', 'application/json').send('{"a":1}').expect(200, '"{\\"a\\":1}"');
    await request(app).get('/').expect(200, '{}');
  });
});
