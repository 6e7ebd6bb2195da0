/**
 * Every option value of the four parsers, through a bare server, each followed by
 * a second request on the same keep-alive connection.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import zlib from 'node:zlib';
import { describe, it } from 'node:test';
import bodyParser = require('../../src/body-parser/index');
import { chunked, exchange, request, split, type Answer, type Pieces } from './connection';
import { sharedParserServer, type Parser } from './support';

process.env.NO_DEPRECATION = 'body-parser,webapp';

const shared = sharedParserServer(bodyParser.json());

const FOLLOW_UP: Pieces = ['GET / HTTP/1.1\r\nHost: localhost\r\n\r\n'];

/** The parser's answer to `pieces`; asserts the connection then serves a plain GET. */
async function answer(parser: Parser, pieces: Pieces): Promise<Answer> {
  shared.parser = parser;
  const [first, second] = await exchange(shared.port, [pieces, FOLLOW_UP]);
  assert.deepEqual(second, { status: 200, body: { body: {}, proto: null } }, 'next request on the same connection');
  return first;
}

const ok = (body: unknown) => ({ status: 200, body: { body, proto: null } });
const JSON_TYPE = { 'Content-Type': 'application/json' };

describe('json options', () => {
  it('strict (default true) rejects non-object tops: 400 entity.parse.failed; strict:false accepts them', async () => {
    const bad = await answer(bodyParser.json(), request(JSON_TYPE, ' "str"'));
    assert.equal(bad.status, 400);
    assert.equal(bad.body.type, 'entity.parse.failed');
    assert.match(String(bad.body.error), /"str"|Unexpected token/);
    assert.deepEqual(await answer(bodyParser.json({ strict: true }), request(JSON_TYPE, '[1]')), ok([1]));
    assert.deepEqual(await answer(bodyParser.json({ strict: false }), request(JSON_TYPE, '"str"')), ok('str'));
    assert.deepEqual(await answer(bodyParser.json({ strict: false }), request(JSON_TYPE, 'null')), ok(null));
  });

  it('reviver is passed to JSON.parse', async () => {
    const reviver = (_key: string, value: unknown) => (typeof value === 'number' ? value * 2 : value);
    assert.deepEqual(
      await answer(bodyParser.json({ reviver }), request(JSON_TYPE, '{"a":1,"b":[2]}')),
      ok({ a: 2, b: [4] }),
    );
  });

  it('type: default, string, extension, wildcard, +suffix, array, function', async () => {
    const body = '{"t":1}';
    assert.deepEqual(
      await answer(bodyParser.json(), request({ 'Content-Type': 'application/json; charset=utf-8' }, body)),
      ok({ t: 1 }),
    );
    assert.deepEqual(await answer(bodyParser.json(), request({ 'Content-Type': 'text/plain' }, body)), ok({}));
    assert.deepEqual(
      await answer(bodyParser.json({ type: 'text/plain' }), request({ 'Content-Type': 'text/plain' }, body)),
      ok({ t: 1 }),
    );
    assert.deepEqual(await answer(bodyParser.json({ type: 'json' }), request(JSON_TYPE, body)), ok({ t: 1 }));
    assert.deepEqual(
      await answer(bodyParser.json({ type: '*/*' }), request({ 'Content-Type': 'x/y' }, body)),
      ok({ t: 1 }),
    );
    assert.deepEqual(
      await answer(bodyParser.json({ type: '+json' }), request({ 'Content-Type': 'application/ld+json' }, body)),
      ok({ t: 1 }),
    );
    assert.deepEqual(
      await answer(bodyParser.json({ type: ['a/b', 'c/d'] }), request({ 'Content-Type': 'c/d' }, body)),
      ok({ t: 1 }),
    );
    const seen: string[] = [];
    const type = (req: http.IncomingMessage) => (
      seen.push(String(req.headers['x-parse'])),
      req.headers['x-parse'] === 'yes'
    );
    assert.deepEqual(await answer(bodyParser.json({ type }), request({ 'X-Parse': 'yes' }, body)), ok({ t: 1 }));
    assert.deepEqual(await answer(bodyParser.json({ type }), request({ 'X-Parse': 'no' }, body)), ok({}));
    assert.deepEqual(seen, ['yes', 'no']);
  });

  it('charsets: utf-8 default, utf-16le, unsupported non-utf charsets are 415 charset.unsupported', async () => {
    const utf16 = Buffer.from('{"ü":"€"}', 'utf16le');
    assert.deepEqual(
      await answer(bodyParser.json(), request({ 'Content-Type': 'application/json; charset=utf-16le' }, utf16)),
      ok({ ü: '€' }),
    );
    const latin = await answer(
      bodyParser.json(),
      request({ 'Content-Type': 'application/json; charset=iso-8859-1' }, '{}'),
    );
    assert.equal(latin.status, 415);
    assert.equal(latin.body.type, 'charset.unsupported');
    assert.equal(latin.body.charset, 'iso-8859-1');
    assert.equal(latin.body.error, 'unsupported charset "ISO-8859-1"');
  });

  it('prototype keys stay own data and never reach Object.prototype', async () => {
    const res = await answer(
      bodyParser.json(),
      request(JSON_TYPE, '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}'),
    );
    assert.equal(res.status, 200);
    assert.equal(res.body.proto, null);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('common options', () => {
  const payload = JSON.stringify({ data: 'x'.repeat(3000) });

  it('limit: default 100kb, a number, a string; over it: 413 entity.too.large, limit and length/received', async () => {
    const big = JSON.stringify({ data: 'x'.repeat(102400) });
    let res = await answer(bodyParser.json(), request(JSON_TYPE, big));
    assert.equal(res.status, 413);
    assert.equal(res.body.limit, 102400);
    assert.equal(res.body.length, big.length);
    res = await answer(bodyParser.json({ limit: 5000 }), request(JSON_TYPE, payload));
    assert.equal(res.status, 200);
    res = await answer(bodyParser.json({ limit: '2kb' }), request(JSON_TYPE, payload));
    assert.equal(res.status, 413);
    assert.equal(res.body.limit, 2048);
    res = await answer(bodyParser.json({ limit: 2048 }), chunked(JSON_TYPE, payload, 500));
    assert.equal(res.status, 413);
    assert.equal(res.body.type, 'entity.too.large');
    assert.equal(res.body.received, 2500);
  });

  it('limit: NaN, unparseable strings and non-sizes throw when the middleware is made', () => {
    for (const limit of [NaN, 'abc', '', {}, true]) {
      for (const factory of [bodyParser.json, bodyParser.raw, bodyParser.text, bodyParser.urlencoded]) {
        assert.throws(() => factory({ limit: limit as never, extended: true } as never), TypeError, String(limit));
      }
    }
  });

  it('limit applies to inflated bytes: gzip, deflate and brotli bombs stop at the limit', async () => {
    const zeros = Buffer.alloc(20 * 1024 * 1024, 0x20);
    for (const [encoding, bomb] of [
      ['gzip', zlib.gzipSync(zeros)],
      ['deflate', zlib.deflateSync(zeros)],
      ['br', zlib.brotliCompressSync(zeros)],
    ] as const) {
      assert.ok(bomb.length < 1024 * 1024);
      const res = await answer(
        bodyParser.json({ limit: '1mb' }),
        request({ ...JSON_TYPE, 'Content-Encoding': encoding }, bomb),
      );
      assert.equal(res.status, 413, encoding);
      assert.equal(res.body.type, 'entity.too.large');
      assert.equal(res.body.limit, 1048576);
    }
  });

  it('inflate (default true): gzip, deflate, br, identity, case-insensitive names; corrupt data is 400', async () => {
    const body = '{"zipped":"ünï"}';
    for (const [encoding, bytes] of [
      ['gzip', zlib.gzipSync(body)],
      ['deflate', zlib.deflateSync(body)],
      ['br', zlib.brotliCompressSync(body)],
      ['identity', Buffer.from(body)],
      ['GZip', zlib.gzipSync(body)],
    ] as const) {
      assert.deepEqual(
        await answer(
          bodyParser.json({ inflate: true }),
          split(request({ ...JSON_TYPE, 'Content-Encoding': encoding }, bytes), 3),
        ),
        ok({ zipped: 'ünï' }),
        encoding,
      );
    }
    const corrupt = await answer(
      bodyParser.json(),
      request({ ...JSON_TYPE, 'Content-Encoding': 'gzip' }, 'definitely not gzip'),
    );
    assert.equal(corrupt.status, 400);
    const unknown = await answer(bodyParser.json(), request({ ...JSON_TYPE, 'Content-Encoding': 'compress' }, body));
    assert.equal(unknown.status, 415);
    assert.equal(unknown.body.type, 'encoding.unsupported');
    assert.equal(unknown.body.error, 'unsupported content encoding "compress"');
  });

  it('inflate:false refuses any Content-Encoding but identity with 415 encoding.unsupported', async () => {
    const res = await answer(
      bodyParser.raw({ inflate: false }),
      request({ 'Content-Type': 'application/octet-stream', 'Content-Encoding': 'deflate' }, zlib.deflateSync('x')),
    );
    assert.equal(res.status, 415);
    assert.equal(res.body.type, 'encoding.unsupported');
    assert.equal(res.body.encoding, 'deflate');
    assert.equal(res.body.error, 'content encoding unsupported');
    assert.deepEqual(
      await answer(
        bodyParser.raw({ inflate: false }),
        request({ 'Content-Type': 'application/octet-stream', 'Content-Encoding': 'identity' }, 'x'),
      ),
      ok({ buffer: '78' }),
    );
  });

  it("verify(req, res, buf, encoding): a throw is 403 entity.verify.failed or the error's status/type", async () => {
    const calls: unknown[][] = [];
    const verify = (req: http.IncomingMessage, res: http.ServerResponse, buf: Buffer, encoding: string | null) => {
      calls.push([req instanceof http.IncomingMessage, res instanceof http.ServerResponse, buf.toString(), encoding]);
      if (buf.includes('reject')) throw new Error('rejected');
      if (buf.includes('teapot')) throw Object.assign(new Error('short and stout'), { status: 418, type: 'tea.pot' });
    };
    assert.deepEqual(await answer(bodyParser.json({ verify }), request(JSON_TYPE, '{"fine":1}')), ok({ fine: 1 }));
    let res = await answer(bodyParser.json({ verify }), request(JSON_TYPE, '{"reject":1}'));
    assert.equal(res.status, 403);
    assert.equal(res.body.type, 'entity.verify.failed');
    assert.equal(res.body.error, 'rejected');
    assert.equal(res.body.hasBody, true);
    res = await answer(bodyParser.text({ verify }), request({ 'Content-Type': 'text/plain' }, 'teapot'));
    assert.equal(res.status, 418);
    assert.equal(res.body.type, 'tea.pot');
    await answer(bodyParser.raw({ verify }), request({ 'Content-Type': 'application/octet-stream' }, 'raw'));
    assert.deepEqual(calls, [
      [true, true, '{"fine":1}', 'utf-8'],
      [true, true, '{"reject":1}', 'utf-8'],
      [true, true, 'teapot', 'utf-8'],
      [true, true, 'raw', null],
    ]);
    assert.throws(() => bodyParser.json({ verify: 'no' as never }), /option verify must be function/);
  });
});

describe('raw, text and urlencoded options', () => {
  it('raw: a Buffer of the body, default type application/octet-stream, any type by option', async () => {
    const bytes = Buffer.from([0, 255, 10, 13, 128]);
    assert.deepEqual(
      await answer(bodyParser.raw(), request({ 'Content-Type': 'application/octet-stream' }, bytes)),
      ok({ buffer: '00ff0a0d80' }),
    );
    assert.deepEqual(await answer(bodyParser.raw(), request({ 'Content-Type': 'image/png' }, bytes)), ok({}));
    assert.deepEqual(
      await answer(bodyParser.raw({ type: 'image/*' }), split(request({ 'Content-Type': 'image/png' }, bytes), 1)),
      ok({ buffer: '00ff0a0d80' }),
    );
    assert.deepEqual(
      await answer(bodyParser.raw(), request({ 'Content-Type': 'application/octet-stream' }, '')),
      ok({ buffer: '' }),
    );
  });

  it('text: defaultCharset if none is given, else the Content-Type charset; multi-byte split in chunks', async () => {
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9]);
    assert.deepEqual(
      await answer(
        bodyParser.text({ defaultCharset: 'iso-8859-1' }),
        request({ 'Content-Type': 'text/plain' }, latin1),
      ),
      ok('café'),
    );
    assert.deepEqual(
      await answer(bodyParser.text(), request({ 'Content-Type': 'text/plain; charset=iso-8859-1' }, latin1)),
      ok('café'),
    );
    const mixed = 'a€b😀c日本';
    assert.deepEqual(await answer(bodyParser.text(), chunked({ 'Content-Type': 'text/plain' }, mixed, 1)), ok(mixed));
    assert.deepEqual(
      await answer(
        bodyParser.text(),
        chunked({ 'Content-Type': 'text/plain; charset=utf-16le' }, Buffer.from(mixed, 'utf16le'), 3),
      ),
      ok(mixed),
    );
    assert.deepEqual(
      await answer(bodyParser.text({ type: 'text/*' }), request({ 'Content-Type': 'text/csv' }, 'a,b')),
      ok('a,b'),
    );
    assert.deepEqual(await answer(bodyParser.text(), request({ 'Content-Type': 'text/plain' }, '')), ok(''));
  });

  it('urlencoded extended: nested objects and arrays; arrays up to the parameter count', async () => {
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    assert.deepEqual(
      await answer(bodyParser.urlencoded({ extended: true }), request(form, 'a[b][c]=1&l[]=x&l[]=y&s=%E2%82%AC+z')),
      ok({ a: { b: { c: '1' } }, l: ['x', 'y'], s: '€ z' }),
    );
    const many = Array.from({ length: 150 }, (_, i) => `a[]=${i}`).join('&');
    const res = await answer(bodyParser.urlencoded({ extended: true }), request(form, many));
    assert.equal((res.body.body as { a: string[] }).a.length, 150);
    assert.deepEqual(
      await answer(bodyParser.urlencoded({ extended: true }), request(form, 'a[150]=x')),
      ok({ a: { 150: 'x' } }),
    );
  });

  it('urlencoded extended:false: flat keys, repeated keys as arrays', async () => {
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    assert.deepEqual(
      await answer(bodyParser.urlencoded({ extended: false }), request(form, 'a[b]=1&c=2&c=3')),
      ok({ 'a[b]': '1', c: ['2', '3'] }),
    );
  });

  it('parameterLimit: the limit is accepted, one more is 413 parameters.too.many; invalid values throw', async () => {
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    for (const extended of [true, false]) {
      assert.equal(
        (await answer(bodyParser.urlencoded({ extended, parameterLimit: 3 }), request(form, 'a=1&b=2&c=3'))).status,
        200,
      );
      const res = await answer(
        bodyParser.urlencoded({ extended, parameterLimit: 3 }),
        request(form, 'a=1&b=2&c=3&d=4'),
      );
      assert.equal(res.status, 413);
      assert.equal(res.body.type, 'parameters.too.many');
      assert.equal(res.body.error, 'too many parameters');
      for (const parameterLimit of [0, -1, NaN])
        assert.throws(() => bodyParser.urlencoded({ extended, parameterLimit }), TypeError);
    }
    assert.equal(
      (
        await answer(
          bodyParser.urlencoded({ extended: true, parameterLimit: Infinity }),
          request(form, 'a=1&'.repeat(2000)),
        )
      ).status,
      200,
    );
  });

  it('depth (default 32): deeper nesting is 400 querystring.parse.rangeError; invalid depths throw', async () => {
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const deep = (n: number) => 'a' + '[x]'.repeat(n) + '=1';
    assert.equal((await answer(bodyParser.urlencoded({ extended: true }), request(form, deep(32)))).status, 200);
    let res = await answer(bodyParser.urlencoded({ extended: true }), request(form, deep(33)));
    assert.equal(res.status, 400);
    assert.equal(res.body.type, 'querystring.parse.rangeError');
    res = await answer(bodyParser.urlencoded({ extended: true, depth: 1 }), request(form, deep(2)));
    assert.equal(res.status, 400);
    assert.deepEqual(
      await answer(bodyParser.urlencoded({ extended: true, depth: 1 }), request(form, deep(1))),
      ok({ a: { x: '1' } }),
    );
    for (const depth of [-1, NaN])
      assert.throws(
        () => bodyParser.urlencoded({ extended: true, depth }),
        /option depth must be a zero or a positive number/,
      );
  });

  it('urlencoded: only utf-8 (else 415 charset.unsupported); prototype keys never reach Object.prototype', async () => {
    const res = await answer(
      bodyParser.urlencoded({ extended: true }),
      request({ 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-16' }, 'a=1'),
    );
    assert.equal(res.status, 415);
    assert.equal(res.body.type, 'charset.unsupported');
    assert.equal(res.body.charset, 'utf-16');
    for (const extended of [true, false]) {
      const polluted = await answer(
        bodyParser.urlencoded({ extended }),
        request(
          { 'Content-Type': 'application/x-www-form-urlencoded' },
          '__proto__[polluted]=1&constructor[prototype][polluted]=1&a[__proto__][polluted]=1&__proto__=x',
        ),
      );
      assert.equal(polluted.status, 200);
      assert.equal(polluted.body.proto, null);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
