/**
 * Generated body parsing (seeded, so a failure reproduces; WEBAPP_TEST_SEED draws
 * other cases): each case is an app built on express@4 with body-parser@1.20 and on
 * webapp with webapp/body-parser from the same description (one to three parsers in
 * a row with generated options: limit, inflate, strict, reviver, type as a string, a
 * list or a function, verify, defaultCharset, extended, parameterLimit, depth), then
 * one generated request over real HTTP on 127.0.0.1: Content-Types with parameters,
 * charsets and odd syntax, Content-Encodings (corrupt and stacked too), bodies at and
 * around the limit, chunked (in chunks as small as a byte, or with a chunk size that
 * is no number), with a Content-Length too short or too long, none at all, or cut off
 * by a client that goes away. Status, headers (X-Powered-By for
 * presence only) and body must match, and so must what the app saw: `req.body`, or
 * the error's fields, and every call of a type function, `verify` and the handlers
 * after the parsers (so a parser calling `next` twice shows). Then a few written by
 * hand: bodies body-parser decodes chunk by chunk (iconv-lite's streaming decoders),
 * and the one place webapp decodes otherwise on purpose (a character iconv-lite loses).
 *
 * Left out, as documented in docs/migrating-from-express-4.md: `Content-Encoding: br`
 * (decoded here), compressed bodies whose client goes away (Express waits for good),
 * `verify` or a reviver throwing something that is not an Error, and the legacy
 * charsets decoded with other tables.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { inspect } from 'node:util';
import zlib from 'node:zlib';
import { describe, it } from 'node:test';
import express from 'express';
import webapp = require('../../src/index');
import ours = require('../../src/body-parser/index');
import {
  answersOf,
  assertNoDifferences,
  brandHidden,
  headerLines,
  isDeepStrictEqual,
  show,
  type Answer,
  type HeaderLines,
} from '../support/generated-answers';
import { chance, pick, prng, type Random } from '../support/prng';
import { withServer, type RequestSpec } from '../support/raw-http';

const theirs = require('body-parser');
const bytes = require('bytes') as { parse(value: unknown): number | null };
process.env.NO_DEPRECATION = 'body-parser,webapp,http-errors';

type Any = any;
type Kind = 'json' | 'urlencoded' | 'text' | 'raw';
type Side = 'express' | 'webapp';

// ---------------------------------------------------------------------------
// The description of a case: plain data, built into parsers once per side.

type TypeFunction = 'always' | 'header' | 'json-in-type' | 'truthy-string' | 'throws';
type TypeSpec = string | string[] | { fn: TypeFunction };
type VerifySpec =
  | 'pass'
  | 'throw'
  | 'throw-status'
  | 'throw-status-200'
  | 'throw-status-299'
  | 'throw-status-600'
  | 'throw-status-string'
  | 'throw-statusCode'
  | 'throw-type'
  | 'throw-expose'
  | 'throw-if-x'
  | 'not-a-function';
type ReviverSpec = 'double' | 'drop-a' | 'drop-root' | 'throw' | 'throw-on-b';

interface ParserSpec {
  kind: Kind;
  /** `bodyParser.json` or the framework's own `express.json` / `webapp.json`. */
  via: 'module' | 'framework';
  options?: {
    limit?: number | string | null;
    inflate?: boolean;
    type?: TypeSpec;
    verify?: VerifySpec;
    strict?: boolean;
    reviver?: ReviverSpec;
    defaultCharset?: string;
    extended?: boolean;
    parameterLimit?: number | string;
    depth?: number | string | false | null;
  };
}

type Framing = 'length' | 'chunked' | 'chunks' | 'bad chunk' | 'none' | 'short' | 'long' | 'abort';

interface Case {
  parsers: ParserSpec[];
  /**
   * Done before the parsers run: a body already there (or a falsy one), one marked as
   * read, the body read off by another middleware, or `req.setEncoding` called.
   */
  preset?: 'body' | 'falsy body' | '_body' | 'consumed' | 'encoding';
  method: string;
  contentType?: string;
  contentEncoding?: string;
  xParse?: string;
  /** What the body was made of (for a failure message), and its bytes as sent. */
  made: string;
  body: Buffer;
  framing: Framing;
  /** `chunks` (and some `abort`s): chunked, in HTTP chunks of this many bytes (Node reads each as a `data` event). */
  chunkSize?: number;
}

const KINDS: readonly Kind[] = ['json', 'json', 'urlencoded', 'urlencoded', 'text', 'raw'];

const LIMITS: ReadonlyArray<number | string | null> = [
  100,
  1024,
  '1kb',
  '10b',
  '100b',
  '1.5kb',
  '512',
  0,
  1.5,
  -1,
  '1KB',
  '0.5kb',
  '2 kb',
  '5',
  20,
  50,
  '1mb',
  null,
  'abc',
  '1 mb',
  ' 10',
  '10kb ',
  '1e3',
  '0x10',
  '-5kb',
  '+1kb',
  Infinity,
  '1pb',
  '',
];

const TYPE_STRINGS: readonly string[] = [
  'application/json',
  'json',
  '*/*',
  'text/*',
  '+json',
  '*/json',
  'application/*',
  'urlencoded',
  'application/x-www-form-urlencoded',
  'text/plain',
  'txt',
  'html',
  'bin',
  'application/octet-stream',
  'application/vnd.api+json',
  'nonexistent',
  'multipart',
  'Application/JSON',
  '',
  'application/json; charset=utf-8',
  'APPLICATION/*',
];

const TYPE_FUNCTIONS: readonly TypeFunction[] = ['always', 'header', 'json-in-type', 'truthy-string', 'throws'];

const VERIFIES: readonly VerifySpec[] = [
  'pass',
  'pass',
  'pass',
  'throw',
  'throw-status',
  'throw-status-200',
  'throw-status-299',
  'throw-status-600',
  'throw-status-string',
  'throw-statusCode',
  'throw-type',
  'throw-expose',
  'throw-if-x',
  'throw-if-x',
  'not-a-function',
];

const DEFAULT_CHARSETS: readonly string[] = [
  'latin1',
  'utf-16le',
  'iso-8859-1',
  'windows-1252',
  'utf-16',
  'foo',
  'UTF-8',
  'ascii',
  'hex',
  'utf-16be',
];

function typeOption(random: Random): TypeSpec {
  const roll = random();
  if (roll < 0.45) return pick(random, TYPE_STRINGS);
  if (roll < 0.65) return [pick(random, TYPE_STRINGS), pick(random, TYPE_STRINGS)];
  if (roll < 0.7) return [];
  return { fn: pick(random, TYPE_FUNCTIONS) };
}

function parserSpec(random: Random, kind: Kind): ParserSpec {
  const options: NonNullable<ParserSpec['options']> = {};
  if (chance(random, 0.35)) options.limit = pick(random, LIMITS);
  if (chance(random, 0.2)) options.inflate = pick(random, [true, false, false, 0, 'false'] as never[]);
  if (chance(random, 0.2)) options.type = typeOption(random);
  if (chance(random, 0.25)) options.verify = pick(random, VERIFIES);
  if (kind === 'json') {
    if (chance(random, 0.35)) options.strict = pick(random, [true, false, false, 0, 'false'] as never[]);
    if (chance(random, 0.15))
      options.reviver = pick(random, ['double', 'drop-a', 'drop-root', 'throw', 'throw-on-b'] as const);
  }
  if (kind === 'urlencoded') {
    if (chance(random, 0.85)) options.extended = pick(random, [true, true, false, false, 'false', 0] as never[]);
    if (chance(random, 0.25))
      options.parameterLimit = pick(random, [1, 2, 3, 5, 10, '4', '1e1', 'Infinity', Infinity, 0, NaN, 2.5]);
    if (chance(random, 0.25)) options.depth = pick(random, [0, 1, 2, 3, 5, Infinity, -1, '2', false, null] as never[]);
  }
  if (kind === 'text' && chance(random, 0.35)) options.defaultCharset = pick(random, DEFAULT_CHARSETS);
  return { kind, via: chance(random, 0.3) ? 'framework' : 'module', ...(chance(random, 0.1) ? {} : { options }) };
}

// ---------------------------------------------------------------------------
// Requests: Content-Types, charsets, encodings and bodies.

const TYPES: Record<Kind, readonly string[]> = {
  json: [
    'application/json',
    'application/json',
    'application/JSON',
    'Application/Json',
    'application/vnd.api+json',
    'application/csp-report',
    'application/ld+json',
    'text/json',
  ],
  urlencoded: [
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded',
    'APPLICATION/X-WWW-FORM-URLENCODED',
  ],
  text: ['text/plain', 'text/plain', 'text/html', 'TEXT/PLAIN', 'text/csv', 'text/x-custom'],
  raw: ['application/octet-stream', 'application/octet-stream', 'application/pdf', 'image/png', 'application/x-custom'],
};

const ODD_TYPES: readonly string[] = [
  '',
  ' ',
  'application',
  'application/',
  '/json',
  'application/json;',
  'application/json;;',
  'application/json; charset',
  'application/json ; charset=utf-8',
  'application/json\t',
  'application/json, text/plain',
  'multipart/form-data; boundary=x',
  '*/*',
  'application/*',
  'json',
  "application/json; charset='utf-8'",
  'application/json; charset=utf-8; charset=latin1',
  'application/json; foo="bar',
  'application/json; foo=bar',
  'application/json; q',
  'application/json; charset=\xfctf-8',
  'application/json; charset=\u20ac',
  'text/plain; charset=utf-8 ; format=flowed',
  'application/x-www-form-urlencoded; charset',
  'application/x-www-form-urlencoded;charset=UTF-8',
];

const CHARSETS: readonly string[] = [
  'utf-8',
  'utf-8',
  'UTF-8',
  'utf8',
  '"utf-8"',
  '"UTF-16"',
  'utf-16',
  'utf-16',
  'utf-16le',
  'UTF-16BE',
  'ucs-2',
  'latin1',
  'iso-8859-1',
  'ISO-8859-1',
  'us-ascii',
  'ascii',
  'windows-1252',
  'windows-1251',
  'binary',
  'hex',
  'base64',
  'shift_jis',
  'Shift_JIS',
  'gbk',
  'euc-kr',
  'cp950',
  'utf-9',
  'utf-',
  'utf-32',
  'foo',
  '',
  '""',
];

/** How the charset parameter is written (X stands for the charset). */
const CHARSET_PARAMETERS: readonly string[] = [
  ';charset=X',
  '; CHARSET=X',
  ' ; charset=X',
  '; charset = X',
  '; charset=X;',
  '; charset="X"',
  '; charset=X; charset=utf-8',
  '; a=b; charset=X',
  '; charset=X ; a=b',
  ';; charset=X',
  '; charset="X',
  '; charset=X, text/plain',
  '; charset="X\\"',
  '; Charset=X',
];

const ENCODINGS: readonly string[] = [
  'identity',
  'IDENTITY',
  'gzip',
  'gzip',
  'GZIP',
  'deflate',
  'deflate',
  'Deflate',
  'x-gzip',
  'gzip, deflate',
  'compress',
  '',
  'corrupt gzip',
  'truncated gzip',
  'gzip of gzip',
  'raw deflate',
  'gzip then garbage',
  'deflate as gzip',
  'gzip bomb',
];

const JSON_BODIES: readonly string[] = [
  '{"a":1}',
  '{"a":1,"b":[true,null,"x"]}',
  '[1,2,3]',
  '[]',
  '{}',
  '"str"',
  '12',
  'true',
  'null',
  '  {"a":1}',
  '\n\t[1]',
  ' "x"',
  '{"a":',
  '{a:1}',
  'nul',
  "{'a':1}",
  '{"a":1}x',
  '',
  '   ',
  '\ufeff{"bom":1}',
  '\ufeff',
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"a":"\\u00e9\\ud83d\\ude00\\ud800"}',
  '{"\xe9":"\xfc \u20ac \u{1f600}"}',
  '{"n":1e400,"m":-0,"k":12345678901234567890}',
  '[' + '['.repeat(300) + ']'.repeat(300) + ']',
  '{"a":1,"a":2}',
  '#',
  '{"x":"\\x"}',
  'true ',
  '[1,]',
  '\xa0{}',
  '{"a":1}\u0000',
  'x',
  '{"b":{"a":2,"c":[1,{"a":3}]}}',
  '-',
  '"\\ud83d"',
  'undefined',
];

const FORM_BODIES: readonly string[] = [
  'a=1&b=2',
  'a[b]=c',
  'a[b][c][d]=e',
  'a[]=1&a[]=2',
  'a[0]=x&a[2]=y',
  'a[101]=x',
  'a[1]=x&a[0]=y',
  'a=1&a=2',
  '__proto__[polluted]=yes',
  'constructor[prototype][polluted]=yes',
  'a[__proto__][b]=c',
  '__proto__=x',
  'hasOwnProperty=x',
  'toString=x&valueOf=y',
  'a=%zz',
  'a=%E2%82%AC&b=%C3',
  'a+b=c+d',
  'a',
  '=x',
  '&&',
  'a&b&c',
  'a[=1',
  'a]=1',
  'a[b]c=1',
  'a.b=1',
  'a[b]=1&a=2',
  'a=1&a[b]=2',
  '%61=1',
  'a%5Bb%5D=1',
  'a[][b]=1',
  'a[b][]=1&a[b][]=2',
  ';a=1',
  'a=1;b=2',
  '',
  '%',
  'a[b][c]=1&a[b]=2',
  'a[]=x&a[]=y&a[5]=z',
  'caf\xe9=\u20ac',
];

const TEXT_BODIES: readonly string[] = [
  'hello',
  '',
  'caf\xe9',
  '\u20acuro \u{1f600}',
  '\ufeffwith a BOM',
  'line\r\nline\n',
  '\u0000\u0001\u007f',
  '\xe9\xe0\xfc\xdf',
  '\ud800 lone',
  'x',
  '\u20ac'.repeat(8) + 'abc',
  '\u20ac\u20ac\u20ac\u20acab\u20ac\u20ac\u20acabcdefghi',
  'a\u0100b\u0100c\u0100d\u0100e\u0100f\u0100g\u0100h',
];

function randomText(random: Random): string {
  const alphabet = [
    'a',
    'b',
    ' ',
    '=',
    '&',
    '[',
    ']',
    '%',
    '"',
    '{',
    '}',
    ',',
    ':',
    '\xe9',
    '\u20ac',
    '\u{1f600}',
    '\n',
  ];
  let text = '';
  const length = Math.floor(random() * 30);
  for (let i = 0; i < length; i++) text += pick(random, alphabet);
  return text;
}

function randomJson(random: Random, depth = 0): unknown {
  const roll = random();
  if (depth > 3 || roll < 0.4)
    return pick(random, [0, 1, -2.5, 'a', '', '\xe9', true, false, null, 1e21, 'x'.repeat(8)]);
  if (roll < 0.7) return Array.from({ length: Math.floor(random() * 4) }, () => randomJson(random, depth + 1));
  const object: Record<string, unknown> = {};
  for (let i = Math.floor(random() * 4); i > 0; i--) {
    const key = pick(random, ['a', 'b', 'c', '__proto__', 'constructor', 'toString', '0', '']);
    Object.defineProperty(object, key, { value: randomJson(random, depth + 1), enumerable: true, configurable: true });
  }
  return object;
}

const FORM_NAMES: readonly string[] = [
  'a',
  'b',
  'a',
  '0',
  '1',
  '10',
  '100',
  '101',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'length',
  '',
  ' ',
  'a.b',
  '.',
  '%5B',
  '%5D',
  '%2E',
  '%',
  '+',
  '-1',
  '01',
  '\xe9',
];

const FORM_VALUES: readonly string[] = [
  '',
  '1',
  'x',
  '%zz',
  '%',
  '+',
  '=',
  '%3D',
  '%26',
  '%20',
  'a[b]',
  '\xe9',
  '%C3%A9',
  '%C3',
];

/** A urlencoded body of nested keys (brackets whole, empty, unbalanced, encoded), values and separators. */
function randomForm(random: Random): string {
  const part = () => pick(random, FORM_NAMES);
  const key = (): string => {
    let name = chance(random, 0.1) ? '[' + part() + ']' : part();
    for (let i = Math.floor(random() * 4); i > 0; i--)
      name += pick(random, [
        '[]',
        '[' + part() + ']',
        '[' + part() + ']',
        '[',
        ']',
        '[[' + part() + ']]',
        '.' + part(),
      ]);
    return name;
  };
  const pair = () => {
    const roll = random();
    if (roll < 0.08) return key();
    if (roll < 0.12) return '=' + pick(random, FORM_VALUES);
    return key() + '=' + pick(random, FORM_VALUES) + (chance(random, 0.05) ? '=' + pick(random, FORM_VALUES) : '');
  };
  let body = pair();
  for (let i = Math.floor(random() * 8); i > 0; i--) body += pick(random, ['&', '&', '&', '&&', ';', '&amp;']) + pair();
  return body;
}

/** Up to 40 bytes (as latin1 text), mostly of the upper half and the double-byte charsets' lead bytes. */
function randomBytes(random: Random): string {
  const byte = () =>
    chance(random, 0.5)
      ? pick(random, [0x41, 0x0a, 0x81, 0x98, 0xa1, 0xe0, 0xfe, 0xff, 0x80, 0x40])
      : Math.floor(random() * 256);
  return Buffer.from(Array.from({ length: Math.floor(random() * 40) }, byte)).toString('latin1');
}

/** A body for a parser of `kind`, as text (raw bodies are bytes given as latin1 text). */
function bodyText(random: Random, kind: Kind, parameterLimit: number | undefined): string {
  const roll = random();
  switch (kind) {
    case 'json':
      if (roll < 0.55) return pick(random, JSON_BODIES);
      if (roll < 0.85) return JSON.stringify(randomJson(random));
      return (
        pick(random, ['', ' ', '\n', '\t\r\n']) + JSON.stringify(randomJson(random)) + pick(random, ['', ' ', '}'])
      );
    case 'urlencoded':
      if (roll < 0.45) return pick(random, FORM_BODIES);
      if (roll < 0.8) return randomForm(random);
      if (roll < 0.9) return 'a' + '[x]'.repeat(Math.floor(random() * 40)) + '=1';
      {
        const around = parameterLimit !== undefined && isFinite(parameterLimit) ? parameterLimit : 1000;
        const count = Math.max(1, around - 1 + Math.floor(random() * 3));
        return (
          Array.from({ length: count }, (_, i) => pick(random, ['a[]', 'p' + i, 'a[' + i + ']'])).join('=1&') + '=1'
        );
      }
    case 'text':
      return roll < 0.5 ? pick(random, TEXT_BODIES) : roll < 0.8 ? randomText(random) : randomBytes(random);
    default:
      return roll < 0.5 ? randomBytes(random) : randomText(random);
  }
}

/** The text in the charset named (else UTF-8); sometimes UTF-8 whatever the label says. */
function encode(random: Random, text: string, charset: string, kind: Kind): Buffer {
  if (kind === 'raw') return Buffer.from(text, 'latin1');
  if (chance(random, 0.15)) return Buffer.from(text, 'utf8');
  const le = (value: string) => Buffer.from(value, 'utf16le');
  const be = (value: string) => le(value).swap16();
  switch (charset.replace(/"/g, '').toLowerCase()) {
    case 'utf-16le':
    case 'ucs-2':
      return le(text);
    case 'utf-16be':
      return be(text);
    case 'utf-16':
      return pick(random, [le('\ufeff' + text), be('\ufeff' + text), le(text), be(text)]);
    case 'latin1':
    case 'iso-8859-1':
    case 'binary':
      return Buffer.from(text, 'latin1');
    case 'shift_jis':
    case 'gbk':
    case 'euc-kr':
    case 'cp950':
      // Bytes as they are (random bytes are mostly not text there), else UTF-8's.
      return Buffer.from(text, /^[\0-\xff]*$/.test(text) ? 'latin1' : 'utf8');
    default:
      return Buffer.from(text, 'utf8');
  }
}

function compress(random: Random, body: Buffer, encoding: string): { header: string; body: Buffer } {
  switch (encoding) {
    case 'gzip':
    case 'GZIP':
      return { header: encoding, body: zlib.gzipSync(body) };
    case 'deflate':
    case 'Deflate':
      return { header: encoding, body: zlib.deflateSync(body) };
    case 'corrupt gzip': {
      const gz = zlib.gzipSync(body);
      for (let i = 10; i < gz.length; i += 3) gz[i] ^= 0x5a;
      return { header: 'gzip', body: gz };
    }
    case 'truncated gzip': {
      const gz = zlib.gzipSync(body);
      return { header: 'gzip', body: gz.subarray(0, Math.max(1, Math.floor(gz.length * random()))) };
    }
    case 'gzip of gzip':
      return { header: 'gzip', body: zlib.gzipSync(zlib.gzipSync(body)) };
    case 'raw deflate':
      return { header: 'deflate', body: zlib.deflateRawSync(body) };
    case 'gzip then garbage':
      return { header: 'gzip', body: Buffer.concat([zlib.gzipSync(body), Buffer.from('garbage')]) };
    case 'deflate as gzip':
      return { header: 'gzip', body: zlib.deflateSync(body) };
    case 'gzip bomb':
      // Past the default limit once inflated: JSON allows the trailing spaces.
      return { header: 'gzip', body: zlib.gzipSync(Buffer.concat([body, Buffer.alloc(150_000, 0x20)])) };
    default:
      return { header: encoding, body };
  }
}

/** The body padded (at its end) to `target` bytes before encoding, where the charset allows. */
function padded(text: string, kind: Kind, target: number, width: number): string {
  const current = width === 2 ? text.length * 2 : Buffer.byteLength(text, kind === 'raw' ? 'latin1' : 'utf8');
  const missing = Math.floor((target - current) / width);
  return missing > 0 ? text + (kind === 'json' ? ' ' : 'x').repeat(missing) : text;
}

function requestCase(random: Random, parsers: ParserSpec[]): Case {
  // Mostly a body for the first parser, of its default type.
  const kind = chance(random, 0.85) ? parsers[0].kind : pick(random, KINDS);
  let contentType: string | undefined;
  const roll = random();
  if (roll < 0.55) contentType = TYPES[kind][0];
  else if (roll < 0.8) contentType = pick(random, TYPES[kind]);
  else if (roll < 0.88) contentType = pick(random, TYPES[pick(random, KINDS)]);
  else if (roll < 0.97) contentType = pick(random, ODD_TYPES);
  let charset = 'utf-8';
  if (contentType !== undefined && chance(random, kind === 'text' ? 0.6 : 0.4)) {
    charset = pick(random, CHARSETS);
    contentType += (chance(random, 0.5) ? '; charset=X' : pick(random, CHARSET_PARAMETERS)).replace('X', charset);
  }
  const first = parsers[0].options ?? {};
  const parameterLimit = typeof first.parameterLimit === 'number' ? first.parameterLimit : undefined;
  let text = bodyText(random, kind, parameterLimit);
  // Bodies at and around the limit (the first parser's, else the default 100kb).
  const limit = first.limit === undefined || first.limit === null ? 102400 : bytes.parse(first.limit);
  if (limit !== null && chance(random, limit >= 102400 ? 0.03 : 0.5) && limit < 200000) {
    const width = /^"?(utf-16|ucs-2)/i.test(charset) ? 2 : 1;
    text = padded(text, kind, Math.floor(limit) + Math.floor(random() * 4) - 2, width);
  }
  let body = encode(random, text, charset, kind);
  let contentEncoding: string | undefined;
  if (chance(random, 0.3)) {
    const compressed = compress(random, body, pick(random, ENCODINGS));
    contentEncoding = compressed.header;
    body = compressed.body;
  }
  // Unlabelled UTF-16, whose byte order iconv-lite guesses from the first chunks, is sent in
  // chunks more often. The double-byte charsets never in several: an invalid sequence split
  // between two chunks loses a character in iconv-lite 0.4 and none here (documented, and
  // tested by hand below).
  const chunkSensitive = /^"?utf-16"?$/i.test(charset);
  const doubleByte = /^(shift_jis|gbk|euc-kr|cp950)$/i.test(charset);
  const framingRoll = chunkSensitive && chance(random, 0.4) ? 0.12 : random();
  let framing: Framing = 'length';
  if (framingRoll < 0.1) framing = 'chunked';
  else if (framingRoll < 0.15) framing = 'chunks';
  else if (framingRoll < 0.19) framing = 'short';
  else if (framingRoll < 0.22 && contentEncoding === undefined) framing = 'long';
  else if (framingRoll < 0.27 && contentEncoding === undefined && body.length >= 2) framing = 'abort';
  else if (framingRoll < 0.29) framing = 'none';
  else if (framingRoll < 0.31 && contentEncoding === undefined) framing = 'bad chunk';
  if (framing === 'short' && body.length === 0) framing = 'length';
  if (framing === 'none') body = Buffer.alloc(0);
  const method = pick(random, ['POST', 'POST', 'POST', 'POST', 'POST', 'POST', 'PUT', 'PATCH', 'GET', 'DELETE']);
  let preset = chance(random, 0.08)
    ? pick(random, ['body', 'falsy body', '_body', 'consumed', 'encoding'] as const)
    : undefined;
  // A body read off by another middleware that never ends would keep the case waiting.
  if (preset === 'consumed' && LEAVING.has(framing)) preset = undefined;
  return {
    parsers,
    ...(preset ? { preset } : {}),
    method,
    ...(contentType !== undefined ? { contentType } : {}),
    ...(contentEncoding !== undefined ? { contentEncoding } : {}),
    ...(chance(random, 0.5) ? { xParse: '1' } : {}),
    made: show(text, 60),
    body,
    framing,
    ...((framing === 'chunks' && !doubleByte) || (framing === 'abort' && chance(random, 0.4))
      ? { chunkSize: pick(random, [1, 2, 3, 5, 8, 15, 16, 17, 24, 31]) }
      : {}),
  };
}

function generatedCases(random: Random, count: number): Case[] {
  return Array.from({ length: count }, () => {
    const stacked = random();
    const length = stacked < 0.7 ? 1 : stacked < 0.92 ? 2 : 3;
    const parsers = Array.from({ length }, () => parserSpec(random, pick(random, KINDS)));
    return requestCase(random, parsers);
  });
}

// ---------------------------------------------------------------------------
// The app on each side: a router per case holding its parsers, then a handler that
// answers with what `req.body` holds and an error handler that answers with the
// error's fields. Every call they and the options' functions get is noted per case.

/** What each case's functions noted, per side. */
type Notes = string[][];

function shown(value: unknown): string {
  if (Buffer.isBuffer(value)) return 'Buffer ' + value.length + ' ' + value.toString('hex').slice(0, 600);
  const text = inspect(value, { depth: 40, breakLength: Infinity, maxArrayLength: 200, maxStringLength: 300 });
  // Long strings are cut: their length and a digest of every code unit stand for the rest.
  if (typeof value === 'string' && value.length > 300)
    return text + ' #' + createHash('sha1').update(Buffer.from(value, 'utf16le')).digest('hex');
  return text;
}

function errorFields(err: Any, req: Any): Record<string, unknown> {
  if (err === null || typeof err !== 'object') return { thrown: shown(err) };
  return {
    name: err.name,
    constructor: err.constructor?.name,
    message: err.message,
    status: err.status,
    statusCode: err.statusCode,
    expose: err.expose,
    type: err.type,
    charset: err.charset,
    encoding: err.encoding,
    limit: err.limit,
    length: err.length,
    received: err.received,
    expected: err.expected,
    code: err.code,
    body: 'body' in err ? shown(err.body) : '(none)',
    keys: Object.keys(err),
    stack: typeof err.stack,
    reqBody: shown(req.body),
    _body: req._body,
  };
}

function verifyFor(spec: VerifySpec, note: (text: string) => void): unknown {
  if (spec === 'not-a-function') return 'verify';
  return (_req: unknown, _res: unknown, buf: Buffer, encoding: unknown) => {
    note(`verify ${String(encoding)} ${Buffer.isBuffer(buf)} ${buf.toString('hex').slice(0, 200)}`);
    const error = (props: object) => Object.assign(new Error('verify says no'), props);
    switch (spec) {
      case 'throw':
        throw new Error('bad signature');
      case 'throw-status':
        throw error({ status: 401 });
      case 'throw-status-200':
        throw error({ status: 200 });
      case 'throw-status-299':
        throw error({ status: 299 });
      case 'throw-status-600':
        throw error({ status: 600 });
      case 'throw-status-string':
        throw error({ status: '401' });
      case 'throw-statusCode':
        throw error({ statusCode: 409 });
      case 'throw-type':
        throw error({ type: 'custom.verify' });
      case 'throw-expose':
        throw error({ status: 502, expose: true });
      case 'throw-if-x':
        if (buf.includes(0x78)) throw new RangeError('no x here');
    }
  };
}

function reviverFor(spec: ReviverSpec, note: (text: string) => void): (key: string, value: unknown) => unknown {
  switch (spec) {
    case 'double':
      return (_key, value) => (typeof value === 'number' ? value * 2 : value);
    case 'drop-a':
      return (key, value) => (key === 'a' ? undefined : value);
    case 'drop-root':
      return (key, value) => (key === '' ? undefined : value);
    case 'throw':
      return () => {
        note('reviver throws');
        throw Object.assign(new Error('reviver says no'), { status: 418, type: 'custom.reviver' });
      };
    default:
      return (key, value) => {
        if (key === 'b') throw new TypeError('no b');
        return value;
      };
  }
}

function typeFor(spec: TypeSpec, note: (text: string) => void): unknown {
  if (typeof spec === 'string' || Array.isArray(spec)) return Array.isArray(spec) ? spec.slice() : spec;
  return (req: http.IncomingMessage) => {
    note('type ' + spec.fn);
    switch (spec.fn) {
      case 'always':
        return true;
      case 'header':
        return req.headers['x-parse'] === '1';
      case 'json-in-type':
        return String(req.headers['content-type']).includes('json');
      case 'truthy-string':
        return 'yes';
      default:
        throw new Error('type check failed');
    }
  };
}

function optionsFor(spec: ParserSpec, note: (text: string) => void): Any {
  const given = spec.options;
  if (!given) return undefined;
  const options: Any = { ...given };
  if (given.type !== undefined) options.type = typeFor(given.type, note);
  if (given.verify !== undefined) options.verify = verifyFor(given.verify, note);
  if (given.reviver !== undefined) options.reviver = reviverFor(given.reviver, note);
  return options;
}

function appFor(
  side: Side,
  cases: readonly Case[],
  notes: Notes,
  watch: Map<number, () => void>,
): http.RequestListener {
  const framework = (side === 'express' ? express : webapp) as Any;
  const module = side === 'express' ? theirs : ours;
  const app = framework();
  const caseOf = (req: Any): number => Number(/^\/c\/(\d+)/.exec(req.url)?.[1] ?? -1);
  const notesOf = (req: Any): string[] => notes[caseOf(req)] ?? [];
  const stacks = cases.map((item, index) => {
    const note = (text: string) => notes[index].push(text);
    const router = framework.Router();
    // A client that leaves mid-body goes once the server has seen part of it (or answered).
    if (item.framing === 'abort')
      router.use((req: Any, res: Any, next: Any) => {
        req.on('data', () => watch.get(index)?.());
        res.on('finish', () => watch.get(index)?.());
        next();
      });
    if (item.preset === 'body') router.use((req: Any, _res: unknown, next: Any) => ((req.body = 'preset'), next()));
    if (item.preset === 'falsy body') router.use((req: Any, _res: unknown, next: Any) => ((req.body = ''), next()));
    if (item.preset === '_body') router.use((req: Any, _res: unknown, next: Any) => ((req._body = true), next()));
    if (item.preset === 'consumed') router.use((req: Any, _res: unknown, next: Any) => req.resume().on('end', next));
    if (item.preset === 'encoding')
      router.use((req: Any, _res: unknown, next: Any) => (req.setEncoding('utf8'), next()));
    for (const spec of item.parsers) {
      const factory = spec.via === 'framework' ? framework[spec.kind] : module[spec.kind];
      try {
        router.use(factory(optionsFor(spec, note)));
      } catch (err) {
        router.use((_req: unknown, _res: unknown, next: Any) => next(err));
      }
    }
    return router;
  });
  app.use((req: Any, res: Any, next: Any) => (stacks[caseOf(req)] ?? framework.json())(req, res, next));
  app.use((req: Any, res: Any) => {
    const seen = {
      body: shown(req.body),
      own: Object.prototype.hasOwnProperty.call(req, 'body'),
      _body: req._body,
      polluted: ({} as Any).polluted ?? null,
    };
    notesOf(req).push('handler ' + JSON.stringify(seen));
    if (!res.headersSent) res.json(seen);
  });
  app.use((err: Any, req: Any, res: Any, _next: unknown) => {
    const fields = errorFields(err, req);
    notesOf(req).push('error handler ' + inspect(fields, { breakLength: Infinity }));
    const status = typeof err?.status === 'number' && err.status >= 200 && err.status < 600 ? err.status : 500;
    if (!res.headersSent) res.status(status).json(fields);
  });
  return app;
}

// ---------------------------------------------------------------------------
// Sending: well-formed requests through Node's client on kept-alive connections,
// the others written on a socket of their own.

/** Whether Node's client sends the request as described. */
function clientSends(item: Case): boolean {
  if (item.framing !== 'length' && item.framing !== 'chunked') return false;
  try {
    for (const value of [item.contentType, item.contentEncoding])
      if (value !== undefined) http.validateHeaderValue('x', value);
    return true;
  } catch {
    return false;
  }
}

function headersOf(item: Case): Record<string, string> {
  const headers: Record<string, string> = {};
  if (item.contentType !== undefined) headers['Content-Type'] = item.contentType;
  if (item.contentEncoding !== undefined) headers['Content-Encoding'] = item.contentEncoding;
  if (item.xParse !== undefined) headers['X-Parse'] = item.xParse;
  return headers;
}

function clientRequest(item: Case, index: number): RequestSpec {
  const headers = headersOf(item);
  if (item.framing === 'chunked') headers['Transfer-Encoding'] = 'chunked';
  else headers['Content-Length'] = String(item.body.length);
  return { method: item.method, path: `/c/${index}`, headers, body: item.body };
}

/**
 * The request's bytes (header values as UTF-8), framed as the case says. A `bad chunk`
 * is the first half of the body as a chunk, then a chunk size that is no number.
 */
function wire(item: Case, index: number): { head: Buffer; body: Buffer } {
  const lines = [`${item.method} /c/${index} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(headersOf(item))) lines.push(`${name}: ${value}`);
  const length = item.body.length;
  const chunked = item.framing === 'chunked' || item.framing === 'bad chunk' || item.chunkSize !== undefined;
  if (chunked) lines.push('Transfer-Encoding: chunked');
  else if (item.framing === 'short') lines.push(`Content-Length: ${Math.floor(length / 2)}`);
  else if (item.framing === 'long') lines.push(`Content-Length: ${length + 5}`);
  else if (item.framing !== 'none') lines.push(`Content-Length: ${length}`);
  const head = Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'utf8');
  if (!chunked) return { head, body: item.body };
  if (item.framing === 'bad chunk') {
    const half = item.body.subarray(0, Math.ceil(length / 2));
    const first = half.length ? [Buffer.from(half.length.toString(16) + '\r\n'), half, Buffer.from('\r\n')] : [];
    return { head, body: Buffer.concat([...first, Buffer.from('zz\r\n' + 'x'.repeat(10) + '\r\n')]) };
  }
  const size = item.chunkSize ?? (length || 1);
  const chunks: Buffer[] = [];
  for (let i = 0; i < length; i += size) {
    const chunk = item.body.subarray(i, i + size);
    chunks.push(Buffer.from(chunk.length.toString(16) + '\r\n'), chunk, Buffer.from('\r\n'));
  }
  return { head, body: Buffer.concat([...chunks, Buffer.from('0\r\n\r\n')]) };
}

/** The first final answer in `data`, or undefined while it is incomplete. */
function firstAnswer(data: Buffer, closed: boolean): Answer | undefined {
  let start = 0;
  while (data.subarray(start, start + 10).toString('latin1') === 'HTTP/1.1 1') {
    const end = data.indexOf('\r\n\r\n', start);
    if (end === -1) break;
    start = end + 4;
  }
  const headEnd = data.indexOf('\r\n\r\n', start);
  if (headEnd === -1) return closed ? { status: 0, headers: [], body: data.toString('latin1') } : undefined;
  const [statusLine, ...lines] = data.subarray(start, headEnd).toString('latin1').split('\r\n');
  const headers: HeaderLines = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name))
      headers.push([name, line.slice(colon + 1).trim()]);
  }
  const length = Number(headers.find(([name]) => name === 'content-length')?.[1] ?? 0);
  if (data.length < headEnd + 4 + length && !closed) return undefined;
  const body = data.subarray(headEnd + 4, headEnd + 4 + length).toString('latin1');
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/**
 * Framings whose answer is not compared, only the notes: `long` half-closes after a
 * body shorter than announced, `abort` destroys the socket once the server has seen
 * part of the body (the answer races the leaving), and after a `short` body the rest
 * is a request Node refuses at once with its own 400, before or after the app's answer
 * as the app answers at once or after reading the body; so is a `bad chunk`.
 */
const LEAVING: ReadonlySet<Framing> = new Set(['long', 'abort', 'short', 'bad chunk']);

/** Writes the case's request on a socket of its own; the first answer, or null (LEAVING). */
function sendOwn(port: number, item: Case, index: number, watch: Map<number, () => void>): Promise<Answer | null> {
  const { head, body } = wire(item, index);
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
    let data = Buffer.alloc(0);
    let settled = false;
    const settle = (answer: Answer | null) => {
      if (settled) return;
      settled = true;
      watch.delete(index);
      socket.destroy();
      resolve(answer);
    };
    const leaving = LEAVING.has(item.framing);
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const answer = firstAnswer(data, false);
      if (answer && !leaving) settle(answer);
    });
    socket.on('close', () => settle(leaving ? null : (firstAnswer(data, true) ?? null)));
    socket.on('error', () => undefined);
    socket.setTimeout(3000, () => settle(leaving ? null : { status: -3, headers: [], body: 'timeout' }));
    socket.on('connect', () => {
      if (item.framing === 'abort') {
        watch.set(index, () => settle(null));
        socket.write(head);
        socket.write(body.subarray(0, Math.floor(body.length / 2)));
      } else {
        socket.write(Buffer.concat([head, body]));
        if (item.framing === 'long') socket.end();
      }
    });
  });
}

/** Resolves once the app has noted an answer for the case (or after a second). */
async function handled(notes: string[], deadline = Date.now() + 1000): Promise<void> {
  while (!notes.some((note) => note.startsWith('handler') || note.startsWith('error handler'))) {
    if (Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

interface Seen {
  answer: Answer | null;
  notes: string[];
}

async function seenOn(side: Side, cases: readonly Case[]): Promise<Seen[]> {
  const notes: Notes = cases.map(() => []);
  const watch = new Map<number, () => void>();
  const app = appFor(side, cases, notes, watch);
  const viaClient = cases.map((item) => clientSends(item));
  const indexes = cases.map((_, index) => index);
  const clientIndexes = indexes.filter((index) => viaClient[index]);
  const answers: Array<Answer | null> = new Array(cases.length).fill(null);
  const fromClient = await answersOf(
    app,
    clientIndexes.map((index) => clientRequest(cases[index], index)),
    { headers: headerLines() },
  );
  clientIndexes.forEach((index, i) => (answers[index] = fromClient[i]));
  await withServer(app, async (port) => {
    for (const index of indexes.filter((i) => !viaClient[i])) {
      answers[index] = await sendOwn(port, cases[index], index, watch);
      if (LEAVING.has(cases[index].framing)) await handled(notes[index]);
    }
    // The server still answers a well-formed request after the others.
    const last = await answersOf(app, [
      { method: 'POST', path: '/healthy', headers: { 'Content-Type': 'application/json' }, body: '{}' },
    ]);
    assert.equal(last[0].status, 200, `${side}: a well-formed request after the generated ones`);
  });
  // A second call of `next` would come after the first answer: give it a moment.
  await new Promise((resolve) => setTimeout(resolve, 20));
  return cases.map((_, index) => ({
    answer: answers[index] && { ...answers[index], headers: brandHidden(answers[index].headers) },
    notes: notes[index],
  }));
}

function describeCase(item: Case): string {
  const parsers = item.parsers.map(
    (spec) => `${spec.via === 'framework' ? 'app.' : ''}${spec.kind}(${show(spec.options)})`,
  );
  return (
    `[${parsers.join(', ')}]${item.preset ? ' preset ' + item.preset : ''} ${item.method} ` +
    `type=${show(item.contentType)} encoding=${show(item.contentEncoding)} x-parse=${show(item.xParse)} ` +
    `${item.framing}${item.chunkSize ? ' of ' + item.chunkSize : ''} ${item.body.length} bytes of ${item.made}`
  );
}

/** Asserts that webapp saw what express@4 saw for every case; returns what webapp saw. */
async function assertSameParsing(cases: readonly Case[]): Promise<Seen[]> {
  const expected = await seenOn('express', cases);
  const actual = await seenOn('webapp', cases);
  const differences: string[] = [];
  cases.forEach((item, index) => {
    if (!isDeepStrictEqual(actual[index], expected[index]))
      differences.push(
        `#${index} ${describeCase(item)}\n` +
          `  express: ${show(expected[index], 600, 6)}\n  webapp:  ${show(actual[index], 600, 6)}`,
      );
  });
  assertNoDifferences(differences, cases.length, 'body-parsing cases differ from express@4 + body-parser', 4);
  return actual;
}

/** A hand-written case: one POST of `body` in HTTP chunks of `chunkSize` bytes to `parsers`. */
function inChunks(parsers: ParserSpec[], contentType: string, body: Buffer, chunkSize: number): Case {
  return { parsers, method: 'POST', contentType, made: 'hand-written', body, framing: 'chunks', chunkSize };
}

/** What the handler after the parsers saw as `req.body` (or the error handler's note). */
const bodySeen = (seen: Seen): string => seen.notes.at(-1) ?? '';

describe('webapp/body-parser: generated apps and requests against express@4 + body-parser@1.20', () => {
  it('parses (or refuses) generated requests as body-parser does, through generated parser stacks', async () => {
    await assertSameParsing(generatedCases(prng(0xb0d1e5), 500));
  });

  it('decodes unlabelled UTF-16 read in chunks as body-parser does, unless there is a verify', async () => {
    const text: ParserSpec = { kind: 'text', via: 'module' };
    const verified: ParserSpec = { kind: 'text', via: 'module', options: { verify: 'pass' } };
    const json: ParserSpec = { kind: 'json', via: 'module' };
    const bigEndian = (value: string) => Buffer.from(value, 'utf16le').swap16();
    // Unlabelled UTF-16 without a BOM: iconv-lite guesses the byte order from the chunks read until
    // it holds 16 bytes; eight euro signs tell nothing, so little-endian, though the rest says big.
    const euros = bigEndian('\u20ac'.repeat(8) + 'abc');
    const jsonBody = bigEndian('["\u0100\u0100\u0100\u0100\u0100\u0100","abcdefghijklmnop"]');
    const [guessed, guessedWhole, badJson] = await assertSameParsing([
      inChunks([text], 'text/plain; charset=utf-16', euros, 16),
      inChunks([verified], 'text/plain; charset=utf-16', euros, 16),
      inChunks([json], 'application/json; charset=utf-16', jsonBody, 16),
    ]);
    assert.match(bodySeen(guessed), /"body":"'\uac20{8}/);
    assert.match(bodySeen(guessedWhole), /'\u20ac{8}abc'/);
    assert.match(bodySeen(badJson), /entity\.parse\.failed/);
  });

  it('keeps every character of a double-byte body cut inside an invalid sequence (documented)', async () => {
    // Shift_JIS: a lead byte (0x98) ends a chunk and makes no pair with the next chunk's space.
    // iconv-lite 0.4's text for that next chunk has room for two code units only, so its `b` is
    // lost, wherever the network cut the body; webapp decodes it as if it came whole.
    const text: ParserSpec = { kind: 'text', via: 'module' };
    const cases = [inChunks([text], 'text/plain; charset=shift_jis', Buffer.from('A\x98 bc', 'latin1'), 2)];
    const [express4] = await seenOn('express', cases);
    const [ours] = await seenOn('webapp', cases);
    assert.match(bodySeen(express4), /'A\ufffd c'/);
    assert.match(bodySeen(ours), /'A\ufffd bc'/);
  });
});
