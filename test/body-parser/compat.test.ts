/**
 * Differential: the same requests through body-parser@1.20 and webapp/body-parser
 * on bare servers; status and body (parsed value or error fields) must match.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import zlib from 'node:zlib';
import { describe, it } from 'node:test';
import { rawRequest, withServer, type RequestSpec } from '../support/differential';
import ours = require('../../src/body-parser/index');
import { serverFor, type Parser } from './support';

const theirs = require('body-parser');
process.env.NO_DEPRECATION = 'body-parser,webapp';

type Factory = (module: Record<string, (opts?: object) => never>) => never;

async function same(factory: Factory, requests: RequestSpec[]): Promise<void> {
  const expected = await withServer(serverFor(factory(theirs)).listeners('request')[0] as never, async (port) => {
    const out = [];
    for (const r of requests) out.push(await rawRequest(port, r));
    return out;
  });
  await withServer(serverFor(factory(ours as never)).listeners('request')[0] as never, async (port) => {
    for (let i = 0; i < requests.length; i++) {
      const actual = await rawRequest(port, requests[i]);
      const label =
        `${requests[i].method ?? 'POST'} ${JSON.stringify(requests[i].headers)} ` +
        String(requests[i].body).slice(0, 40);
      assert.equal(actual.status, expected[i].status, label + ' status');
      assert.deepEqual(JSON.parse(actual.body), JSON.parse(expected[i].body), label);
    }
  });
}

const post = (type: string | undefined, body: string | Buffer, extra: Record<string, string> = {}): RequestSpec => ({
  method: 'POST',
  path: '/',
  body,
  headers: { ...(type ? { 'Content-Type': type } : {}), 'Content-Length': String(Buffer.byteLength(body)), ...extra },
});

describe('webapp/body-parser compatibility with body-parser@1.20', () => {
  it('names its middleware functions as body-parser does (apps and tools find them by name in the stack)', () => {
    for (const kind of ['json', 'raw', 'text', 'urlencoded'] as const) {
      const options = { extended: true };
      const expected = theirs[kind](options) as (...args: unknown[]) => void;
      const actual = ours[kind](options);
      assert.equal(actual.name, expected.name, kind);
      assert.equal(actual.length, expected.length, kind);
    }
  });

  it('json: objects, arrays, strict violations, reviver-free parsing, bad JSON, empty bodies, charsets', async () => {
    await same(
      (m) => m.json(),
      [
        post('application/json', '{"a":1,"b":[true,null]}'),
        post('application/json', '[1,2]'),
        post('application/json', '"string"'),
        post('application/json', ' \n 12'),
        post('application/json', '{"a":'),
        post('application/json', ''),
        post('application/json', 'nul'),
        post('application/json; charset=utf-8', '{"é":"ü"}'),
        post('application/json; charset=latin1', '{}'),
        post('application/json; charset=utf-16', '{}'),
        post('text/plain', '{"a":1}'),
        post(undefined, '{"a":1}'),
        { method: 'GET', path: '/', headers: { 'Content-Type': 'application/json' } },
        post('application/json', '{"__proto__":{"polluted":true}}'),
        post('application/vnd.api+json', '{"a":1}'),
        post('application/json', '\ufeff{"bom":1}'),
      ],
    );
    await same(
      (m) => m.json({ strict: false }),
      [post('application/json', '"string"'), post('application/json', '12'), post('application/json', 'true')],
    );
    await same(
      (m) => m.json({ type: ['*/json', '+json'] }),
      [post('application/vnd.api+json', '{"a":1}'), post('text/json', '[]')],
    );
    await same((m) => m.json({ type: () => true }), [post('text/plain', '{"any":"type"}')]);
  });

  it('limit: announced and actual sizes, strings and numbers; invalid limits throw', async () => {
    const big = JSON.stringify({ data: 'x'.repeat(2000) });
    await same(
      (m) => m.json({ limit: 1000 }),
      [post('application/json', big), post('application/json', '{"small":1}')],
    );
    await same((m) => m.json({ limit: '1kb' }), [post('application/json', big)]);
    await same(
      (m) => m.text({ limit: 10 }),
      [
        {
          method: 'POST',
          path: '/',
          headers: { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' },
          body: 'x'.repeat(50),
        },
      ],
    );
    for (const limit of ['nonsense', NaN]) {
      assert.throws(() => ours.json({ limit: limit as never }), /option limit .* is invalid/);
    }
  });

  it('content-length mismatch and inflation (gzip, deflate; inflate:false; unknown encodings)', async () => {
    const json = '{"compressed":true}';
    const gz = zlib.gzipSync(json);
    const df = zlib.deflateSync(json);
    await same(
      (m) => m.json(),
      [
        {
          method: 'POST',
          path: '/',
          headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
          body: gz,
        },
        {
          method: 'POST',
          path: '/',
          headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'deflate' },
          body: df,
        },
        {
          method: 'POST',
          path: '/',
          headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'GZIP' },
          body: gz,
        },
        {
          method: 'POST',
          path: '/',
          headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'compress' },
          body: json,
        },
        {
          method: 'POST',
          path: '/',
          headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
          body: 'not gzip',
        },
      ],
    );
    await same(
      (m) => m.json({ inflate: false }),
      [
        {
          method: 'POST',
          path: '/',
          headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
          body: gz,
        },
      ],
    );
  });

  it('raw and text, with default and given charsets', async () => {
    await same(
      (m) => m.raw(),
      [post('application/octet-stream', Buffer.from([0, 1, 2, 255])), post('text/plain', 'x')],
    );
    await same(
      (m) => m.text(),
      [
        post('text/plain', 'héllo'),
        post('text/plain; charset=utf-16le', Buffer.from('hi', 'utf16le')),
        post('text/plain; charset=bogus', 'x'),
        post('text/html', 'x'),
      ],
    );
    await same((m) => m.text({ defaultCharset: 'latin1', type: 'text/*' }), [post('text/html', Buffer.from([0xe9]))]);
    // What body-parser's modules make of a defaultCharset that is no string: `true` is
    // UTF-8, a number a code page (1252 is windows-1252), a String object its text.
    const noCharset = [post('text/plain', Buffer.from([0x80, 0x41, 0xe9])), post('text/plain; charset=utf-8', 'é')];
    for (const defaultCharset of [true, 1252, 28591, new String('latin1')])
      await same((m) => m.text({ defaultCharset: defaultCharset as never }), noCharset);
  });

  it('urlencoded: extended and simple, parameterLimit, depth, charsets, prototype keys', async () => {
    await same(
      (m) => m.urlencoded({ extended: true }),
      [
        post('application/x-www-form-urlencoded', 'a=1&b[c]=2&d[]=3&d[]=4'),
        post('application/x-www-form-urlencoded', ''),
        post('application/x-www-form-urlencoded', '__proto__[polluted]=1&constructor[prototype][polluted]=1'),
        post('application/x-www-form-urlencoded; charset=latin1', 'a=1'),
        post('application/x-www-form-urlencoded', 'a=%E2%82%AC&b=%ZZ+x'),
      ],
    );
    await same((m) => m.urlencoded({ extended: false }), [post('application/x-www-form-urlencoded', 'a=1&a=2&b[c]=3')]);
    await same(
      (m) => m.urlencoded({ extended: true, parameterLimit: 2 }),
      [post('application/x-www-form-urlencoded', 'a=1&b=2&c=3')],
    );
    await same(
      (m) => m.urlencoded({ extended: false, parameterLimit: 2 }),
      [post('application/x-www-form-urlencoded', 'a=1&b=2&c=3')],
    );
    await same(
      (m) => m.urlencoded({ extended: true, depth: 2 }),
      [post('application/x-www-form-urlencoded', 'a[b][c][d]=1')],
    );
    assert.throws(
      () => ours.urlencoded({ extended: true, parameterLimit: 0 }),
      /parameterLimit must be a positive number/,
    );
  });

  it('wide sweep: json bodies, content types and charsets', async () => {
    const bodies = [
      '{}',
      '[]',
      ' {"a":1} ',
      '{"a":1}x',
      '\t\n[1]',
      '{"a":"\\u0000"}',
      'true',
      '1e5',
      '{"a":1,}',
      '{"a" 1}',
      '[',
      '\ufeff[]',
      '   ',
      '\n',
      'x',
      '#',
      'undefined',
      '{"deep":' + '['.repeat(50) + ']'.repeat(50) + '}',
    ];
    const types = [
      'application/json',
      'application/json; charset=UTF-8',
      'application/json;charset=utf-8',
      'APPLICATION/JSON',
      'application/json; charset="utf-8"',
      'application/json; charset=',
      'application/json; foo=bar',
      'application/json;',
      'application/x-json',
      'application/csp-report',
      'application/json; charset=utf-32',
      // What type-is (media-typer 0.3) refuses, so the body stays unread: white space
      // other than spaces around the type, a bare ';', an escape beyond ASCII in quotes.
      'application/json\t; charset=utf-8',
      'application/json\u00a0',
      '\u00a0application/json',
      'application/json;charset=utf-8;',
      'application/json; foo="\\\u00e9"',
      'application/json ; charset=utf-8',
      'application/json; a=b ; c="x\\"y"',
    ];
    const requests: RequestSpec[] = [];
    for (const body of bodies) requests.push(post('application/json', body));
    for (const type of types) requests.push(post(type, '{"t":1}'));
    await same((m) => m.json(), requests);
    await same(
      (m) => m.json({ strict: false }),
      bodies.map((body) => post('application/json', body)),
    );
  });

  it('wide sweep: urlencoded bodies, extended and simple', async () => {
    const bodies = [
      'a=1',
      'a',
      'a=',
      '=1',
      '&&a=1&&',
      'a=1&a=2&a=3',
      'a[]=1&a[]=2',
      'a[0]=x&a[2]=y',
      'a[b]=1&a=2',
      'a.b=1',
      'a[b][c][d]=1',
      'a=%ZZ',
      'a=%E2%82',
      'a+b=c+d',
      'a=1;b=2',
      '%5B%5D=1',
      'a[150]=x',
      Array.from({ length: 120 }, (_, i) => `l[]=${i}`).join('&'),
      'constructor=1',
      'hasOwnProperty=1&a[hasOwnProperty]=2',
      'a[__proto__][b]=1',
      'a' + '[x]'.repeat(33) + '=1',
    ];
    for (const extended of [true, false]) {
      await same(
        (m) => m.urlencoded({ extended }),
        bodies.map((body) => post('application/x-www-form-urlencoded', body)),
      );
    }
  });

  it('bodies in many chunks, chunked transfer, and the combined parser', async () => {
    const chunkedJson: RequestSpec = {
      method: 'POST',
      path: '/',
      headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      body: JSON.stringify({ many: 'é'.repeat(500) }),
    };
    await same((m) => m.json(), [chunkedJson]);
    await same(
      (m) => m.text({ limit: 100 }),
      [{ ...chunkedJson, headers: { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' } }],
    );
    await same(
      (m) => (m as unknown as () => never)(),
      [
        post('application/json', '{"j":1}'),
        post('application/x-www-form-urlencoded', 'a[b]=1'),
        post('text/plain', 'x'),
      ],
    );
    // Any falsy value is no options, as body-parser takes it (an Object.create of '' threw).
    for (const none of ['', false, 0, NaN, null])
      await same(
        (m) => (m as unknown as (options: unknown) => never)(none),
        [post('application/json', '{"j":1}'), post('application/x-www-form-urlencoded', 'a[b]=1')],
      );
  });

  it('single-byte charsets whose WHATWG names mean another table: every byte, each of iconv-lite names', async () => {
    // WHATWG reads iso-8859-9 as windows-1254, iso-8859-11 and tis-620 as windows-874,
    // csisolatin1 as windows-1252, and fills the bytes a Windows page leaves undefined with
    // C1 controls; iconv-lite (body-parser) keeps the ISO tables and gives U+FFFD.
    const everyByte = Buffer.from(Array.from({ length: 256 }, (_, byte) => byte));
    const charsets = [
      ...['ISO-8859-9', 'latin5', 'l5', 'csISOLatin5', 'iso-ir-148', 'turkish', 'cp28599'],
      ...['iso-8859-11', 'thai', 'TIS-620', 'tis620-0', 'iso-ir-166'],
      ...['csisolatin1', 'iso-ir-100', 'cp28591'],
      // IANA's names with a year (quoted: a colon is no token character), which iconv-lite
      // drops: WHATWG reads the first two as windows-1252 (from Node 22 on) and windows-1254.
      ...['ISO_8859-1:1987', 'iso_8859-9:1989', 'ISO_8859-2:1987', 'ISO_8859-5:1988'].map((name) => `"${name}"`),
      ...['ANSI_X3.4-1968', 'us', 'iso646-us', 'csascii', 'cp367', 'iso-ir-6'],
      ...[1250, 1251, 1253, 1254, 1255, 1256, 1257, 1258, 874].flatMap((page) => [`windows-${page}`, `cp${page}`]),
      'win1251',
    ];
    await same(
      (m) => m.text(),
      charsets.map((charset) => post('text/plain; charset=' + charset, everyByte)),
    );
  });

  it('iconv-lite charsets: latin1, ascii, windows-1252, utf-16 with a BOM, ucs2, binary, base64, hex', async () => {
    const bytes = Buffer.from([0x61, 0xe9, 0x80, 0x9f, 0x81, 0xa4, 0xff]);
    const charsets = [
      'utf-8',
      'UTF8',
      'latin1',
      'ISO-8859-1',
      'iso_8859-1',
      'windows-1252',
      'win1252',
      'cp1252',
      'ascii',
      'US-ASCII',
      'utf-16',
      'utf16le',
      'ucs2',
      'utf-16be',
      'binary',
      'koi8-r',
      'shift_jis',
      'base64',
      'hex',
      'iso-8859-15',
      'macintosh',
      'utf-32',
      'x-user-defined',
      'nope',
    ];
    await same(
      (m) => m.text(),
      charsets.map((charset) => post('text/plain; charset=' + charset, bytes)),
    );
    const le = Buffer.from('\ufeff{"a":"€"}', 'utf16le');
    const be = Buffer.from('\ufeff{"a":"€"}', 'utf16le').swap16();
    await same(
      (m) => m.json(),
      [
        post('application/json; charset=utf-16', le),
        post('application/json; charset=utf-16', be),
        post('application/json; charset=utf-16be', be),
        post('application/json; charset=utf-16le', le),
        post('application/json; charset=utf-16', Buffer.from('{"a":"b"}', 'utf16le')),
        post('application/json; charset=utf-16', Buffer.from('{"a":"b"}', 'utf16le').swap16()),
        post('text/plain; charset=utf-16', Buffer.from([0xd8, 0x3d, 0x00])),
      ],
    );
  });

  it('every byte of the single-byte charsets decodes as iconv-lite reads it, long bodies too', async () => {
    const everyByte = Buffer.from(Array.from({ length: 256 }, (_, byte) => byte));
    // Long runs of the bytes each decoder maps by table or puts back (0x80-0x9f, 0x1a 0x1c 0x7f).
    const runs = Buffer.concat([Buffer.alloc(40_000, 0x85), Buffer.alloc(20_000, 0x7f), Buffer.alloc(20_000, 0x1a)]);
    const charsets = ['latin1', 'ascii', 'us-ascii', 'windows-1252', 'koi8-r', 'ibm866'];
    // Shift_JIS is multi-byte (ICU and iconv-lite replace invalid sequences differently): its controls only.
    const controls = Buffer.concat([Buffer.from('ab'), Buffer.alloc(30_000, 0x7f), Buffer.alloc(30_000, 0x1c)]);
    await same(
      (m) => m.text(),
      [
        ...charsets.flatMap((charset) => [everyByte, runs].map((body) => post('text/plain; charset=' + charset, body))),
        post('text/plain; charset=shift_jis', controls),
      ],
    );
  });

  it("iconv-lite's spellings of charsets TextDecoder decodes (koi8r, win1251, utf_8, shiftjis, cp936)", async () => {
    // Bodies encoded by the iconv-lite body-parser decodes with.
    const iconv = require(require.resolve('iconv-lite', { paths: [require.resolve('body-parser')] }));
    const samples: Array<[string, string]> = [
      ['koi8r', 'Привет'],
      ['win1251', 'Привет'],
      ['windows1251', 'Привет'],
      ['utf_8', 'héllo ✓'],
      ['shiftjis', '日本語'],
      ['cp932', '日本語'],
      ['euckr', '한국어'],
      ['cp936', '中文'],
      ['cp950', '中文'],
      ['win874', 'สวัสดี'],
      ['tis620', 'สวัสดี'],
      ['macroman', 'café'],
      ['win1252', 'café'],
    ];
    await same(
      (m) => m.text(),
      samples.map(([charset, text]) => post('text/plain; charset=' + charset, iconv.encode(text, charset))),
    );
  });

  it('each name iconv-lite gives a TextDecoder charset; chinese is GB18030; KOI8-U and -RU on any Node', async () => {
    const everyByte = Buffer.from(Array.from({ length: 256 }, (_, byte) => byte));
    // Where GB18030 and Node 20's GBK decoder part: a byte GBK drops, the euro sign, a pair GBK lacks.
    const gb18030 = Buffer.from([0x41, 0xff, 0x42, 0xa2, 0xe3, 0xfe, 0x70, 0x43]);
    // (ISO-8859-16's names decode from Node 24 on only: Node 20 has no table for it.)
    const singleByteNames = [
      ...['msee', 'mscyrl', 'msansi', 'msgreek', 'msturk', 'mshebr', 'msarab', 'winbaltrim'],
      ...['latin7', 'latin8', 'latin9', 'l7', 'l8', 'iso-ir-101', 'isoir144'],
      ...['28592', 'cp28597', 'arabic8', 'ecma-114', 'asmo-708', 'ecma-118', 'elot_928', 'hebrew8'],
      ...['celtic', 'iso-celtic', 'cskoi8r', '20866', 'cp20866', 'ibm878', '21866', 'cp21866', 'ibm1168'],
      ...['koi8-u', 'KOI8-RU', 'koi8ru', 'KOI8_RU'],
    ];
    await same(
      (m) => m.text(),
      [
        ...singleByteNames.map((charset) => post('text/plain; charset=' + charset, everyByte)),
        ...['chinese', 'gb18030', 'GB18030'].map((charset) => post('text/plain; charset=' + charset, gb18030)),
      ],
    );
  });

  it('ASCII control bytes decode as iconv-lite reads them, in every charset (ICU moves three in two)', async () => {
    const controls = Buffer.from([0x41, 0x1a, 0x1c, 0x7f, 0x42, 0x00, 0x09, 0x1b, 0x0a]);
    const charsets = [
      'shift_jis',
      'sjis',
      'ibm866',
      'cp866',
      'euc-jp',
      'gbk',
      'big5',
      'euc-kr',
      'koi8-r',
      'iso-8859-2',
    ];
    await same(
      (m) => m.text(),
      charsets.map((charset) => post('text/plain; charset=' + charset, controls)),
    );
  });

  it('charsets TextDecoder knows but iconv-lite does not: 415, as body-parser documents, on any Node', async () => {
    // x-user-defined decodes on Node 26 only; the others decode on every line. body-parser says 415 for all.
    const whatwgOnly = [
      'x-user-defined',
      'X-User-Defined',
      'x-mac-cyrillic',
      'x-mac-ukrainian',
      'x-mac-roman',
      'iso-2022-jp',
      'csiso2022jp',
      'x-euc-jp',
      'cseucpkdfmtjapanese',
      'dos-874',
      'x-cp1250',
      'x-cp1251',
      'x-cp1252',
      'x-cp1253',
      'x-cp1254',
      'x-cp1255',
      'x-cp1256',
      'x-cp1257',
      'x-cp1258',
      'koi',
      'koi8',
      'csisolatin9',
      'iso-8859-8-i',
      'csiso88598i',
      'logical',
      'visual',
      'iso-8859-8-e',
      'csiso88598e',
      'iso-8859-6-i',
      'iso-8859-6-e',
      'csiso88596i',
      'csiso88596e',
      'sun_eu_greek',
      'unicode20utf8',
      'x-unicode20utf8',
      'unicode',
      'unicodefeff',
      'unicodefffe',
      'csunicode',
      'iso-10646-ucs-2',
    ];
    const requests = whatwgOnly.map((charset) => post('text/plain; charset=' + charset, Buffer.from('abc')));
    await same((m) => m.text(), requests);
    await withServer(serverFor(ours.text() as never).listeners('request')[0] as never, async (port) => {
      for (const spec of requests)
        assert.equal((await rawRequest(port, spec)).status, 415, JSON.stringify(spec.headers));
      // Labels iconv-lite does know still decode (koi8-r, windows-1251, iso-8859-6).
      for (const charset of ['koi8-r', 'windows-1251', 'iso-8859-6'])
        assert.equal((await rawRequest(port, post('text/plain; charset=' + charset, 'abc'))).status, 200, charset);
    });
  });

  it('which refusal comes first: Content-Encoding, announced length, charset; with verify, the charset', async () => {
    const bogus = 'text/plain; charset=bogus';
    // No verify: the Content-Encoding, then the announced length, then the charset.
    await same(
      (m) => m.text({ limit: 5 }),
      [
        post(bogus, 'abc', { 'Content-Encoding': 'compress' }),
        post(bogus, 'abcdefghij'),
        post(bogus, 'abc'),
        post(bogus, 'abcdefghij', { 'Content-Encoding': 'gzip' }),
      ],
    );
    // With verify: the charset before anything else.
    await same(
      (m) => m.text({ limit: 5, verify: () => undefined } as never),
      [post(bogus, 'abc', { 'Content-Encoding': 'compress' }), post(bogus, 'abcdefghij')],
    );
  });

  it('with verify, an unknown charset is answered before the body arrives', async () => {
    // Headers announce 100 bytes, one is sent, and the socket stays open: the
    // 415 must come without the rest (a 10 s guard ends the wait otherwise).
    const partial =
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain; charset=bogus\r\nContent-Length: 100\r\n\r\nx';
    const firstAnswer = (parser: Parser) =>
      withServer(serverFor(parser).listeners('request')[0] as never, (port) => {
        return new Promise<string>((resolve) => {
          const socket = net.connect(port, '127.0.0.1', () => socket.write(partial));
          const guard = setTimeout(() => socket.destroy(), 10_000);
          let text = '';
          socket.setEncoding('utf8');
          socket.on('data', (chunk: string) => {
            text += chunk;
            if (text.includes('}')) socket.destroy();
          });
          socket.on('close', () => {
            clearTimeout(guard);
            resolve(text);
          });
        });
      });
    for (const module of [theirs, ours]) {
      const text = await firstAnswer(module.text({ verify: () => undefined }) as Parser);
      assert.match(text, /^HTTP\/1.1 415/, text);
      assert.match(text, /"type":"charset.unsupported"/, text);
    }
  });

  it('a reviver that throws: only its message is kept (400 entity.parse.failed), whatever it throws', async () => {
    const thrown = [
      () => Object.assign(new Error('bad key'), { status: 422, type: 'my.type', extra: 1 }),
      () => 'a string',
      () => null,
      () => ({ message: 'an object without a stack' }),
    ];
    for (const make of thrown) {
      await same(
        (m) =>
          m.json({
            reviver: (key: string, value: unknown) => {
              if (key === 'bad') throw make();
              return value;
            },
          } as never),
        [post('application/json', '{"bad":1}'), post('application/json', '{"good":1}')],
      );
    }
  });

  it('the combined bodyParser() reads options inherited through a prototype', async () => {
    await same(
      (m) => (m as unknown as (opts: object) => never)(Object.create({ limit: 5, extended: false })),
      [post('application/x-www-form-urlencoded', 'a=1&b=2'), post('application/json', '{}')],
    );
  });

  it("verify: a throw gives 403 entity.verify.failed, or the error's own status", async () => {
    await same(
      (m) =>
        m.json({
          verify: (_q: unknown, _s: unknown, buf: Buffer) => {
            if (buf.includes('bad')) throw new Error('no');
          },
        } as never),
      [post('application/json', '{"bad":1}'), post('application/json', '{"ok":1}')],
    );
    // Whatever verify throws: a plain value, or an error with its own status, type or expose.
    const thrown = [
      () => Object.assign(new Error('teapot'), { status: 418, type: 'custom.type' }),
      () => 'a string',
      () => Object.assign(new Error('by statusCode'), { statusCode: 409 }),
      () => Object.assign(new Error('hidden'), { status: 400, expose: false }),
      () => Object.assign(new Error('server side'), { status: 503 }),
      () => Object.assign(new Error('odd status'), { status: 200 }),
      // http-errors' own errors (the copy body-parser uses): left as they are when the status is theirs.
      () => require('http-errors')(401, 'from http-errors'),
      () => require('http-errors')(403, 'forbidden, from http-errors'),
      () => require('http-errors')(502),
      () => require('http-errors')(499, 'an unnamed status'),
    ];
    for (const make of thrown) {
      await same(
        (m) =>
          m.json({
            verify: () => {
              throw make();
            },
          } as never),
        [post('application/json', '{}')],
      );
    }
  });
});
