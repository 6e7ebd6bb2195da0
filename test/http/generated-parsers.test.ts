/**
 * webapp's header and value parsers against the packages Express 4.22 calls for the
 * same job (range-parser, content-type, content-disposition, vary, bytes, type-is,
 * etag, fresh, escape-html, encodeurl, ms, parseurl, mime, negotiator), function by
 * function, over seeded inputs built from the pieces their grammars are made of.
 * The end-to-end differential tests reach these parsers through whole requests; here
 * thousands of odd values a run go straight in, and each answer (or thrown message)
 * must be the package's.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { formatBytes, parseBytes } from '../../src/http/bytes';
import { contentDisposition } from '../../src/http/content-disposition';
import { sign, unsign } from '../../src/http/cookie-signature';
import { formatMediaType, parseMediaType, setCharset } from '../../src/http/content-type';
import { encodeUrl } from '../../src/http/encode-url';
import { escapeHtml } from '../../src/http/escape-html';
import { etag } from '../../src/http/etag';
import { isFresh } from '../../src/http/fresh';
import { lookupType } from '../../src/http/mime';
import { parseMs, parseMsLegacy } from '../../src/http/ms';
import { acceptsOther, acceptsTypes } from '../../src/http/negotiation';
import { parseRequestTarget } from '../../src/http/parse-url';
import { parseRange } from '../../src/http/range-parser';
import { matchType } from '../../src/http/type-is';
import { appendVary } from '../../src/http/vary';
import { assertSameCalls, made, outcome } from '../support/generated-calls';
import { chance, pick, type Random } from '../support/prng';

const oracles = {
  range: require('range-parser') as (size: number, header: string, options?: object) => unknown,
  contentType: require('content-type') as { parse(h: string): unknown; format(o: object): string },
  disposition: require('content-disposition') as (filename?: string, options?: object) => string,
  vary: require('vary') as { append(header: string, field: string | string[]): string },
  bytes: require('bytes') as { parse(v: unknown): number | null; format(v: number, o?: object): string | null },
  typeIs: require('type-is') as { is(type: string | undefined, types: string[]): string | false | null },
  etag: require('etag') as (body: string | Buffer, options?: object) => string,
  fresh: require('fresh') as (req: object, res: object) => boolean,
  escapeHtml: require('escape-html') as (s: string) => string,
  encodeUrl: require('encodeurl') as (s: string) => string,
  // send 0.19 (express.static's and res.sendFile's maxAge strings) brings its own ms.
  ms: require(require.resolve('ms', { paths: [require.resolve('send')] })) as (v: string) => number | undefined,
  // Connect 2.30's favicon and timeout: ms 0.7.
  legacyMs: require(require.resolve('ms', { paths: [require.resolve('connect')] })) as (
    v: string,
  ) => number | undefined,
  parseurl: require('parseurl') as (req: object) => Record<string, unknown>,
  mime: require(require.resolve('mime', { paths: [require.resolve('send')] })) as { lookup(p: string): string },
  accepts: require('accepts') as (req: object) => Record<string, (...values: string[]) => unknown>,
  signature: require('cookie-signature') as {
    sign(v: string, s: unknown): string;
    unsign(v: string, s: unknown): unknown;
  },
  setCharset: (require('express/lib/utils') as { setCharset(type: string, charset: string): string }).setCharset,
};

/** Runs `cases` inputs through both sides; lists the first differences. */
function compare<T>(
  seed: number,
  cases: number,
  input: (random: Random) => T,
  ours: (input: T) => unknown,
  theirs: (input: T) => unknown,
): void {
  assertSameCalls(seed, cases, input, { names: ['webapp', 'package'], render, ours, theirs });
}

/** Equal renderings ignore prototypes (null-prototype records against plain ones) but not array extras. */
function render(value: unknown): string {
  return JSON.stringify(plain(value));
}
function plain(value: unknown): unknown {
  if (Array.isArray(value)) {
    const extras = Object.keys(value).filter((key) => !/^\d+$/.test(key));
    const items = value.map(plain);
    return extras.length === 0
      ? items
      : { items, ...Object.fromEntries(extras.map((k) => [k, plain(value[k as never])])) };
  }
  if (value === undefined) return '<undefined>';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, plain((value as Record<string, unknown>)[key])]),
  );
}

const ODD = [
  '\t',
  ' ',
  '"',
  '\\',
  ',',
  ';',
  '=',
  '\u0000',
  '\u007f',
  '\u00e9',
  '\u00ff',
  '\u0100',
  '\u2028',
  '\ud83d\ude00',
];
const NUMBERS = [
  '0',
  '1',
  '5',
  '9',
  '10',
  '42',
  '99',
  '100',
  '199',
  '200',
  '007',
  '1e3',
  '0x10',
  '-1',
  '+3',
  '1.5',
  '',
];

describe('generated parser inputs: webapp against the packages Express 4 uses', () => {
  it('Range headers (range-parser 1.2), with and without combine', () => {
    const pieces = ['bytes', '=', '-', ',', ' ', ...NUMBERS, 'items', 'x', 'Bytes', '  ', ', ', '--'];
    compare(
      1,
      4000,
      (random) => ({
        size: pick(random, [0, 1, 10, 100, 150, 200, 1000]),
        header: chance(random, 0.7) ? 'bytes=' + made(random, pieces) : made(random, pieces),
        combine: chance(random, 0.5),
      }),
      ({ size, header, combine }) => parseRange(size, header, { combine }),
      ({ size, header, combine }) => oracles.range(size, header, { combine }),
    );
  });

  const MEDIA = ['text', 'html', 'application', 'json', '/', '*', '+', 'x-', 'vnd.a', 'TEXT', 'Json', '.', '!'];
  const PARAMETERS = [
    '; charset=utf-8',
    ';charset=UTF-8',
    '; q=0.5',
    ';  a = b ',
    '; a="b c"',
    '; a="\\"q\\""',
    '; a="\\\\"',
    '; a=',
    '; =b',
    ';',
    '; a="unterminated',
    '; boundary=----x',
    '; A=B',
    ...ODD,
  ];

  it('Content-Type values (content-type 1.0): parse, format and setCharset', () => {
    const header = (random: Random): string =>
      (chance(random, 0.2) ? ' ' : '') +
      made(random, MEDIA, 3) +
      (chance(random, 0.7) ? made(random, PARAMETERS, 3) : '');
    compare(
      2,
      3000,
      header,
      (h) => parseMediaType(h),
      (h) => oracles.contentType.parse(h),
    );
    compare(
      3,
      3000,
      (random) => ({
        type: made(random, MEDIA, 3),
        parameters: Object.fromEntries(
          Array.from({ length: Math.floor(random() * 3) }, () => [
            made(random, ['a', 'B', '-', ' ', '"', 'é'], 2),
            made(random, ['x', ' ', '"', '\\', 'é', '\u0100', ';', ''], 3),
          ]),
        ),
      }),
      (media) => formatMediaType(media),
      (media) => oracles.contentType.format(media),
    );
    compare(
      4,
      3000,
      (random) => ({ type: header(random), charset: pick(random, ['utf-8', 'UTF-8', 'iso-8859-1', '', 'a b']) }),
      ({ type, charset }) => setCharset(type, charset),
      ({ type, charset }) => oracles.setCharset(type, charset),
    );
  });

  it('Content-Disposition values (content-disposition 0.5) for odd file names', () => {
    const NAMES = [
      'a',
      'B',
      '.',
      'txt',
      ' ',
      '%',
      '%20',
      '%e2',
      "'",
      '*',
      '/',
      'dir/',
      '\\',
      'plans.pdf',
      ...ODD,
      '\u00a0',
      '\u20ac',
    ];
    compare(
      5,
      3000,
      (random) => ({
        name: chance(random, 0.05) ? undefined : made(random, NAMES),
        options: pick(random, [
          undefined,
          { type: 'inline' },
          { type: 'attachment', fallback: false },
          { fallback: true },
          { fallback: 'plain.txt' },
          { fallback: 'caf\u00e9.txt' },
          { fallback: '\u20ac %20.txt' },
          { type: 'inline', fallback: '"q".txt' },
          { type: 'form-data' },
          { type: 'bad type' },
        ]),
      }),
      ({ name, options }) => contentDisposition(name, options),
      ({ name, options }) => {
        // content-disposition 0.5 tests a string fallback with a global expression,
        // whose lastIndex carries over: it throws for a fallback beyond Latin-1 on every
        // other call. A default call (its `replace` puts lastIndex back to 0) first, so
        // each case sees the package's first answer; webapp throws every time.
        oracles.disposition('reset');
        return oracles.disposition(name, options);
      },
    );
  });

  it('Vary lists (vary 1.1): appended fields, * and invalid names', () => {
    const FIELDS = ['Accept', 'accept', 'Origin', '*', ' ', ',', 'Accept-Encoding', 'X-A', 'a b', ':', 'é', ''];
    compare(
      6,
      3000,
      (random) => ({
        header: made(random, FIELDS, Math.floor(random() * 5)),
        field: chance(random, 0.3)
          ? Array.from({ length: Math.floor(random() * 4) }, () => made(random, FIELDS, 1))
          : made(random, FIELDS, 1 + Math.floor(random() * 3)),
      }),
      ({ header, field }) => appendVary(header, field),
      ({ header, field }) => oracles.vary.append(header, field),
    );
  });

  it('byte sizes (bytes 3.1): parse and format', () => {
    const UNITS = ['b', 'kb', 'KB', 'mb', 'Mb', 'gb', 'tb', 'pb', 'k', ' ', 'kib'];
    compare(
      7,
      3000,
      (random) =>
        chance(random, 0.15)
          ? pick(random, [0, 1024, -5, 1.5, NaN, Infinity, null, undefined, true, {}, '', ' ', '1e3kb'])
          : (chance(random, 0.2) ? ' ' : '') +
            made(random, NUMBERS, 1 + Math.floor(random() * 2)) +
            made(random, UNITS, Math.floor(random() * 2)),
      (value) => parseBytes(value),
      (value) => oracles.bytes.parse(value),
    );
    compare(
      8,
      2000,
      (random) => ({
        value: pick(random, [
          0,
          1,
          1023,
          1024,
          1536,
          1e6,
          1048576,
          2 ** 40,
          2 ** 50,
          3 ** 33,
          -2048,
          0.5,
          NaN,
          Infinity,
        ]),
        options: pick(random, [
          undefined,
          { decimalPlaces: 0 },
          { fixedDecimals: true },
          { unit: 'kb' },
          { unit: 'KB', unitSeparator: ' ' },
          { thousandsSeparator: ',' },
          { unit: 'b', thousandsSeparator: ' ' },
          { unit: 'xyz' },
        ]),
      }),
      ({ value, options }) => formatBytes(value, options),
      ({ value, options }) => oracles.bytes.format(value, options),
    );
  });

  it('type matching (type-is 1.6) for odd Content-Types and wanted types', () => {
    const WANTED = [
      'json',
      'urlencoded',
      'html',
      'text/*',
      '*/*',
      '*/json',
      '+json',
      'application/*+json',
      'multipart',
      'bin',
      'TEXT/HTML',
      'a',
      '*',
      '',
      'text/html; charset=x',
      '.html',
    ];
    compare(
      9,
      3000,
      (random) => ({
        type: chance(random, 0.1)
          ? undefined
          : made(random, MEDIA, 3) + (chance(random, 0.4) ? made(random, PARAMETERS, 2) : ''),
        wanted: Array.from({ length: Math.floor(random() * 3) }, () => pick(random, WANTED)),
      }),
      ({ type, wanted }) => matchType(type, wanted),
      ({ type, wanted }) => oracles.typeIs.is(type as string, wanted),
    );
  });

  it('ETags (etag 1.8) of strings and buffers, strong and weak', () => {
    compare(
      10,
      2000,
      (random) => {
        const text = made(random, ['', 'a', 'hello', ...ODD, 'x'.repeat(200)], Math.floor(random() * 6));
        return { body: chance(random, 0.3) ? Buffer.from(text) : text, weak: chance(random, 0.5) };
      },
      ({ body, weak }) => etag(body, weak),
      ({ body, weak }) => oracles.etag(body, { weak }),
    );
  });

  it('freshness (fresh 0.5) of conditional requests', () => {
    const TAGS = ['"a"', 'W/"a"', '"b"', '*', ' ', ',', 'W/', '"', 'a'];
    const DATES = [
      'Thu, 01 Jan 1970 00:00:00 GMT',
      'Sat, 01 Jan 2000 00:00:00 GMT',
      'Mon, 01 Jan 2035 00:00:00 GMT',
      'garbage',
      '',
    ];
    compare(
      11,
      3000,
      (random) => {
        const req: IncomingHttpHeaders = {};
        const res: Record<string, string> = {};
        if (chance(random, 0.6)) req['if-none-match'] = made(random, TAGS, 1 + Math.floor(random() * 4));
        if (chance(random, 0.4)) req['if-modified-since'] = pick(random, DATES);
        if (chance(random, 0.3))
          req['cache-control'] = pick(random, [
            'no-cache',
            'max-age=0',
            'no-cache, x',
            'NO-CACHE',
            'no-cachex',
            ' no-cache',
          ]);
        if (chance(random, 0.7)) res.etag = pick(random, TAGS.slice(0, 3));
        if (chance(random, 0.5)) res['last-modified'] = pick(random, DATES);
        return { req, res };
      },
      ({ req, res }) => isFresh(req, res),
      ({ req, res }) => oracles.fresh(req, res),
    );
  });

  it('HTML escaping (escape-html 1.0) and URL encoding (encodeurl 2.0)', () => {
    const TEXT = [
      'a',
      '<',
      '>',
      '&',
      '"',
      "'",
      '&amp;',
      ' ',
      '%',
      '%2',
      '%zz',
      '%41',
      '/',
      '?',
      '#',
      '[',
      ']',
      '\\',
      '|',
      '^',
      '`',
      '{',
      '}',
      ...ODD,
      '\ud800',
      '\udc00',
    ];
    compare(12, 3000, (random) => made(random, TEXT), escapeHtml, oracles.escapeHtml);
    compare(13, 3000, (random) => made(random, TEXT), encodeUrl, oracles.encodeUrl);
  });

  it('durations (ms 2.1 as send 0.19 reads maxAge strings; ms 0.7 as Connect 2.30 does)', () => {
    const UNITS = [
      'ms',
      'msecs',
      's',
      'sec',
      'seconds',
      'm',
      'min',
      'h',
      'hrs',
      'd',
      'days',
      'w',
      'weeks',
      'y',
      'yrs',
      'D',
      'Hours',
      'x',
      ' ',
    ];
    // Not the empty string: ms 2.1 and 0.7.2 throw for it, and the callers that use
    // those versions throw the same themselves (static/options.ts, favicon.ts).
    const duration = (random: Random): string =>
      (chance(random, 0.2) ? pick(random, ['-', ' ', '.']) : '') +
      made(random, NUMBERS.filter(Boolean), 1) +
      made(random, UNITS, Math.floor(random() * 3));
    compare(
      14,
      3000,
      duration,
      (value) => parseMs(value),
      (value) => oracles.ms(value),
    );
    compare(
      18,
      3000,
      duration,
      (value) => parseMsLegacy(value),
      (value) => oracles.legacyMs(value),
    );
  });

  it('request targets (parseurl 1.3): pathname, search, query, path, href', () => {
    const PARTS = [
      '/',
      'a',
      '/b',
      '?',
      'x=1',
      '&',
      '#',
      'h',
      '%20',
      '%',
      ' ',
      '\t',
      '//',
      'http://h',
      ':',
      '@',
      '..',
      ';',
      '\\',
      ...ODD,
    ];
    const fields = (parsed: Record<string, unknown> | undefined) =>
      parsed && {
        pathname: parsed.pathname,
        search: parsed.search,
        query: parsed.query,
        path: parsed.path,
        href: parsed.href,
      };
    compare(
      15,
      3000,
      (random) => (chance(random, 0.8) ? '/' : '') + made(random, PARTS),
      (url) => fields(parseRequestTarget(url) as unknown as Record<string, unknown>),
      (url) => fields(oracles.parseurl({ url } as unknown as IncomingMessage)),
    );
  });

  it('media types of paths and extensions (mime 1.6, as send and res.type look them up)', () => {
    const PARTS = [
      'html',
      'json',
      'js',
      'txt',
      'tar.gz',
      '.',
      '/',
      'a',
      'HTML',
      'Json',
      'png',
      'x',
      'mp4',
      'dir.d/',
      '..',
      'constructor',
      '__proto__',
      'hasOwnProperty',
    ];
    compare(
      16,
      3000,
      (random) => made(random, PARTS, 1 + Math.floor(random() * 3)),
      (path) => lookupType(path) || 'application/octet-stream',
      (path) => oracles.mime.lookup(path),
    );
  });

  it('signed cookie values (cookie-signature 1.0): sign, and unsign of signed, altered and unsigned strings', () => {
    const VALUE = ['a', 'tobi', '.', '..', 's:', 'j:{}', '=', ' ', '%2E', ...ODD];
    const SECRETS = ['keyboard cat', '', 'caf\u00e9', Buffer.from('bytes'), Buffer.alloc(0), undefined, null];
    compare(
      19,
      2000,
      (random) => {
        const secret = pick(random, SECRETS);
        const value = made(random, VALUE, Math.floor(random() * 5));
        const signed = secret == null ? value + '.x' : oracles.signature.sign(value, secret);
        const altered = pick(random, [
          (text: string) => text,
          (text: string) => text.slice(0, -1),
          (text: string) => text + '=',
          (text: string) => 'x' + text,
          (text: string) => text.replace('.', ''),
          (text: string) => text.slice(0, text.lastIndexOf('.') + 1),
        ]);
        return { value, secret, signed: chance(random, 0.1) ? value : altered(signed) };
      },
      ({ value, secret, signed }) => [outcome(() => sign(value, secret as string)), unsign(signed, secret as string)],
      ({ value, secret, signed }) => [
        outcome(() => oracles.signature.sign(value, secret)),
        oracles.signature.unsign(signed, secret),
      ],
    );
  });

  it('negotiation (accepts 1.3 over negotiator 0.6): types, encodings, charsets, languages', () => {
    const TYPES = [
      'text/html',
      'application/json',
      'text/*',
      '*/*',
      'image/png',
      'json',
      'html',
      ' ',
      ',',
      ';q=0',
      ';q=0.5',
      ';q=1.0',
      ';level=1',
      ';q=x',
      ' ;q=0.9',
      'TEXT/HTML',
      '*',
    ];
    const OTHERS = [
      'gzip',
      'deflate',
      'br',
      'identity',
      '*',
      'utf-8',
      'iso-8859-1',
      'en',
      'en-US',
      'fr',
      'EN',
      ',',
      ' ',
      ';q=0',
      ';q=0.8',
      ';q=1',
      'x-y',
    ];
    compare(
      17,
      3000,
      (random) => {
        const dimension = pick(random, ['types', 'encodings', 'charsets', 'languages'] as const);
        const alphabet = dimension === 'types' ? TYPES : OTHERS;
        const headers: IncomingHttpHeaders = {};
        const name = {
          types: 'accept',
          encodings: 'accept-encoding',
          charsets: 'accept-charset',
          languages: 'accept-language',
        }[dimension];
        if (chance(random, 0.85)) headers[name] = made(random, alphabet, 1 + Math.floor(random() * 6));
        const offered = Array.from({ length: Math.floor(random() * 4) }, () =>
          made(random, alphabet, 1 + Math.floor(random() * 2)),
        );
        return { dimension, headers, offered };
      },
      ({ dimension, headers, offered }) =>
        dimension === 'types' ? acceptsTypes(headers, offered) : acceptsOther(headers, dimension, offered),
      ({ dimension, headers, offered }) => oracles.accepts({ headers })[dimension]!(...offered),
    );
  });
});
