/**
 * The response API driven with generated arguments (seeded, so a failure
 * reproduces): valid, odd and hostile values of every type, each case one
 * request to the same app on express@4 and on webapp, compared whole (status,
 * every header line in order, body, and what an error handler saw of a throw).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import type { Request, Response } from 'express';
import { chance, pick, prng, scaled, type Random } from '../support/prng';
import webapp = require('../../src/index');
import { assertSameGenerated, type Framework } from '../support/generated-differential';
import { oddValue, ODD_STRINGS, randomText } from '../support/odd-values';
import { answersOf } from '../support/generated-answers';
import { reportErrors } from '../support/report-errors';

/** A generated case: what the route does with the request and response. */
type Act = (req: Request, res: Response) => void;

interface Case {
  label: string;
  act: Act;
  /** The case answers later (a file): the route leaves the response to it. */
  later?: boolean;
  /** Request headers and method (default: GET, none). */
  headers?: Record<string, string | string[]>;
  method?: string;
}

/** An app whose route `/c/<n>` runs case n and ends the response if the case did not. */
function caseApp(framework: Framework, cases: readonly Case[], configure?: (app: ReturnType<Framework>) => void) {
  const app = framework();
  app.disable('x-powered-by');
  app.set('env', 'production');
  configure?.(app);
  app.all('/c/:n', (req, res) => {
    const item = cases[Number(req.params.n)];
    item.act(req, res);
    if (!item.later && !res.headersSent) res.end('(not sent)');
  });
  app.use(reportErrors);
  return app as unknown as http.RequestListener;
}

const label = (item: Case) => item.label;

/** Date.now fixed while a test runs: cookies with maxAge get the same Expires on both sides. */
const realNow = Date.now;
const NOW = Date.UTC(2025, 5, 15, 12, 0, 0, 500);

function cookieName(random: Random): string {
  return random() < 0.6 ? pick(random, ['sid', 'a', 'user_id', '__Host-x', 'remember-me']) : pick(random, ODD_STRINGS);
}

function cookieOptions(random: Random): unknown {
  const roll = random();
  if (roll < 0.08) return undefined;
  if (roll < 0.1) return pick(random, [null, 'path=/x', 42, true, []]);
  // Options parsed from JSON with an own `__proto__` key: copying them with for...in sets the copy's prototype.
  if (roll < 0.14)
    return JSON.parse(
      pick(random, [
        '{"__proto__": {"signed": true}}',
        '{"__proto__": {"path": "/p", "maxAge": 1000, "httpOnly": true}}',
        '{"__proto__": {"expires": 0}, "domain": "example.com"}',
        '{"__proto__": null}',
        '{"__proto__": "str"}',
      ]),
    ) as unknown;
  const options: Record<string, unknown> = random() < 0.1 ? Object.create({ path: '/inherited', httpOnly: true }) : {};
  const maybe = (p: number, key: string, values: readonly unknown[]) => {
    if (random() < p) options[key] = pick(random, values);
  };
  maybe(0.35, 'maxAge', [
    0,
    1000,
    1500,
    -1000,
    -1,
    999,
    NaN,
    Infinity,
    -Infinity,
    '1000',
    '1e3',
    ' 60000 ',
    'abc',
    '',
    null,
    undefined,
    true,
    [5000],
    new Date(5000),
    3.6e9,
    1e16,
  ]);
  maybe(0.3, 'expires', [
    new Date(0),
    new Date(1),
    new Date(NOW + 86_400_000),
    new Date(NaN),
    new Date(8.64e15),
    0,
    1e12,
    'Wed, 21 Oct 2015 07:28:00 GMT',
    null,
    undefined,
    true,
    {},
  ]);
  maybe(0.2, 'domain', ['example.com', '.example.com', 'EXAMPLE.com', '', 'bad domain', 'a;b', 'é.com', 1, null]);
  maybe(0.25, 'path', ['/', '/x', '/a b', '', 'x', '/é', '/a;b', null, undefined, 0, false]);
  maybe(0.2, 'secure', [true, false, 1, 0, 'yes', '', null]);
  maybe(0.2, 'httpOnly', [true, false, 1, 0, 'no', null]);
  maybe(0.25, 'sameSite', [true, false, 'lax', 'Lax', 'Strict', 'strict', 'none', 'None', 'bogus', '', 1, null]);
  maybe(0.2, 'priority', ['low', 'Low', 'medium', 'High', 'high', 'bogus', '', 1, null]);
  maybe(0.15, 'partitioned', [true, false, 1, 'yes', null]);
  maybe(0.2, 'signed', [true, false, 1, 0, 'yes', null]);
  maybe(0.1, 'encode', [
    encodeURIComponent,
    (v: string) => v,
    (v: string) => v.toUpperCase(),
    () => 'bad value',
    () => 42,
    'not a function',
  ]);
  return options;
}

function cookieCases(count: number, seed: number): Case[] {
  const random = prng(seed);
  return Array.from({ length: count }, (): Case => {
    const name = cookieName(random);
    const value = random() < 0.5 ? pick(random, ['v', 'hello world', 'a=b', 'é', '']) : oddValue(random);
    const options = cookieOptions(random);
    const secret = pick(random, [undefined, undefined, 'keyboard cat', '', Buffer.from('k')]);
    const twice = random() < 0.1;
    return {
      label:
        `secret ${String(secret)} res.cookie(${show(name)}, ${show(value)}, ${show(options)})` +
        (twice ? ' twice' : ''),
      act: (req, res) => {
        (req as { secret?: unknown }).secret = secret;
        res.cookie(name, value as string, options as object);
        if (twice) res.cookie(name, value as string, options as object);
        res.end('ok');
      },
    };
  });
}

function clearCookieCases(count: number, seed: number): Case[] {
  const random = prng(seed);
  return Array.from({ length: count }, (): Case => {
    const name = cookieName(random);
    const options = cookieOptions(random);
    return {
      label: `res.clearCookie(${show(name)}, ${show(options)})`,
      act: (req, res) => {
        (req as { secret?: unknown }).secret = 'keyboard cat';
        res.clearCookie(name, options as object);
        res.end('ok');
      },
    };
  });
}

/** Header names: ordinary, special to res.set (Content-Type), odd and invalid. */
const HEADER_NAMES = [
  'X-Foo',
  'x-foo',
  'Content-Type',
  'content-type',
  'CONTENT-TYPE',
  'Link',
  'Set-Cookie',
  'set-cookie',
  'ETag',
  'Vary',
  'Location',
  'Cache-Control',
  'Last-Modified',
  'X-Empty',
  '',
  'bad name',
  'é',
  'X\r\nInjected',
  '__proto__',
  'constructor',
] as const;

/** Content-Type values, with and without charset, known and unknown. */
const CONTENT_TYPES = [
  'text/html',
  'TEXT/HTML',
  'text/html; charset=latin1',
  'text/html;charset=utf-8',
  'text/html ; Charset = x',
  'text/plain; foo=bar',
  'application/json',
  'application/javascript',
  'application/x-unknown',
  'image/svg+xml',
  'image/png',
  'text/x-foo',
  'json',
  'html',
  ' text/plain',
  'text/plain ',
  'multipart/form-data; boundary=x',
  'application/vnd.api+json',
] as const;

function headerValue(random: Random): unknown {
  const roll = random();
  if (roll < 0.3) return pick(random, CONTENT_TYPES);
  if (roll < 0.4) return [pick(random, ['a', 'b=1', 'c; Path=/']), oddValue(random)];
  if (roll < 0.45) return Object.assign(Object.create({ inherited: 'x' }), { own: 1 });
  return oddValue(random);
}

/** How a case ends: a body through res.send (which reads Content-Type), or Node's end. */
function finish(random: Random): { name: string; end: (res: Response) => void } {
  return pick(random, [
    { name: 'end', end: (res: Response) => res.end('ok') },
    { name: 'send(string)', end: (res: Response) => res.send('body é') },
    { name: 'send(Buffer)', end: (res: Response) => res.send(Buffer.from('bytes')) },
    { name: 'json', end: (res: Response) => res.json({ ok: 1 }) },
    // What the app itself reads back: names in order (res.getHeaderNames), values as stored.
    {
      name: 'end(stored headers)',
      end: (res: Response) =>
        res.end(inspect({ names: res.getHeaderNames(), headers: res.getHeaders() }, { breakLength: Infinity })),
    },
  ]);
}

function headerCases(count: number, seed: number): Case[] {
  const random = prng(seed);
  return Array.from({ length: count }, (): Case => {
    const steps: Array<{ text: string; run: (res: Response) => void }> = [];
    const stepCount = 1 + Math.floor(random() * 3);
    for (let i = 0; i < stepCount; i++) {
      const name = random() < 0.85 ? pick(random, HEADER_NAMES) : oddValue(random);
      const value = headerValue(random);
      const kind = Math.floor(random() * 5);
      if (kind === 0)
        steps.push({
          text: `set(${show(name)}, ${show(value)})`,
          run: (res) => res.set(name as string, value as string),
        });
      else if (kind === 1)
        steps.push({
          text: `header(${show(name)}, ${show(value)})`,
          run: (res) => res.header(name as string, value as string),
        });
      else if (kind === 2)
        steps.push({
          text: `append(${show(name)}, ${show(value)})`,
          run: (res) => res.append(name as string, value as string),
        });
      else if (kind === 3 && random() < 0.2) {
        const cookieName = pick(random, ['a', 'b']);
        steps.push({ text: `cookie(${cookieName}, ${show(value)})`, run: (res) => res.cookie(cookieName, value) });
      } else if (kind === 3) {
        const fields: Record<string, unknown> = random() < 0.2 ? Object.create({ 'X-Inherited': 'yes' }) : {};
        // A name that cannot be a property key (an array holding a Symbol throws when
        // made one) is given as its printed form.
        fields[typeof name === 'symbol' || typeof name === 'string' ? (name as string) : show(name)] = value;
        if (random() < 0.5) fields[pick(random, HEADER_NAMES)] = headerValue(random);
        steps.push({ text: `set(${show(fields)})`, run: (res) => res.set(fields) });
      } else steps.push({ text: `set(${show(name)})`, run: (res) => (res.set as (f: unknown) => void)(name) });
    }
    const end = finish(random);
    return {
      label: steps.map((step) => step.text).join('.') + ' then ' + end.name,
      act: (_req, res) => {
        for (const step of steps) step.run(res);
        end.end(res);
      },
    };
  });
}

const TYPE_ARGUMENTS: readonly unknown[] = [
  'html',
  '.html',
  'HTML',
  'json',
  'js',
  'png',
  'txt',
  'text',
  'bin',
  'unknownext',
  'tar.gz',
  'file.pdf',
  '/path/to/file.css',
  'a\\b.json',
  '',
  '.',
  'text/html',
  'text/plain; charset=latin1',
  'a/b',
  '/',
  'foo/',
  'image/svg+xml',
  'application/octet-stream',
  'x'.repeat(300),
  'é',
  'json; charset=x',
  new String('json'),
  ['html'],
  ['text/html'],
  [],
  42,
  null,
  undefined,
  true,
  {},
];

function typeCases(count: number, seed: number): Case[] {
  const random = prng(seed);
  return Array.from({ length: count }, (): Case => {
    const arg = random() < 0.85 ? pick(random, TYPE_ARGUMENTS) : oddValue(random);
    const method = random() < 0.5 ? 'type' : 'contentType';
    const end = finish(random);
    return {
      label: `res.${method}(${show(arg)}) then ${end.name}`,
      act: (_req, res) => {
        (res[method] as (t: unknown) => Response)(arg);
        end.end(res);
      },
    };
  });
}

function varyCases(count: number, seed: number): Case[] {
  const random = prng(seed);
  const fields: readonly unknown[] = [
    'Accept',
    'accept',
    'Accept, Origin',
    'Accept,Origin , User-Agent',
    '*',
    'Accept, *',
    '',
    ' ',
    ',',
    'bad field',
    'é',
    ['Accept', 'Origin'],
    ['accept'],
    [],
    ['*'],
    ['bad field'],
    [''],
    null,
    undefined,
    0,
    42,
    true,
  ];
  return Array.from({ length: count }, (): Case => {
    const preset = random() < 0.3 ? pick(random, ['Accept', '*', '', 'Origin, accept', ['A', 'B']]) : undefined;
    const calls = Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
      random() < 0.85 ? pick(random, fields) : oddValue(random),
    );
    return {
      label:
        (preset === undefined ? '' : `set Vary ${show(preset)}, `) + calls.map((c) => `vary(${show(c)})`).join('.'),
      act: (_req, res) => {
        if (preset !== undefined) res.setHeader('Vary', preset);
        for (const field of calls) res.vary(field as string);
        res.end('ok');
      },
    };
  });
}

function linksCases(count: number, seed: number): Case[] {
  const random = prng(seed);
  const rels = ['next', 'last', 'prev', 'a b', '', 'é', '__proto__', 'constructor', '"q"'];
  const urls: readonly unknown[] = [
    'http://x.test/?page=2',
    '/rel',
    '',
    'a>b',
    'é',
    'a\r\nb',
    1,
    null,
    undefined,
    ['a', 'b'],
  ];
  return Array.from({ length: count }, (): Case => {
    const preset = random() < 0.3 ? pick(random, ['<http://a>; rel="up"', '', ['<a>', '<b>']]) : undefined;
    const calls = Array.from({ length: 1 + Math.floor(random() * 2) }, () => {
      const roll = random();
      if (roll < 0.08) return pick(random, [null, undefined, 'str', 42, []] as unknown[]);
      const links: Record<string, unknown> = roll < 0.15 ? Object.create({ inherited: '/i' }) : {};
      const n = Math.floor(random() * 3);
      for (let i = 0; i < n; i++) links[pick(random, rels)] = pick(random, urls);
      return links;
    });
    return {
      label:
        (preset === undefined ? '' : `set Link ${show(preset)}, `) + calls.map((c) => `links(${show(c)})`).join('.'),
      act: (_req, res) => {
        if (preset !== undefined) res.setHeader('Link', preset);
        for (const links of calls) res.links(links as Record<string, string>);
        res.end('ok');
      },
    };
  });
}

const URLS: readonly string[] = [
  '/',
  '/path?q=1#frag',
  'relative/path',
  '../up',
  'back',
  'Back',
  'http://example.com/a b',
  'https://example.com/é',
  '//evil.test/x',
  '/\\evil.test',
  '\\\\evil.test',
  'http://example.com\\@evil.test/',
  '/%2F%2Fevil.test',
  '%E2%82%AC',
  '%zz',
  '100%',
  '/a%2',
  '/☃?x=é',
  '/😀',
  '/\ud800',
  'javascript:alert(1)',
  'http://[::1]:3000/x',
  '/a\tb',
  '/a\r\nSet-Cookie: x=1',
  '/"quoted"<tag>',
  "/it's",
  '/a`b{c}|d^e',
  '',
  ' ',
  'mailto:a@b.c',
  'x'.repeat(2000),
];

/** Pieces of generated URLs: separators, escapes (valid, cut short, invalid), characters a URL may not hold. */
const URL_PIECES: readonly string[] = [
  'a',
  'Z',
  '0',
  '/',
  '//',
  '\\',
  '.',
  '..',
  '%',
  '%2',
  '%41',
  '%2F',
  '%zz',
  '?',
  '#',
  '&',
  '=',
  ' ',
  'é',
  '😀',
  '\ud800',
  '\udc00',
  '"',
  "'",
  '<',
  '>',
  '`',
  '{',
  '|',
  '^',
  '\t',
  '\r\n',
  '\x00',
  ':',
  '@',
  '[',
  ']',
  ';',
  '~',
  '+',
  'http:',
  'javascript:',
];

function locationArgument(random: Random): unknown {
  if (random() < 0.3) return randomText(random, URL_PIECES, 12);
  if (random() < 0.03) return new URL(pick(random, ['http://x.test/a b?q=é', 'https://[::1]:8443/%zz']));
  return random() < 0.85 ? pick(random, URLS) : oddValue(random);
}

const REFERERS: Array<Record<string, string> | undefined> = [
  undefined,
  { Referer: 'http://x.test/from' },
  { Referrer: '/from?a=b c' },
  { Referer: '//evil.test/' },
  { Referer: '' },
  { Referer: 'http://x.test/é' },
];

const ACCEPTS: Array<Record<string, string> | undefined> = [
  undefined,
  { Accept: 'text/html' },
  { Accept: 'text/plain' },
  { Accept: 'application/json' },
  { Accept: 'text/*;q=0.5, text/html' },
  { Accept: '*/*' },
  { Accept: 'image/png' },
  { Accept: 'text/html;q=0' },
];

function redirectCases(count: number, seed: number): Case[] {
  const random = prng(seed);
  const statuses: readonly unknown[] = [
    301,
    302,
    303,
    307,
    308,
    300,
    200,
    299,
    404,
    999,
    100,
    '301',
    301.5,
    NaN,
    0,
    -1,
  ];
  return Array.from({ length: count }, (): Case => {
    const headers = { ...pick(random, REFERERS), ...pick(random, ACCEPTS) };
    const method = random() < 0.15 ? 'HEAD' : 'GET';
    const roll = Math.floor(random() * 5);
    const url = locationArgument(random);
    const status = pick(random, statuses);
    let text: string;
    let run: (res: Response) => void;
    const redirect = (res: Response, ...args: unknown[]) => (res.redirect as (...a: unknown[]) => void)(...args);
    if (roll === 0) {
      text = `location(${show(url)})`;
      run = (res) => {
        res.location(url as string);
        res.end('ok');
      };
    } else if (roll === 1) {
      text = `redirect(${show(url)})`;
      run = (res) => redirect(res, url);
    } else if (roll === 2) {
      text = `redirect(${show(status)}, ${show(url)})`;
      run = (res) => redirect(res, status, url);
    } else if (roll === 3) {
      text = `redirect(${show(url)}, ${show(status)})`;
      run = (res) => redirect(res, url, status);
    } else {
      text = `redirect(${show(status)})`;
      run = (res) => redirect(res, status);
    }
    return { label: `${method} ${text}`, headers, method, act: (_req, res) => run(res) };
  });
}

const FILENAMES: readonly unknown[] = [
  'report.pdf',
  'photo.JPG',
  'archive.tar.gz',
  'no-extension',
  '.hidden',
  'a b.txt',
  'naïve.txt',
  '€ rates.txt',
  '日本語.html',
  '😀.png',
  'quote".txt',
  "it's.txt",
  'back\\slash.txt',
  'dir/sub/file.json',
  '../../etc/passwd',
  '/absolute/name.css',
  'C:\\Windows\\file.txt',
  '%E2%82%AC.txt',
  '100%.txt',
  'semi;colon.txt',
  'comma,name.txt',
  'tab\tname.txt',
  'new\nline.txt',
  '\x00nul.txt',
  '',
  'x'.repeat(300) + '.txt',
  undefined,
  null,
  42,
  true,
  ['a.txt'],
  {},
];

function attachmentCases(count: number, seed: number): Case[] {
  const random = prng(seed);
  return Array.from({ length: count }, (): Case => {
    const filename = random() < 0.9 ? pick(random, FILENAMES) : oddValue(random);
    const end = finish(random);
    return {
      label: `res.attachment(${show(filename)}) then ${end.name}`,
      act: (_req, res) => {
        (res.attachment as (f: unknown) => Response)(filename);
        end.end(res);
      },
    };
  });
}

function downloadCases(count: number, seed: number, file: string): Case[] {
  const random = prng(seed);
  return Array.from({ length: count }, (): Case => {
    let filename = random() < 0.9 ? pick(random, FILENAMES) : oddValue(random);
    // A Buffer where the options may be is left out of the comparison: express@4 makes
    // the send options inherit from it, and `send` reads its `parent` getter on them,
    // which throws inside an fs callback and ends the process (see the test below).
    if (ArrayBuffer.isView(filename)) filename = 'buffer.txt';
    const options = pick(random, [
      undefined,
      {},
      { headers: { 'X-Extra': 'yes', 'content-disposition': 'inline' } },
      { headers: { 'Content-Type': 'text/x-custom' } },
      { maxAge: 1000 },
      { dotfiles: 'allow' },
    ]);
    // (path, name, fn), (path, name, options, fn), (path, options, fn), (path, name)
    const form = Math.floor(random() * 4);
    return {
      label: `form ${form} res.download(<file>, ${show(filename)}, ${show(options)})`,
      later: true,
      act: (req, res) => {
        const done = (err?: Error) => {
          if (err) req.next!(err);
        };
        const download = res.download as (...a: unknown[]) => void;
        if (form === 0) download.call(res, file, filename, done);
        else if (form === 1) download.call(res, file, filename, options, done);
        else if (form === 2) download.call(res, file, options, done);
        else download.call(res, file, filename);
      },
    };
  });
}

const STATUS_CODES_ODD: readonly unknown[] = [
  200,
  201,
  204,
  205,
  206,
  299,
  304,
  400,
  404,
  418,
  451,
  500,
  599,
  600,
  99,
  100,
  1000,
  999,
  0,
  -200,
  200.5,
  '200',
  '404',
  ' 200',
  '2e2',
  'abc',
  '',
  NaN,
  Infinity,
  undefined,
  null,
  true,
  [200],
  new Date(200),
];

/** Conditional request headers that match, miss or are malformed. */
function conditional(random: Random): Record<string, string> {
  const headers: Record<string, string> = {};
  if (random() < 0.4)
    headers['If-None-Match'] = pick(random, [
      '*',
      'W/"7-s4Qv0vX3gR2JWXvBdbYxMFKSBBE"',
      '"7-s4Qv0vX3gR2JWXvBdbYxMFKSBBE"',
      '"mine"',
      'W/"mine", "other"',
      '"x"',
      '',
      'garbage',
    ]);
  if (random() < 0.3)
    headers['If-Modified-Since'] = pick(random, [
      'Wed, 21 Oct 2015 07:28:00 GMT',
      'Wed, 21 Oct 2015 07:27:00 GMT',
      'Thu, 01 Jan 2099 00:00:00 GMT',
      'not a date',
      '',
    ]);
  if (random() < 0.1) headers['Cache-Control'] = pick(random, ['no-cache', 'max-age=0', 'no-store']);
  return headers;
}

const BODIES: readonly unknown[] = [
  'hello',
  'héllo ☃',
  '',
  'x'.repeat(1500),
  'é'.repeat(999),
  'é'.repeat(20000),
  Buffer.from('bytes'),
  Buffer.alloc(0),
  null,
  undefined,
  true,
  false,
  0,
  42,
  201,
  404,
  299,
  { a: 1 },
  [1, 'two'],
  new Date(0),
  NaN,
];

function sendCases(count: number, seed: number): Case[] {
  const random = prng(seed);
  return Array.from({ length: count }, (): Case => {
    const headers = conditional(random);
    const method = pick(random, ['GET', 'GET', 'GET', 'HEAD', 'POST', 'QUERY']);
    const pre: Array<{ text: string; run: (res: Response) => void }> = [];
    if (random() < 0.4) {
      const status = pick(random, STATUS_CODES_ODD);
      pre.push({ text: `status(${show(status)})`, run: (res) => res.status(status as number) });
    }
    if (random() < 0.2) pre.push({ text: `set ETag "mine"`, run: (res) => res.set('ETag', '"mine"') });
    if (random() < 0.2)
      pre.push({
        text: 'set Last-Modified',
        run: (res) => res.set('Last-Modified', 'Wed, 21 Oct 2015 07:28:00 GMT'),
      });
    if (random() < 0.15) {
      const type = pick(random, ['text/plain', 'application/json', 'image/png', 'text/plain; charset=latin1']);
      pre.push({ text: `set Content-Type ${type}`, run: (res) => res.set('Content-Type', type) });
    }
    if (random() < 0.1) {
      // Values only Node's own setHeader stores (a number, a list, an empty string).
      const name = pick(random, ['Content-Type', 'ETag', 'Content-Length', 'content-type']);
      const value = pick(random, [42, ['text/plain', 'text/html'], '', 'TEXT/PLAIN', '"x"'] as unknown[]);
      pre.push({
        text: `setHeader(${name}, ${show(value)})`,
        run: (res) => res.setHeader(name, value as string),
      });
    }
    const roll = Math.floor(random() * 5);
    let text: string;
    let run: (res: Response) => void;
    const call = (res: Response, name: 'send' | 'json' | 'jsonp' | 'sendStatus', ...args: unknown[]) =>
      (res[name] as (...a: unknown[]) => void)(...args);
    const body = random() < 0.85 ? pick(random, BODIES) : oddValue(random);
    const status = pick(random, STATUS_CODES_ODD);
    if (roll === 0) {
      text = `send(${show(body)})`;
      run = (res) => call(res, 'send', body);
    } else if (roll === 1) {
      text = `send(${show(body)}, ${show(status)})`;
      run = (res) => call(res, 'send', body, status);
    } else if (roll === 2) {
      text = `send(${show(status)}, ${show(body)})`;
      run = (res) => call(res, 'send', status, body);
    } else if (roll === 3) {
      text = `sendStatus(${show(status)})`;
      run = (res) => call(res, 'sendStatus', status);
    } else {
      text = `json(${show(body)})`;
      run = (res) => call(res, 'json', body);
    }
    const settings = Math.floor(random() * ETAG_SETTINGS.length);
    return {
      label: `etag setting #${settings} ${method} ${[...pre.map((p) => p.text), text].join('.')}`,
      method,
      headers: { ...headers, 'X-Settings': String(settings) },
      act: (_req, res) => {
        for (const step of pre) step.run(res);
        run(res);
      },
    };
  });
}

/** Not a setting: the app gets a middleware wrapping res.end (settingsApp). */
const WRAP_END = 'wrap res.end';

function wrapEnd(_req: Request, res: Response, next: () => void): void {
  const end = res.end as (...args: unknown[]) => Response;
  res.end = function (this: Response, ...args: unknown[]) {
    const [chunk, encoding] = args;
    const length = (chunk as { length?: unknown } | undefined)?.length;
    if (!this.headersSent) this.setHeader('X-End-Given', `${typeof chunk} ${String(length)} ${String(encoding)}`);
    return end.apply(this, args);
  } as Response['end'];
  next();
}

/** `etag` settings: the built-in generators, none, and functions answering odd tags. */
const ETAG_SETTINGS: ReadonlyArray<Record<string, unknown>> = [
  {},
  { etag: false },
  { etag: 'strong' },
  { etag: 'weak' },
  { etag: (body: Buffer | string, encoding?: string) => `"${typeof body}-${encoding}-${body.length}"` },
  { etag: () => 12345 },
  { etag: () => '' },
  { etag: () => undefined },
  { etag: () => 'W/"caf\u00e9"' },
  { etag: () => ['"a"', '"b"'] },
  // With a wrapper of res.end that reports in a header what it was given (as a logger sees it).
  { [WRAP_END]: true },
  { [WRAP_END]: true, etag: false },
  { [WRAP_END]: true, etag: (body: Buffer | string) => `"${body.length}"` },
];

/** One app per settings object; a request names its app in X-Settings. */
function settingsApp(settings: ReadonlyArray<Record<string, unknown>>) {
  return (fw: Framework, list: readonly Case[]): http.RequestListener => {
    const apps = settings.map((values) =>
      caseApp(fw, list, (app) => {
        for (const [name, value] of Object.entries(values)) {
          if (name === WRAP_END) app.use(wrapEnd);
          else app.set(name, value);
        }
      }),
    );
    return (req, res) => apps[Number(req.headers['x-settings'] ?? 0)](req, res);
  };
}

/** `json replacer`, `json spaces`, `json escape` and `jsonp callback name` settings an app may have. */
const JSON_SETTINGS: ReadonlyArray<Record<string, unknown>> = [
  {},
  { 'json spaces': 2 },
  { 'json spaces': '\t' },
  { 'json spaces': '--' },
  { 'json spaces': -1 },
  { 'json spaces': 20 },
  { 'json escape': true },
  { 'json replacer': (key: string, value: unknown) => (key === 'secret' ? undefined : value) },
  { 'json replacer': ['a', 'html'] },
  { 'json replacer': () => undefined },
  { 'jsonp callback name': 'cb' },
  { 'jsonp callback name': 'a[b]' },
  { 'json escape': true, 'json spaces': 1, 'jsonp callback name': 'jsonp' },
  { 'json spaces': '2' },
  { 'json replacer': 'not a function' },
  { 'jsonp callback name': '__proto__' },
  { 'jsonp callback name': 'constructor' },
  { 'jsonp callback name': 'hasOwnProperty' },
  { 'jsonp callback name': '' },
];

const JSON_VALUES: readonly unknown[] = [
  { html: '<script>&</script>', secret: 's', line: 'a\u2028b\u2029c', a: 1 },
  ['<', '>', '&'],
  'string <b>',
  '\u2028',
  42,
  null,
  undefined,
  true,
  NaN,
  new Date(0),
  { toJSON: () => 'custom' },
  { nested: { deep: [1, { x: undefined }] } },
  JSON.parse('{"__proto__": {"polluted": 1}}'),
  () => 'fn',
];

/** JSONP callback query strings: none, plain, arrays, empty, hostile characters. */
const CALLBACK_QUERIES: readonly string[] = [
  '',
  '?callback=cb',
  '?callback=a.b.c',
  '?callback=cb&callback=other',
  '?callback[]=x',
  '?callback[a]=x',
  '?callback=',
  '?callback=%3Cscript%3E',
  '?callback=alert(1)//',
  '?callback=a%00b',
  '?callback=%E2%80%A8',
  '?callback=a$b_c[0]',
  '?callback=%C3%A9t%C3%A9',
  '?callback=' + 'x'.repeat(500),
  '?cb=fn',
  '?cb=fn&callback=other',
  '?jsonp=j',
  '?callback=a&cb[]=b&jsonp=c',
  '?__proto__=x',
  '?constructor=c&hasOwnProperty=h',
  '?=empty',
  '?callback=a;b',
  '?callback=%F0%9F%98%80',
];

/** Pieces of generated callback names: what a callback may keep, and what must be stripped. */
const CALLBACK_PIECES: readonly string[] = [
  'a',
  'Z',
  '9',
  '_',
  '$',
  '.',
  '[',
  ']',
  '(',
  ')',
  ';',
  '<',
  '/',
  '*',
  '\u2028',
  'é',
  '😀',
  ' ',
  '%',
  '=',
  '&',
];

interface JsonCase {
  label: string;
  settings: number;
  query: string;
  method: string;
  act: Act;
}

function jsonCases(count: number, seed: number): JsonCase[] {
  const random = prng(seed);
  return Array.from({ length: count }, (): JsonCase => {
    const generated = random() < 0.3;
    const value = random() < 0.85 ? pick(random, JSON_VALUES) : oddValue(random);
    const jsonp = random() < 0.6;
    const settings = Math.floor(random() * JSON_SETTINGS.length);
    const query = generated
      ? `?${pick(random, ['callback', 'cb', 'jsonp'])}=` +
        encodeURIComponent(randomText(random, CALLBACK_PIECES, 10).replace(/[\ud800-\udfff]/g, ''))
      : pick(random, CALLBACK_QUERIES);
    const preType = random() < 0.15 ? pick(random, ['text/plain', 'application/vnd.x+json']) : undefined;
    const legacy = random() < 0.1 ? pick(random, [201, 404]) : undefined;
    const method = random() < 0.1 ? 'HEAD' : 'GET';
    const name = jsonp ? 'jsonp' : 'json';
    return {
      label:
        `settings #${settings} ${method} ${query} ${preType ?? ''} ` +
        `res.${name}(${show(value)}${legacy ? ', ' + legacy : ''})`,
      settings,
      query,
      method,
      act: (_req, res) => {
        if (preType) res.type(preType);
        const fn = res[name] as (...a: unknown[]) => void;
        if (legacy) fn.call(res, value, legacy);
        else fn.call(res, value);
      },
    };
  });
}

/** A value as a case's label shows it (whatever it is: an object may inherit from a Buffer). */
function show(value: unknown): string {
  try {
    return showValue(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function showValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? value.slice(0, 60) + '…' : value);
  if (typeof value === 'function') return `[function ${value.name || 'anonymous'}]`;
  if (Object.prototype.toString.call(value) === '[object Date]') return `Date(${(value as Date).getTime()})`;
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol') return value.toString();
  if (value && typeof value === 'object' && !Array.isArray(value) && !Buffer.isBuffer(value)) {
    const entries: string[] = [];
    for (const key in value) entries.push(`${key}: ${show((value as Record<string, unknown>)[key])}`);
    return `{ ${entries.join(', ')} }`;
  }
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
  if (Buffer.isBuffer(value)) return `Buffer(${JSON.stringify(value.toString())})`;
  return String(value);
}

/** Keys of `res.format`'s handlers: extensions, media types with and without parameters, odd text. */
const FORMAT_KEYS: readonly string[] = [
  'json',
  'html',
  'text',
  'txt',
  'xml',
  'png',
  'unknown-ext',
  '.json',
  'JSON',
  'Html',
  'hello.html',
  'text/plain',
  'text/html',
  'TEXT/PLAIN',
  'application/json',
  'application/vnd.api+json',
  'text/html; charset=latin1',
  'text/plain;q=0.5',
  'text/plain ; charset=utf-8',
  'image/*',
  'text/*',
  '*/*',
  'dir/file.json',
  'a/b/c',
  '/',
  'text/',
  '',
  ' json',
  'json ',
  'constructor',
  'toString',
];

/** Pieces of an Accept header, joined by commas. */
const FORMAT_ACCEPT_PARTS: readonly string[] = [
  'text/html',
  'application/json',
  'text/plain',
  '*/*',
  'text/*',
  'image/png',
  'application/*;q=0.5',
  'text/plain;q=0',
  'text/html;level=1',
  'application/json;q=0.9',
  'TEXT/HTML',
  'text/html;q=abc',
  'text/html;q=',
  '*/*;q=0.1',
  'application/xml',
  'foo',
  '',
  ';',
  'text/html;charset=latin1',
  'application/vnd.api+json',
  'text/plain; q=1.0',
  '*',
  'x/y;q=2',
];

/** What a `default` handler may be: absent, a function, or another value. */
type FormatDefault = 'none' | 'function' | 'throws' | 'truthy value' | 'falsy value';

/**
 * `res.format` with generated handler keys, `default`s and Accept headers. The 406
 * error, or whatever a handler threw, is written by a `req.next` of the case's own
 * (res.format calls the request's `next`), with the fields Express gives it.
 */
function formatCases(count: number, seed: number): Case[] {
  const random = prng(seed);
  return Array.from({ length: count }, (): Case => {
    const keys = Array.from({ length: Math.floor(random() * 4) }, () => pick(random, FORMAT_KEYS));
    const notFunction = keys.length > 0 && chance(random, 0.05) ? pick(random, keys) : undefined;
    const inherited = chance(random, 0.1);
    const fallback = pick<FormatDefault>(random, ['none', 'none', 'function', 'throws', 'truthy value', 'falsy value']);
    const accept = chance(random, 0.15)
      ? undefined
      : Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(random, FORMAT_ACCEPT_PARTS)).join(
          pick(random, [', ', ',', ' , ']),
        );
    const preset = chance(random, 0.15) ? pick(random, ['vary', 'type'] as const) : undefined;
    const end = finish(random);
    const method = chance(random, 0.1) ? 'HEAD' : 'GET';
    return {
      label:
        `${method} ${preset ? `after ${preset}, ` : ''}format(${show(keys)}${inherited ? ' inherited' : ''}, ` +
        `default ${fallback}${notFunction !== undefined ? `, ${show(notFunction)} not a function` : ''}) ` +
        `then ${end.name}`,
      method,
      headers: accept === undefined ? {} : { Accept: accept },
      act: (req, res) => {
        if (preset === 'vary') res.vary('Origin');
        if (preset === 'type') res.type('text/csv');
        const handlers: Record<string, unknown> = inherited ? Object.create({ xml: () => res.end('inherited') }) : {};
        for (const key of keys)
          handlers[key] = function handler(this: unknown, ...args: unknown[]) {
            res.setHeader('X-Chosen', JSON.stringify({ key, args: args.length, bound: this === handlers }));
            end.end(res);
          };
        if (notFunction !== undefined) handlers[notFunction] = 'not a function';
        if (fallback === 'function')
          handlers.default = (...args: unknown[]) => res.status(406).send(`default, ${args.length} arguments`);
        if (fallback === 'throws')
          handlers.default = () => {
            throw new Error('default threw');
          };
        if (fallback === 'truthy value') handlers.default = 'yes';
        if (fallback === 'falsy value') handlers.default = 0;
        req.next = (err?: unknown) => {
          const error = err as Record<string, unknown>;
          res.statusCode = 599;
          res.end(
            JSON.stringify({
              message: error?.message,
              status: error?.status,
              statusCode: error?.statusCode,
              expose: error?.expose,
              types: error?.types,
              own: error ? Object.keys(error) : null,
            }),
          );
        };
        res.format(handlers as Parameters<Response['format']>[0]);
      },
    };
  });
}

describe('generated response cases compared with express@4', () => {
  // Thousands of deprecated calls: their notices are not what is compared here.
  const deprecations = process.noDeprecation;
  before(() => {
    Date.now = () => NOW;
    process.noDeprecation = true;
  });
  after(() => {
    Date.now = realNow;
    process.noDeprecation = deprecations;
  });

  it('res.cookie with generated names, values, options and secrets', async () => {
    const cases = cookieCases(scaled(1500), 0xc00c1e);
    await assertSameGenerated((fw, list) => caseApp(fw, list), cases, { describe: label });
  });

  it('res.clearCookie with generated options (maxAge and expires still applied, as in 4.22)', async () => {
    const cases = clearCookieCases(scaled(900), 0xc1ea5);
    await assertSameGenerated((fw, list) => caseApp(fw, list), cases, { describe: label });
  });

  const request = (item: Case, index: number) => ({ path: `/c/${index}`, method: item.method, headers: item.headers });

  it('res.set, res.header and res.append with generated names and values', async () => {
    const cases = headerCases(scaled(1500), 0x5e7);
    await assertSameGenerated((fw, list) => caseApp(fw, list), cases, { describe: label });
  });

  it('res.type and res.contentType with extensions, media types and other values', async () => {
    const cases = typeCases(scaled(900), 0x7e9e);
    await assertSameGenerated((fw, list) => caseApp(fw, list), cases, { describe: label });
  });

  it('res.vary and res.links with generated fields and links', async () => {
    const cases = [...varyCases(scaled(600), 0xa7), ...linksCases(scaled(600), 0x11c)];
    await assertSameGenerated((fw, list) => caseApp(fw, list), cases, { describe: label });
  });

  it('res.location and res.redirect with generated URLs, statuses and argument orders', async () => {
    const cases = redirectCases(scaled(1500), 0x7ed1);
    await assertSameGenerated((fw, list) => caseApp(fw, list), cases, { describe: label, request });
  });

  it('res.attachment and res.download with generated file names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapp-generated-'));
    const file = join(dir, 'data.txt');
    writeFileSync(file, 'file body\n');
    utimesSync(file, new Date(1e12), new Date(1e12));
    try {
      const cases = [...attachmentCases(scaled(900), 0xa77), ...downloadCases(scaled(300), 0xd0, file)];
      await assertSameGenerated((fw, list) => caseApp(fw, list), cases, { describe: label });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('res.download(path, aBuffer) sends the file where express@4 ends the process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapp-generated-'));
    const file = join(dir, 'data.txt');
    writeFileSync(file, 'file body\n');
    try {
      const app = webapp();
      app.get('/', (_req, res) => (res.download as (...a: unknown[]) => void)(file, Buffer.from('buf')));
      const [answer] = await answersOf(app as unknown as http.RequestListener, [{ path: '/' }], { raw: true });
      assert.equal(answer.status, 200);
      assert.equal(answer.body, 'file body\n');
      assert.deepEqual(
        answer.headers.find(([name]) => name === 'content-disposition'),
        ['content-disposition', 'attachment; filename="data.txt"'],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('res.status, res.send, res.sendStatus, res.json: generated statuses, bodies, conditional requests', async () => {
    const cases = sendCases(scaled(1800), 0x5e4d);
    await assertSameGenerated(settingsApp(ETAG_SETTINGS), cases, { describe: label, request });
  });

  it('res.format with generated handler keys, defaults and Accept headers', async () => {
    const cases = formatCases(scaled(1200), 0xf0a7);
    await assertSameGenerated((fw, list) => caseApp(fw, list), cases, { describe: label, request });
  });

  it('res.json and res.jsonp under generated JSON settings and callback queries', async () => {
    const cases = jsonCases(scaled(1500), 0x15);
    const define = (fw: Framework, list: readonly JsonCase[]) =>
      settingsApp(JSON_SETTINGS)(fw, list as unknown as Case[]);
    await assertSameGenerated(define, cases, {
      describe: (item) => item.label,
      request: (item, index) => ({
        path: `/c/${index}${item.query}`,
        method: item.method,
        headers: { 'X-Settings': String(item.settings) },
      }),
    });
  });
});
