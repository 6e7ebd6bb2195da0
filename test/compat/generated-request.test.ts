/**
 * The request API driven with generated headers and arguments (seeded, so a
 * failure reproduces): each case is one request to the same app on express@4 and
 * on webapp, whose route answers with what each call returned or threw; answers
 * compared whole. Headers a client library refuses to send go over a raw socket.
 */
import type http from 'node:http';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import express, { type Request, type Response } from 'express';
import { pick, prng, scaled, type Random } from '../support/prng';
import { assertSameGenerated, type Framework } from '../support/generated-differential';
import { oddValue, randomText } from '../support/odd-values';
import { reportErrors } from '../support/report-errors';

/** `oracle` is true on express@4's side (where a case must ask it another way). */
type Probe = (req: Request, res: Response, oracle: boolean) => unknown;

interface Case {
  label: string;
  method?: string;
  headers: Record<string, string | string[]>;
  /** Which of the test's app settings answers (default 0). */
  app?: number;
  probes: Array<[string, Probe]>;
}

/** What a call returned, or the class and message of what it threw. */
function outcome(probe: Probe, req: Request, res: Response, oracle: boolean): string {
  try {
    return inspect(probe(req, res, oracle), { depth: 4, breakLength: Infinity });
  } catch (err) {
    const error = err as Error;
    return `threw ${error?.constructor?.name}: ${error?.message}`;
  }
}

/** One app per settings object; a request names its app in X-App, its case in the path. */
function casesApp(settings: ReadonlyArray<Record<string, unknown>>) {
  return (framework: Framework, cases: readonly Case[]): http.RequestListener => {
    const oracle = framework === express;
    const apps = settings.map((values) => {
      const app = framework();
      app.disable('x-powered-by');
      app.set('env', 'production');
      for (const [name, value] of Object.entries(values)) app.set(name, value);
      app.all('/c/:n', (req, res) => {
        const item = cases[Number(req.params.n)];
        const lines = item.probes.map(([name, probe]) => `${name} = ${outcome(probe, req, res, oracle)}`);
        if (!res.headersSent) res.end(lines.join('\n'));
      });
      app.use(reportErrors);
      return app as unknown as http.RequestListener;
    });
    return (req, res) => apps[Number(req.headers['x-app'] ?? 0)](req, res);
  };
}

const request = (item: Case, index: number) => ({
  path: `/c/${index}`,
  method: item.method,
  headers: { ...item.headers, 'X-App': String(item.app ?? 0) },
});

const options = { describe: (item: Case) => item.label, request };

/** Header values: ordinary, odd, long, with bytes beyond ASCII (sent raw when a client would refuse them). */
const HEADER_TEXT: readonly string[] = [
  '',
  ' ',
  'a',
  'value',
  ' padded ',
  'a, b',
  'é',
  '☃',
  'a\tb',
  '0',
  'null',
  '__proto__',
  'x'.repeat(2000),
];

const GET_NAMES: readonly unknown[] = [
  'Referer',
  'referer',
  'Referrer',
  'REFERRER',
  'Host',
  'host',
  'X-Custom',
  'x-custom',
  'Content-Type',
  'Set-Cookie',
  'Cookie',
  'X-Forwarded-For',
  'x-missing',
  '',
  ' ',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'toString',
  'é',
  undefined,
  null,
  0,
  1,
  true,
  ['referer'],
  {},
  new String('Referer'),
];

function getCases(count: number, random: Random): Case[] {
  return Array.from({ length: count }, (): Case => {
    const headers: Record<string, string | string[]> = { Host: pick(random, ['example.test', 'a.test:80']) };
    if (random() < 0.5) headers.Referer = pick(random, ['http://a.test/', '/rel', '', 'é']);
    if (random() < 0.3) headers.Referrer = pick(random, ['http://b.test/', '//evil', '☃']);
    if (random() < 0.5) headers['X-Custom'] = pick(random, HEADER_TEXT);
    if (random() < 0.2) headers['X-Custom'] = [pick(random, HEADER_TEXT), pick(random, HEADER_TEXT)];
    if (random() < 0.2) headers.Cookie = ['a=1', 'b=2'];
    const names = Array.from({ length: 3 }, () => (random() < 0.9 ? pick(random, GET_NAMES) : oddValue(random)));
    return {
      label: `req.get over ${names.map((n) => inspect(n)).join(', ')}`,
      headers,
      probes: names.flatMap((name): Array<[string, Probe]> => [
        [`get(${inspect(name)})`, (req) => req.get(name as string)],
        [`header(${inspect(name)})`, (req) => req.header(name as string)],
      ]),
    };
  });
}

const MEDIA_RANGES: readonly string[] = [
  '*/*',
  'text/html',
  'text/*',
  'application/json',
  'application/*',
  'image/png',
  'image/*;q=0.8',
  'text/html;level=1',
  'text/html;q=0',
  'text/plain;q=0.5',
  'application/json;q=1.0',
  'application/xml;q=0.9',
  '*/*;q=0.1',
  'TEXT/HTML',
  'text/html;q=bad',
  'text/html;q=1.5',
  'text/html;q=-1',
  'text/html; charset=utf-8',
  'application/vnd.api+json',
  'text',
  '/',
  '',
  ' ',
  'text/html;Q=0.5',
  'text/html;q=0.001',
  'text/html;q=0.0001',
  'a/b;x="y,z"',
  'x/y;q=0.5;a=b',
];

function acceptHeader(random: Random, pieces: readonly string[]): string {
  const n = 1 + Math.floor(random() * 4);
  return Array.from({ length: n }, () => pick(random, pieces)).join(pick(random, [',', ', ', ' , ']));
}

const TYPE_OFFERS: readonly unknown[] = [
  'html',
  'json',
  'text',
  'txt',
  'png',
  'text/html',
  'application/json',
  'text/plain',
  'image/*',
  '*/*',
  'unknownext',
  'json, html',
  'text/html;level=1',
  'TEXT/HTML',
  '',
  'application/vnd.api+json',
  ['json', 'html'],
  ['text/html', 'text/plain'],
  [],
];

const ENCODINGS = ['gzip', 'deflate', 'br', 'identity', '*', 'gzip;q=0', 'br;q=0.5', 'identity;q=0', 'x-gzip', 'GZIP'];
const CHARSETS = ['utf-8', 'UTF-8', 'iso-8859-1', '*', 'utf-8;q=0', 'latin1;q=0.5', 'unicode-1-1'];
const LANGUAGES = ['en', 'en-US', 'en-us', 'fr', 'fr-CA;q=0.5', '*', 'de;q=0', 'zh-Hant-TW', 'EN', 'en-*'];

function offersOf(random: Random, pieces: readonly unknown[]): unknown[] {
  const roll = random();
  if (roll < 0.1) return [];
  if (roll < 0.2)
    return [
      pick(
        random,
        pieces.filter((p) => typeof p === 'string'),
      ),
    ];
  if (roll < 0.3) return [Array.from({ length: 2 }, () => pick(random, pieces))];
  if (roll < 0.35) return [oddValue(random)];
  return Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(random, pieces));
}

/** The types of a comma list as webapp splits one string (trimmed, empty ones dropped), or undefined. */
function commaList(value: string): string[] | undefined {
  if (!value.includes(',')) return undefined;
  const parts = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  return parts.length > 0 ? parts : undefined;
}

function acceptsCases(count: number, random: Random): Case[] {
  return Array.from({ length: count }, (): Case => {
    const headers: Record<string, string | string[]> = {};
    if (random() < 0.8) headers.Accept = acceptHeader(random, MEDIA_RANGES);
    if (random() < 0.5) headers['Accept-Encoding'] = acceptHeader(random, ENCODINGS);
    if (random() < 0.5) headers['Accept-Charset'] = acceptHeader(random, CHARSETS);
    if (random() < 0.5) headers['Accept-Language'] = acceptHeader(random, LANGUAGES);
    const types = offersOf(random, TYPE_OFFERS);
    const encodings = offersOf(random, ENCODINGS);
    const charsets = offersOf(random, CHARSETS);
    const languages = offersOf(random, LANGUAGES);
    const call = (name: string, args: unknown[]): [string, Probe] => [
      `${name}(${args.map((a) => inspect(a)).join(', ')})`,
      (req, _res, oracle) => {
        const method = req[name as 'accepts'] as (...a: unknown[]) => unknown;
        // SPEC 4.4: one string may list several types ('json, html'), which accepts 1.3
        // never split (false, or the string itself without an Accept header). Express
        // is asked for the list as an array, the answer the SPEC means.
        const list = name === 'accepts' && args.length === 1 && typeof args[0] === 'string' && commaList(args[0]);
        return oracle && list ? method.call(req, list) : method.apply(req, args);
      },
    ];
    return {
      label: 'accepts*',
      headers,
      probes: [
        call('accepts', types),
        call('acceptsEncodings', encodings),
        call('acceptsCharsets', charsets),
        call('acceptsLanguages', languages),
        call('acceptsLanguages', []),
      ],
    };
  });
}

const CONTENT_TYPES: readonly string[] = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'text/html',
  'text/plain;charset=latin1',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/vnd.api+json',
  'application/ld+json',
  'image/svg+xml',
  'text/x-foo',
  'text',
  'text/',
  '/json',
  '',
  ' application/json ',
  'application/json;',
  'application/json; foo',
  'application/json; a="b;c"',
  'application/json\t',
  'app/x+',
  'a/b+c+d',
  'x'.repeat(130) + '/json',
];

const IS_TYPES: readonly unknown[] = [
  'json',
  'html',
  'text/*',
  '*/json',
  '*/*',
  '+json',
  '*/*+json',
  'application/*+json',
  'urlencoded',
  'multipart',
  'multipart/*',
  'application/json',
  'unknownext',
  'text/html',
  '',
  'JSON',
  'image/*',
  'svg',
];

function isCases(count: number, random: Random): Case[] {
  return Array.from({ length: count }, (): Case => {
    const headers: Record<string, string | string[]> = {};
    if (random() < 0.85) headers['Content-Type'] = pick(random, CONTENT_TYPES);
    if (random() < 0.05) headers['Content-Type'] = [pick(random, CONTENT_TYPES), 'text/html'];
    const body = pick(random, ['length', 'length', 'chunked', 'none', 'zero', 'bad length']);
    if (body === 'length') headers['Content-Length'] = '2';
    if (body === 'zero') headers['Content-Length'] = '0';
    if (body === 'chunked') headers['Transfer-Encoding'] = 'chunked';
    const method = body === 'none' ? 'GET' : 'POST';
    const types = offersOf(random, IS_TYPES);
    const spread = (req: Request) => (req.is as (...a: unknown[]) => unknown)(...types);
    return {
      label: `${body} req.is`,
      method,
      headers,
      probes: [
        [`is(${types.map((t) => inspect(t)).join(', ')})`, spread],
        [`is([...])`, (req) => (req.is as (t: unknown) => unknown)(types)],
        ['is()', (req) => (req.is as () => unknown)()],
      ],
    };
  });
}

const RANGE_PARTS: readonly string[] = [
  '0-0',
  '0-99',
  '0-',
  '-1',
  '-0',
  '-500',
  '5-2',
  '100-200',
  '999-',
  '1000-',
  '10-20',
  '15-30',
  '21-25',
  ' 3-4',
  '3 - 4',
  '3-4 ',
  'a-b',
  '',
  '-',
  '1e2-200',
  '0x10-20',
  '00-01',
  '9007199254740993-',
];

function rangeCases(count: number, random: Random): Case[] {
  return Array.from({ length: count }, (): Case => {
    const headers: Record<string, string | string[]> = {};
    if (random() < 0.9) {
      const unit = pick(random, ['bytes=', 'bytes=', 'items=', 'BYTES=', '=', 'bytes', 'bytes =']);
      const n = 1 + Math.floor(random() * 4);
      headers.Range = unit + Array.from({ length: n }, () => pick(random, RANGE_PARTS)).join(',');
    }
    if (random() < 0.05) headers.Range = ['bytes=0-1', pick(random, ['bytes=5-6', '3-4', 'items=1-2'])];
    const size = pick(random, [0, 1, 10, 100, 1000, -1, NaN, '100', undefined, Infinity, 2.5] as unknown[]);
    const opts = pick(random, [
      undefined,
      {},
      { combine: true },
      { combine: false },
      { combine: 1 },
      { strict: true },
      { combine: true, strict: true },
      null,
      'combine',
    ] as unknown[]);
    return {
      label: `req.range(${inspect(size)}, ${inspect(opts)})`,
      headers,
      probes: [
        [`range(${inspect(size)})`, (req) => req.range(size as number)],
        [`range(${inspect(size)}, ${inspect(opts)})`, (req) => req.range(size as number, opts as object)],
      ],
    };
  });
}

const ETAGS = ['"abc"', 'W/"abc"', '"other"', 'abc', '', '*', 'W/"a,b"'];
const DATES = [
  'Wed, 21 Oct 2015 07:28:00 GMT',
  'Wed, 21 Oct 2015 07:27:00 GMT',
  'Wed, 21 Oct 2015 07:29:00 GMT',
  'Thu, 01 Jan 2099 00:00:00 GMT',
  'garbage',
  '',
  '0',
  '2015-10-21T07:28:00Z',
];

function freshCases(count: number, random: Random): Case[] {
  return Array.from({ length: count }, (): Case => {
    const headers: Record<string, string | string[]> = {};
    if (random() < 0.6)
      headers['If-None-Match'] = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(random, ETAGS)).join(
        pick(random, [',', ', ', ' ,']),
      );
    if (random() < 0.5) headers['If-Modified-Since'] = pick(random, DATES);
    // Repeated headers: Node joins If-None-Match lines and keeps the first If-Modified-Since.
    if (random() < 0.1) headers['If-None-Match'] = [pick(random, ETAGS), pick(random, ETAGS)];
    if (random() < 0.05) headers['If-Modified-Since'] = [pick(random, DATES), pick(random, DATES)];
    if (random() < 0.2)
      headers['Cache-Control'] = pick(random, ['no-cache', 'max-age=0', 'public, no-cache', 'no-cache=x', 'NO-CACHE']);
    const method = pick(random, ['GET', 'HEAD', 'POST', 'QUERY', 'PUT', 'OPTIONS']);
    const etag = random() < 0.6 ? pick(random, [...ETAGS, 123] as unknown[]) : undefined;
    const modified = random() < 0.5 ? pick(random, DATES) : undefined;
    const status = pick(random, [200, 200, 201, 204, 299, 300, 304, 404, 500]);
    return {
      label: `${method} status ${status} etag ${inspect(etag)} last-modified ${inspect(modified)}`,
      method,
      headers,
      probes: [
        [
          'fresh',
          (req, res) => {
            res.statusCode = status;
            if (etag !== undefined) res.setHeader('ETag', etag as string);
            if (modified !== undefined) res.setHeader('Last-Modified', modified);
            return req.fresh;
          },
        ],
        ['stale', (req) => req.stale],
      ],
    };
  });
}

/** `trust proxy` settings an app may have (127.0.0.1 is every test request's peer). */
const TRUST_SETTINGS: ReadonlyArray<Record<string, unknown>> = [
  {},
  { 'trust proxy': true },
  { 'trust proxy': false },
  { 'trust proxy': 1 },
  { 'trust proxy': 2 },
  { 'trust proxy': 0 },
  { 'trust proxy': 'loopback' },
  { 'trust proxy': 'loopback, 10.0.0.0/8' },
  { 'trust proxy': ['127.0.0.1', '10.0.0.1'] },
  { 'trust proxy': '10.0.0.0/8' },
  { 'trust proxy': (address: string, hop: number) => address === '127.0.0.1' || hop < 1 },
  { 'trust proxy': true, 'subdomain offset': 0 },
  { 'trust proxy': true, 'subdomain offset': 3 },
  { 'subdomain offset': -1 },
];

const HOSTS: readonly string[] = [
  'example.com',
  'example.com:8080',
  'a.b.c.example.com',
  'A.B.Example.COM',
  'localhost',
  '127.0.0.1',
  '127.0.0.1:3000',
  '[::1]',
  '[::1]:3000',
  '[::1',
  '::1',
  '',
  ':80',
  'tobi.ferrets.example.com.',
  'é.example.com',
  '1.2.3.4.5',
  'a..b',
];

const FORWARDED_FOR: readonly string[] = [
  '10.0.0.1',
  '10.0.0.1, 10.0.0.2',
  '203.0.113.9, 10.0.0.1',
  'unknown',
  '',
  ' 10.0.0.1 ,, 10.0.0.2 ',
  '::1, 10.0.0.3',
  '::ffff:10.0.0.1',
  'not an ip',
  '1.2.3.4:5678',
  '[2001:db8::1]',
  'fe80::1%eth0',
  '\t10.0.0.1',
  '10.0.0.1\t,\t10.0.0.2',
  '10.0.0.256',
  '0:0:0:0:0:ffff:7f00:1',
];

/** Pieces of generated Host values (beyond latin1 they go over a raw socket, as UTF-8 bytes). */
const HOST_PIECES: readonly string[] = ['a', 'b', '.', '-', ':', '80', '[', ']', '::1', 'é', '☃', ' ', ',', '\t', '_'];

function hostValue(random: Random): string {
  return random() < 0.3 ? randomText(random, HOST_PIECES, 8) : pick(random, HOSTS);
}

function proxyCases(count: number, random: Random): Case[] {
  return Array.from({ length: count }, (): Case => {
    const headers: Record<string, string | string[]> = {};
    const host = hostValue(random);
    headers.Host = host;
    if (random() < 0.6)
      headers['X-Forwarded-Host'] =
        random() < 0.2 ? [hostValue(random), hostValue(random)] : pick(random, [...HOSTS, 'a.test, b.test']);
    if (random() < 0.6)
      headers['X-Forwarded-Proto'] =
        random() < 0.2
          ? ['https', 'http']
          : pick(random, ['https', 'http', 'HTTPS', ' https ', 'https, http', 'wss', '', ',https', 'https ,http']);
    if (random() < 0.6)
      headers['X-Forwarded-For'] =
        random() < 0.2 ? [pick(random, FORWARDED_FOR), pick(random, FORWARDED_FOR)] : pick(random, FORWARDED_FOR);
    if (random() < 0.1) headers['X-Requested-With'] = pick(random, ['XMLHttpRequest', 'xmlhttprequest', 'fetch']);
    const app = Math.floor(random() * TRUST_SETTINGS.length);
    return {
      label: `trust setting #${app}`,
      app,
      headers,
      probes: [
        ['hostname', (req) => req.hostname],
        ['subdomains', (req) => req.subdomains],
        ['protocol', (req) => req.protocol],
        ['secure', (req) => req.secure],
        ['ip', (req) => req.ip],
        ['ips', (req) => req.ips],
        ['xhr', (req) => req.xhr],
      ],
    };
  });
}

describe('generated request cases compared with express@4', () => {
  it('req.get and req.header with generated names and headers', async () => {
    await assertSameGenerated(casesApp([{}]), getCases(scaled(900), prng(0x6e7)), options);
  });

  it('req.accepts, acceptsEncodings, acceptsCharsets, acceptsLanguages with generated headers and offers', async () => {
    await assertSameGenerated(casesApp([{}]), acceptsCases(scaled(1800), prng(0xacc)), options);
  });

  it('req.is with generated Content-Type values, bodies and types', async () => {
    await assertSameGenerated(casesApp([{}]), isCases(scaled(1200), prng(0x15)), options);
  });

  it('req.range with generated Range headers, sizes and options', async () => {
    await assertSameGenerated(casesApp([{}]), rangeCases(scaled(1200), prng(0x4a)), options);
  });

  it('req.fresh and req.stale with generated conditional headers, methods and validators', async () => {
    await assertSameGenerated(casesApp([{}]), freshCases(scaled(1200), prng(0xf4)), options);
  });

  it('req.hostname, subdomains, protocol, ip and ips under generated trust proxy settings', async () => {
    await assertSameGenerated(casesApp(TRUST_SETTINGS), proxyCases(scaled(1800), prng(0x7a)), options);
  });
});
