/**
 * Generated `res.sendFile`, `res.download` and `res.attachment` cases (seeded, so a
 * failure reproduces; WEBAPP_TEST_SEED draws other cases): each case is one handler
 * built on express@4 and on webapp from the same description (a path in one of many
 * forms, with or without `root`; generated options and headers; the download's name
 * and options in either position; a callback or none, and what it does) and one
 * generated request (HEAD, Range, If-Range and the conditional headers). Status,
 * headers (X-Powered-By for presence only), body, and what the callbacks and error
 * handlers noted (each error's name, message, code, status, path...) must match.
 * Then the same kind of cases pipelined four to a connection, clients that leave
 * mid-body, and two files sent into one response.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { inspect } from 'node:util';
import express from 'express';
import webapp = require('../../src/index');
import { withoutStackFrames, type Framework } from '../support/differential';
import {
  answersOf,
  assertNoDifferences,
  brandHidden,
  isDeepStrictEqual,
  show,
  type Answer,
} from '../support/generated-answers';
import { chance, pick, prng, type Random } from '../support/prng';
import { captureStderrOf } from '../support/capture-stderr';
import { withServer, type RawResponse, type RequestSpec } from '../support/raw-http';

type Any = any;

// ---------------------------------------------------------------------------
// The files: names with spaces, `%`, unicode, quotes; dotfiles; directories; one
// file past the size webapp reads in one call (streamed), one large enough that a
// client can leave in the middle; a secret beside the root.

const FILE_TIME = new Date('2021-03-04T05:06:07Z');
const MEDIUM = 100 * 1024;
const LARGE = 8 * 1024 * 1024;

const FILES: Record<string, string | Buffer> = {
  'plain.txt': '0123456789abcdef',
  'page.html': '<p>page</p>',
  'data.json': '{"a":1}',
  'style.css': 'p{}',
  noext: 'no extension',
  'empty.txt': '',
  'with space.txt': 'spaced',
  '% of 100.txt': 'percent',
  'a%20b.txt': 'a literal escape',
  'café ☃.txt': 'unicode',
  'quote"d.txt': 'a quote',
  "it's;x.txt": 'an apostrophe',
  '.hidden': 'hidden',
  '.dotdir/inside.txt': 'in a dot directory',
  'dir/index.html': '<p>dir index</p>',
  'dir/nested.txt': 'nested',
  'dir/.inner': 'inner dotfile',
  'medium.bin': Buffer.from(Array.from({ length: MEDIUM }, (_, i) => i % 251)),
};

let base = '';
let root = '';

function writeFiles(): void {
  base = mkdtempSync(join(tmpdir(), 'webapp-gen-files-'));
  root = join(base, 'root');
  for (const [name, content] of Object.entries(FILES)) {
    const path = join(root, name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, content);
    utimesSync(path, FILE_TIME, FILE_TIME);
  }
  mkdirSync(join(root, 'emptydir'));
  // Links: out of the root, to a directory, to nowhere, to themselves (ELOOP).
  symlinkSync('../secret.txt', join(root, 'link-out.txt'));
  symlinkSync('dir', join(root, 'link-dir'));
  symlinkSync('nowhere.txt', join(root, 'dangling.txt'));
  symlinkSync('loop.txt', join(root, 'loop.txt'));
  writeFileSync(join(base, 'secret.txt'), 'SECRET');
  utimesSync(join(base, 'secret.txt'), FILE_TIME, FILE_TIME);
  writeFileSync(join(root, 'large.bin'), Buffer.alloc(LARGE, 'x'));
}

/** The temporary directory's name (random) hidden from what is compared. */
const short = (text: string) => (base ? text.split(base).join('<tmp>') : text);

/** The weak tag send makes for a file of `size` bytes of the tree. */
const tagOf = (size: number) => `W/"${size.toString(16)}-${FILE_TIME.getTime().toString(16)}"`;

// ---------------------------------------------------------------------------
// The description of a case: plain data, built once per framework.

/** The name a case asks for, below the root; `..`, escapes and directories included. */
const TARGETS: readonly string[] = [
  'plain.txt',
  'plain.txt',
  'plain.txt',
  'plain.txt',
  'page.html',
  'data.json',
  'style.css',
  'noext',
  'empty.txt',
  'medium.bin',
  'medium.bin',
  'with space.txt',
  '% of 100.txt',
  'a%20b.txt',
  'café ☃.txt',
  'quote"d.txt',
  "it's;x.txt",
  '.hidden',
  '.dotdir/inside.txt',
  '.dotdir',
  'dir/.inner',
  'dir/nested.txt',
  'dir',
  'dir/',
  'emptydir',
  'emptydir/',
  'missing.txt',
  'missing',
  'dir/../plain.txt',
  'dir/./nested.txt',
  'dir//nested.txt',
  './plain.txt',
  '.dotdir/../plain.txt',
  '../secret.txt',
  'dir/../../secret.txt',
  'plain.txt/',
  'plain.txt/x',
  'with%20space.txt',
  'caf%C3%A9 ☃.txt',
  'plain.txt\0.html',
  'plain.txt?x=1',
  'plain.txt#frag',
  'lone \ud800 surrogate.txt',
  'link-out.txt',
  'link-dir',
  'link-dir/',
  'link-dir/nested.txt',
  'dangling.txt',
  'loop.txt',
  'plain',
  'page',
  'inside.txt',
  'x'.repeat(300),
  '..\\secret.txt',
  '',
];

/** Paths that are not strings, in place of the generated one now and then. */
const ODD_PATHS: readonly unknown[] = [undefined, null, 42, ['plain.txt'], { toString: () => 'plain.txt' }];

/**
 * How the path reaches the call: `absolute` joined by hand (so `..` stays as
 * written); `root` the name with a `root` option (absolute, with a trailing slash,
 * relative to the working directory); `root-slash` a leading `/` under a root;
 * `relative` the name alone, no root; `cwd-relative` relative to the working
 * directory, no root.
 */
type PathForm = 'absolute' | 'root' | 'root/' | 'root-cwd' | 'root-slash' | 'relative' | 'cwd-relative';

const PATH_FORMS: readonly PathForm[] = [
  'absolute',
  'absolute',
  'absolute',
  'root',
  'root',
  'root',
  'root/',
  'root-cwd',
  'root-slash',
  'relative',
  'cwd-relative',
  'cwd-relative',
];

type Call =
  | 'sendFile'
  | 'sendFile(cb)'
  | 'sendFile(opts)'
  | 'sendFile(opts, cb)'
  | 'download'
  | 'download(cb)'
  | 'download(name)'
  | 'download(name, cb)'
  | 'download(name, opts)'
  | 'download(name, opts, cb)'
  | 'download(opts)'
  | 'download(opts, cb)'
  | 'download(null, opts, cb)'
  | 'download(undefined, opts)'
  | 'attachment+sendFile'
  | 'attachment+send'
  | 'attachment+end';

const CALLS: readonly Call[] = [
  'sendFile',
  'sendFile(cb)',
  'sendFile(opts)',
  'sendFile(opts)',
  'sendFile(opts, cb)',
  'sendFile(opts, cb)',
  'sendFile(opts, cb)',
  'download',
  'download(cb)',
  'download(name)',
  'download(name, cb)',
  'download(name, opts)',
  'download(name, opts, cb)',
  'download(name, opts, cb)',
  'download(opts)',
  'download(opts, cb)',
  'download(null, opts, cb)',
  'download(undefined, opts)',
  'attachment+sendFile',
  'attachment+sendFile',
  'attachment+send',
  'attachment+end',
];

/** Names offered for the download (the filename argument, `res.attachment`'s). */
const DOWNLOAD_NAMES: readonly unknown[] = [
  undefined,
  'report.txt',
  'report.pdf',
  'dir/sub/name.json',
  'naïve café.txt',
  '€ rates 日本.csv',
  'the "quoted" name.txt',
  "it's.html",
  '100%25.txt',
  '50% off.txt',
  'semi;colon,comma.txt',
  'back\\slash.txt',
  'tab\tname.txt',
  'no-extension',
  '.dotname',
  '',
  'UPPER.TXT',
  'dir/',
  '..',
  'cr\r\nlf.txt',
  'nul\0.txt',
  'é'.repeat(200) + '.txt',
  'lone \udc00.txt',
  null,
  42,
  ['list.txt'],
];

/**
 * What the callback does: `report` answers with what it got (or notes it, the head
 * being out), `next` passes an error on, `send` answers whatever it got, `fallback`
 * sends another file on an error, `next-direct` is `next` itself.
 */
type CallbackKind = 'report' | 'next' | 'send' | 'fallback' | 'next-direct';

/** Headers the handler sets before the call. */
const PRESETS: ReadonlyArray<[string, string | number]> = [
  ['Content-Type', 'text/x-preset'],
  ['ETag', '"preset"'],
  ['Cache-Control', 'private'],
  ['Last-Modified', 'Sat, 01 Jan 2000 00:00:00 GMT'],
  ['Content-Disposition', 'inline'],
  ['X-Preset', 'yes'],
  ['status', 201],
  ['status', 404],
  ['status', 500],
  ['status', 304],
  ['status', 204],
  ['status', 206],
  ['Content-Range', 'bytes 0-0/1'],
  ['Content-Length', '5'],
  ['write', 'early;'],
];

/** Entries of the `headers` option (names in any case, values that override the file's). */
const HEADER_OPTIONS: ReadonlyArray<[string, string | string[] | number]> = [
  ['X-Custom', 'yes'],
  ['Content-Type', 'text/x-custom'],
  ['content-type', 'application/x-lower'],
  ['Cache-Control', 'no-store'],
  ['ETag', '"fixed"'],
  ['Last-Modified', 'Wed, 01 Jan 2020 00:00:00 GMT'],
  ['Content-Disposition', 'inline'],
  ['content-disposition', 'inline; filename="x.txt"'],
  ['Accept-Ranges', 'none'],
  ['X-Multi', ['a', 'b']],
  ['X-Number', 42],
  ['Content-Length', '3'],
];

const MAX_AGES: readonly (number | string)[] = [
  0,
  1000,
  1500,
  60_000,
  -1000,
  1e12,
  '1d',
  '2 hours',
  '10s',
  '1y',
  'nonsense',
  '0',
  '1000',
  '1.5h',
  '-1d',
  ' 1d',
  '1 d',
  '1D',
  '1e3',
  'Infinity',
  '100 years',
  '1w',
  '.5s',
  '5.',
  '10 msecs',
  Infinity,
  NaN,
  2.5e3,
];

interface Case {
  call: Call;
  target: string;
  form: PathForm;
  options: Record<string, unknown>;
  /** The path when not a string (ODD_PATHS), instead of `target`. */
  oddPath?: unknown;
  /** The download's name argument, or the name given to `res.attachment`. */
  name: unknown;
  callback: CallbackKind;
  presets: Array<[string, string | number]>;
  errors: 'handler' | 'final';
  env: 'production' | 'development';
  etag: 'unset' | false | 'strong' | 'weak';
  request: RequestSpec;
}

function optionsFor(random: Random): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  if (chance(random, 0.15)) options.dotfiles = pick(random, ['allow', 'deny', 'ignore']);
  if (chance(random, 0.25)) {
    const headers: Record<string, unknown> = {};
    const count = 1 + Math.floor(random() * 3);
    for (let i = 0; i < count; i++) {
      const [name, value] = pick(random, HEADER_OPTIONS);
      headers[name] = value;
    }
    options.headers = headers;
  }
  if (chance(random, 0.2)) options.maxAge = pick(random, MAX_AGES);
  if (chance(random, 0.04)) options.maxage = pick(random, ['1h', 5000]);
  const flag = () => (chance(random, 0.8) ? false : pick(random, [0, 1, 'false', null, '']));
  if (chance(random, 0.12)) options.immutable = pick(random, [true, false, 1, 'yes']);
  if (chance(random, 0.1)) options.cacheControl = flag();
  if (chance(random, 0.1)) options.lastModified = flag();
  if (chance(random, 0.1)) options.etag = flag();
  if (chance(random, 0.1)) options.acceptRanges = flag();
  // send's legacy `from` (a root when there is none) and odd roots.
  if (chance(random, 0.03)) options.from = pick(random, ['<root>', '/', '<base>']);
  if (chance(random, 0.02))
    options.root = pick(random, ['', 0, '<base>/root/../root', '<root>/dir', '<root>/.dotdir', '<root>/link-dir']);
  if (chance(random, 0.05)) options.index = pick(random, [false, 'nested.txt', ['missing.html', 'index.html']]);
  if (chance(random, 0.05)) options.extensions = pick(random, [['txt'], ['html', 'txt']]);
  return options;
}

const RANGES: readonly string[] = [
  'bytes=0-3',
  'bytes=0-0',
  'bytes=-4',
  'bytes=10-',
  'bytes=0-1,4-5',
  'bytes=0-1,1-2',
  'bytes=0-1,-2',
  'bytes=100000-102399',
  'bytes=200000-300000',
  'bytes=5-2',
  'bytes=abc',
  'bytes=',
  'bytes=-0',
  'items=0-1',
  'bytes= 1-2',
];

const DATES: readonly string[] = [
  FILE_TIME.toUTCString(),
  new Date(FILE_TIME.getTime() - 60_000).toUTCString(),
  new Date(FILE_TIME.getTime() + 60_000).toUTCString(),
  'Sat, 01 Jan 2000 00:00:00 GMT',
  'not a date',
  'Thu, 04 Mar 2021 05:06:07',
  '2021-03-04T05:06:08Z',
  '0',
  '',
];

/** Entity tags a request may hold: the weak tags send makes for files of the tree, and others. */
const TAGS: readonly string[] = [
  '*',
  tagOf(16),
  tagOf(16),
  tagOf(MEDIUM),
  tagOf(11),
  tagOf(16).slice(2),
  `W/"nope", ${tagOf(16)}`,
  '"fixed"',
  '"preset"',
  '"nope"',
  'garbage',
  'W/',
  '""',
  `W/${tagOf(16)}`,
  tagOf(16).toLowerCase(),
];

/** A Range value put together from pieces: odd units, spaces, huge and negative numbers, many ranges. */
function composedRange(random: Random): string {
  const bound = () =>
    pick(random, ['', '0', '1', '3', '15', '16', '17', '102399', '102400', '99999999999999999999', '-1', ' 2']);
  const count = 1 + Math.floor(random() * (chance(random, 0.1) ? 40 : 3));
  const ranges = Array.from({ length: count }, () => `${bound()}-${bound()}`);
  const unit = pick(random, ['bytes=', 'bytes=', 'bytes=', 'Bytes=', 'bytes =', 'bytes= ', 'bytes']);
  return unit + ranges.join(pick(random, [',', ', ', ' , ', ',,']));
}

/** A list of entity tags put together from the tree's weak and strong tags and odd pieces. */
function composedTags(random: Random): string {
  const count = 1 + Math.floor(random() * 3);
  const tags = Array.from({ length: count }, () => pick(random, TAGS));
  return tags.join(pick(random, [',', ', ', ' ,', ',  ', '\t,']));
}

function requestFor(random: Random, n: number): RequestSpec {
  const headers: Record<string, string> = {};
  const tags = () => (chance(random, 0.7) ? pick(random, TAGS) : composedTags(random));
  if (chance(random, 0.3)) headers.Range = chance(random, 0.6) ? pick(random, RANGES) : composedRange(random);
  if (chance(random, 0.12)) headers['If-Range'] = chance(random, 0.5) ? pick(random, DATES) : tags();
  if (chance(random, 0.15)) headers['If-None-Match'] = tags();
  if (chance(random, 0.15)) headers['If-Modified-Since'] = pick(random, DATES);
  if (chance(random, 0.08)) headers['If-Match'] = tags();
  if (chance(random, 0.08)) headers['If-Unmodified-Since'] = pick(random, DATES);
  if (chance(random, 0.04)) headers['Cache-Control'] = pick(random, ['no-cache', 'max-age=0', 'public, no-cache']);
  const method = chance(random, 0.8) ? 'GET' : pick(random, ['HEAD', 'HEAD', 'HEAD', 'POST', 'OPTIONS']);
  return { method, path: `/c/${n}`, headers };
}

function generateCase(random: Random, n: number): Case {
  const call = pick(random, CALLS);
  const presets: Array<[string, string | number]> = [];
  if (chance(random, 0.12)) presets.push(pick(random, PRESETS));
  if (chance(random, 0.04)) presets.push(pick(random, PRESETS));
  return {
    call,
    target: pick(random, TARGETS),
    oddPath: chance(random, 0.02) ? pick(random, ODD_PATHS) : undefined,
    form: pick(random, PATH_FORMS),
    options: optionsFor(random),
    name: pick(random, DOWNLOAD_NAMES),
    callback: pick(random, ['report', 'report', 'report', 'next', 'send', 'fallback', 'next-direct'] as const),
    presets,
    errors: chance(random, 0.7) ? 'handler' : 'final',
    env: chance(random, 0.7) ? 'production' : 'development',
    etag: pick(random, ['unset', 'unset', false, 'strong', 'weak'] as const),
    request: requestFor(random, n),
  };
}

// ---------------------------------------------------------------------------
// Building a case on one framework.

/** What callbacks and error handlers noted, per case, on each side. */
type Notes = Map<number, string[]>;

/** An error as an app sees it: its class and message, and every field send and Express give it. */
function describeError(err: Any): string {
  if (err === null || typeof err !== 'object') return `${typeof err}: ${String(err)}`;
  const fields = ['code', 'status', 'statusCode', 'expose', 'path', 'syscall', 'errno', 'headers'].map(
    (field) => `${field}=${inspect(err[field], { breakLength: Infinity })}`,
  );
  const keys = Object.keys(err).sort().join(',');
  return short(`${err.name}: ${err.message} ${fields.join(' ')} keys=${keys} instanceof=${err instanceof Error}`);
}

/** The path as the case's form hands it over, and the `root` option it needs. */
function pathOf(item: Case): { path: Any; root?: string } {
  const full = root + '/' + item.target;
  if (item.oddPath !== undefined) return { path: item.oddPath };
  switch (item.form) {
    case 'absolute':
      return { path: full };
    case 'root':
      return { path: item.target, root };
    case 'root/':
      return { path: item.target, root: root + '/' };
    case 'root-cwd':
      return { path: item.target, root: relative(process.cwd(), root) };
    case 'root-slash':
      return { path: '/' + item.target, root };
    case 'relative':
      return { path: item.target };
    case 'cwd-relative':
      return { path: relative(process.cwd(), full) + (item.target.endsWith('/') ? '/' : '') };
  }
}

const placeholders = (value: unknown) =>
  typeof value === 'string' ? value.replace('<root>', root).replace('<base>', base) : value;

/** The call's options, a copy per request (Express's download wraps them, send reads them). */
function optionsOf(item: Case, rootOption: string | undefined): Record<string, unknown> {
  const options: Record<string, unknown> = { ...item.options };
  if (rootOption !== undefined) options.root = rootOption;
  // A root of the options' own (odd ones) wins over the path form's.
  if ('root' in item.options) options.root = placeholders(item.options.root);
  if ('from' in item.options) options.from = placeholders(item.options.from);
  return options;
}

function handlerOf(item: Case, notes: string[]) {
  return (_req: Any, res: Any, next: Any) => {
    const { path, root: rootOption } = pathOf(item);
    const options = optionsOf(item, rootOption);
    const callback = (err?: Any) => {
      const outcome = err ? describeError(err) : String(err);
      notes.push(`callback(${outcome}) headersSent=${res.headersSent}`);
      if (item.callback === 'next') return err ? next(err) : undefined;
      if (item.callback === 'next-direct') return next(err);
      // An error once the head is out (something was written before): the response is ended.
      if (res.headersSent) return void (err && !res.writableEnded && res.end(' ended by the callback'));
      if (item.callback === 'fallback') return err ? res.sendFile(root + '/page.html') : undefined;
      if (item.callback === 'send') res.send(`callback: ${outcome}`);
      else if (err) res.status(typeof err.status === 'number' ? err.status : 500).end(`callback: ${outcome}`);
    };
    for (const [name, value] of item.presets) {
      if (name === 'status') res.status(value);
      else if (name === 'write') res.write(value);
      else res.set(name, value);
    }
    const download = (...args: unknown[]) => res.download(path, ...args);
    switch (item.call) {
      case 'sendFile':
        // Options are needed for a root: without them the call throws (as on Express).
        return rootOption !== undefined ? res.sendFile(path, options) : res.sendFile(path);
      case 'sendFile(cb)':
        return rootOption !== undefined ? res.sendFile(path, options, callback) : res.sendFile(path, callback);
      case 'sendFile(opts)':
        return res.sendFile(path, options);
      case 'sendFile(opts, cb)':
        return res.sendFile(path, options, callback);
      case 'download':
        return rootOption !== undefined ? download(options) : download();
      case 'download(cb)':
        return download(callback);
      case 'download(name)':
        return download(item.name);
      case 'download(name, cb)':
        return download(item.name, callback);
      case 'download(name, opts)':
        return download(item.name, options);
      case 'download(name, opts, cb)':
        return download(item.name, options, callback);
      case 'download(opts)':
        return download(options);
      case 'download(opts, cb)':
        return download(options, callback);
      case 'download(null, opts, cb)':
        return download(null, options, callback);
      case 'download(undefined, opts)':
        return download(undefined, options);
      case 'attachment+sendFile':
        return res.attachment(item.name).sendFile(path, options, callback);
      case 'attachment+send':
        return res.attachment(item.name).send(`sent as ${String(item.name)}`);
      case 'attachment+end':
        return res.attachment(item.name).end();
    }
  };
}

function errorHandler(notes: string[]) {
  return (err: Any, _req: Any, res: Any, _next: Any) => {
    notes.push(`handler(${describeError(err)}) headersSent=${res.headersSent}`);
    if (res.headersSent) return void res.end();
    res.status(typeof err?.status === 'number' ? err.status : 500);
    res.setHeader('Content-Type', 'text/plain');
    res.end(`handler: ${describeError(err)}`);
  };
}

function buildCase(framework: Framework, item: Case, notes: string[]): http.RequestListener {
  const app: Any = framework();
  app.set('env', item.env);
  if (item.etag !== 'unset') app.set('etag', item.etag);
  app.all('/c/:n', handlerOf(item, notes));
  if (item.errors === 'handler') app.use(errorHandler(notes));
  return app;
}

/** One server per framework: `/c/<n>` goes to case n's app. */
function caseServer(framework: Framework, cases: readonly Case[], notes: Notes): http.RequestListener {
  const apps = cases.map((item, n) => {
    const list: string[] = [];
    notes.set(n, list);
    return buildCase(framework, item, list);
  });
  return (req, res) => {
    const n = Number(/^\/c\/(\d+)/.exec(req.url ?? '')?.[1]);
    // A request neither side answers would hang the run: it answers this instead.
    const watchdog = setTimeout(() => {
      if (!res.headersSent) res.end('(no answer)');
      else res.destroy();
    }, 2000);
    res.on('close', () => clearTimeout(watchdog));
    apps[n](req, res);
  };
}

/** X-Powered-By for presence; a development error page's stack frames (each framework's files) cut. */
function normalized(answer: Answer): Answer {
  const cut = withoutStackFrames({ status: answer.status, headers: {}, body: answer.body } as RawResponse);
  const headers = brandHidden(answer.headers);
  // A HEAD answer of the final handler's page has no body to cut, only the length.
  const page = answer.body === '' && headers.some(([name]) => name === 'content-security-policy');
  return {
    status: answer.status,
    headers: cut.body !== answer.body || page ? headers.filter(([name]) => name !== 'content-length') : headers,
    body: short(cut.body),
  };
}

function describeCase(item: Case): string {
  return show(item, 120, 4);
}

/** Waits for what comes after an answer (a callback told of the end of a response). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

async function compareCases(cases: readonly Case[]): Promise<void> {
  const requests = cases.map((item) => item.request);
  // The final handler logs errors outside `test`: not compared.
  const run = async (framework: Framework, notes: Notes) =>
    (
      await captureStderrOf(async () => {
        const answers = await answersOf(caseServer(framework, cases, notes), requests);
        await settle();
        return answers;
      })
    ).result;
  const expectedNotes: Notes = new Map();
  const actualNotes: Notes = new Map();
  const expected = await run(express, expectedNotes);
  const actual = await run(webapp as unknown as Framework, actualNotes);
  const differences: string[] = [];
  for (let n = 0; n < cases.length; n++) {
    const want = { answer: normalized(expected[n]), notes: expectedNotes.get(n) };
    const got = { answer: normalized(actual[n]), notes: actualNotes.get(n) };
    if (!isDeepStrictEqual(got, want))
      differences.push(
        `#${n} ${describeCase(cases[n])}\n` + `  express: ${show(want, 400, 4)}\n` + `  webapp:  ${show(got, 400, 4)}`,
      );
  }
  assertNoDifferences(differences, cases.length, 'generated file cases differ from express@4');
}

/**
 * Writes `requests` at once on one connection (the last asks to close it) and resolves
 * with all the server wrote, as latin1 text, Date lines left out and X-Powered-By's value hidden.
 */
function pipelined(port: number, requests: readonly RequestSpec[]): Promise<string> {
  const text = requests
    .map((spec, i) => {
      const lines = [`${spec.method ?? 'GET'} ${spec.path} HTTP/1.1`, 'Host: 127.0.0.1'];
      for (const [name, value] of Object.entries(spec.headers ?? {})) lines.push(`${name}: ${String(value)}`);
      if (i === requests.length - 1) lines.push('Connection: close');
      return lines.join('\r\n') + '\r\n\r\n';
    })
    .join('');
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(Buffer.from(text, 'utf8')));
    let data = '';
    const done = () => {
      socket.destroy();
      resolve(short(data.replace(/^Date: .*\r\n/gim, '').replace(/^(X-Powered-By:) .*$/gim, '$1 <brand>')));
    };
    socket.setEncoding('latin1');
    socket.setTimeout(3000, done);
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('close', done);
    socket.on('error', done);
  });
}

/**
 * The cases again, `group` at a time pipelined on one connection: a response queued
 * behind another opens its file at its turn in webapp (Express opens it at once), and
 * the bytes on the wire and what each callback heard must still be the same. Only
 * production error pages (a stack's frames are each framework's), and no response that
 * leaves the connection unusable (`next` after the answer, an error after an early
 * write: the final handler closes the connection). The responses queued behind such a
 * one are never written: Express calls a small file's callback without an error all
 * the same (its bytes went to the response's buffer), or a large one's never; webapp,
 * which opens the file only at the response's turn, tells it ECONNABORTED
 * (test/res/sendFile.test.ts, "a pipelined request whose client left before its turn").
 */
async function comparePipelined(cases: readonly Case[], group: number): Promise<void> {
  const groups: Case[][] = [];
  for (let i = 0; i < cases.length; i += group) groups.push(cases.slice(i, i + group));
  const run = async (framework: Framework, notes: Notes) => {
    let wires: string[] = [];
    await captureStderrOf(() =>
      withServer(caseServer(framework, cases, notes), async (port) => {
        const requests = (list: Case[]) => list.map((item) => item.request);
        wires = await Promise.all(groups.map((list) => pipelined(port, requests(list))));
        await settle();
      }),
    );
    return wires;
  };
  const expectedNotes: Notes = new Map();
  const actualNotes: Notes = new Map();
  const expected = await run(express, expectedNotes);
  const actual = await run(webapp as unknown as Framework, actualNotes);
  const differences: string[] = [];
  groups.forEach((list, g) => {
    const numbers = list.map((item) => cases.indexOf(item));
    const want = { wire: expected[g], notes: numbers.map((n) => expectedNotes.get(n)) };
    const got = { wire: actual[g], notes: numbers.map((n) => actualNotes.get(n)) };
    if (!isDeepStrictEqual(got, want))
      differences.push(
        `#${numbers.join(',')} ${list.map(describeCase).join('\n  ')}\n` +
          `  express: ${show(want, 2000, 4)}\n` +
          `  webapp:  ${show(got, 2000, 4)}`,
      );
  });
  assertNoDifferences(differences, groups.length, 'pipelined groups of generated file cases differ from express@4');
}

// ---------------------------------------------------------------------------
// Clients that leave in the middle of a file, and two files sent into one response.

/** Polls `check` every 5 ms, at most `ms` long; resolves with its last answer. */
async function eventually(check: () => boolean, ms = 2000): Promise<boolean> {
  for (let waited = 0; waited < ms && !check(); waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
  return check();
}

/** Asks for `path` and goes away at the first bytes of the body. */
function leaveMidBody(port: number, path: string, headers: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve();
      });
      res.on('end', resolve);
    });
    req.on('error', () => resolve());
  });
}

/** One full answer on a connection of its own. */
function fetchText(
  port: number,
  path: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let body = '';
        res.setEncoding('latin1');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

type Abort = [label: string, call: (res: Any, callback: (err?: Any) => void) => void, withCallback: boolean];

/** Calls of a file large enough that it is still being sent when the client leaves. */
function abortCases(): Abort[] {
  const large = join(root, 'large.bin');
  return [
    ['sendFile(path, cb)', (res, cb) => res.sendFile(large, cb), true],
    ['sendFile(path)', (res) => res.sendFile(large), false],
    ['sendFile(name, {root}, cb)', (res, cb) => res.sendFile('large.bin', { root, maxAge: '1h' }, cb), true],
    ['download(path, cb)', (res, cb) => res.download(large, cb), true],
    ['download(path, name, opts, cb)', (res, cb) => res.download(large, 'x.bin', { maxAge: 1000 }, cb), true],
    ['download(path, {root}, cb)', (res, cb) => res.download('large.bin', { root }, cb), true],
    ['download(path)', (res) => res.download(large), false],
    ['attachment, sendFile(path, cb)', (res, cb) => res.attachment('x.zip').sendFile(large, cb), true],
  ];
}

/**
 * Each call on one framework: a client leaves at the first bytes (sometimes of a
 * range), what the callback and the error handlers heard is noted, and the server
 * must answer the next request.
 */
async function abortNotes(framework: Framework): Promise<string[][]> {
  const cases = abortCases();
  const notes: string[][] = cases.map(() => []);
  const app: Any = framework();
  app.get('/alive', (_req: Any, res: Any) => res.send('alive'));
  app.get('/a/:n/:mode', (req: Any, res: Any, next: Any) => {
    const n = Number(req.params.n);
    const list = notes[n];
    cases[n][1](res, (err?: Any) => {
      list.push(`callback(${err ? describeError(err) : String(err)}) headersSent=${res.headersSent}`);
      if (req.params.mode === 'next' && err) next(err);
    });
  });
  app.use((err: Any, req: Any, res: Any, _next: Any) => {
    notes[Number(/^\/a\/(\d+)/.exec(req.originalUrl)?.[1])]?.push(
      `handler(${describeError(err)}) headersSent=${res.headersSent}`,
    );
    res.end();
  });
  await withServer(app, async (port) => {
    for (let n = 0; n < cases.length; n++) {
      for (const mode of ['report', 'next', 'range']) {
        const before = notes[n].length;
        const range = mode === 'range' ? { Range: 'bytes=1000-6000000' } : undefined;
        await leaveMidBody(port, `/a/${n}/${mode}`, range);
        // Without a callback nothing is noted: a moment for an error handler that should not run.
        if (cases[n][2]) await eventually(() => notes[n].length > before);
        else await new Promise((resolve) => setTimeout(resolve, 30));
        notes[n].push(`${mode}: then ${(await fetchText(port, '/alive')).body}`);
      }
    }
  });
  return notes;
}

describe('generated res.sendFile, res.download and res.attachment against express@4', () => {
  before(writeFiles);
  after(() => rmSync(base, { recursive: true, force: true }));

  it('answers generated paths, options, callbacks and requests as express@4 does', async () => {
    const random = prng(0xf11e5);
    const cases = Array.from({ length: 500 }, (_, n) => generateCase(random, n));
    await compareCases(cases);
  });

  it('answers generated cases pipelined on one connection as express@4 does', async () => {
    const random = prng(0x919e);
    const cases = Array.from({ length: 160 }, (_, n) => {
      const item = generateCase(random, n);
      if (item.callback === 'next-direct') item.callback = 'next';
      item.presets = item.presets.filter(([name]) => name !== 'write');
      item.env = 'production';
      return item;
    });
    await comparePipelined(cases, 4);
  });

  it('a client leaving mid-body: ECONNABORTED to the callback, no error handler runs, the server goes on', async () => {
    const expected = await abortNotes(express);
    const actual = await abortNotes(webapp as unknown as Framework);
    const labels = abortCases().map(([label]) => label);
    assert.deepEqual(
      actual.map((notes, n) => [labels[n], notes]),
      expected.map((notes, n) => [labels[n], notes]),
    );
    // What Express tells the callbacks: the client went away, nothing more.
    assert.match(expected[0][0], /^callback\(Error: Request aborted code='ECONNABORTED' .* keys=code /);
  });

  // What the generator found, each reduced to a minimal app.

  it("send's legacy `from` option is the root when there is none, as on express@4", async () => {
    const cases: Array<(res: Any, next: Any) => void> = [
      // Below `from`, an absolute path is looked for under it: a 404 whose path names both.
      (res, next) => res.sendFile(join(root, 'plain.txt'), { from: root }, next),
      (res, next) => res.sendFile(join(root, 'plain.txt'), { from: '/' }, next),
      (res, next) => res.download(join(root, 'plain.txt'), 'x.txt', { from: base }, next),
      (res, next) => res.sendFile(join(root, 'plain.txt'), { from: base, root: '/' }, next),
    ];
    const notes = async (framework: Framework) => {
      const seen: string[] = [];
      const app: Any = framework();
      app.get('/:n', (req: Any, res: Any, next: Any) => cases[Number(req.params.n)](res, next));
      app.use((err: Any, _req: Any, res: Any, _next: Any) => res.status(err.status).end(describeError(err)));
      await withServer(app, async (port) => {
        for (let n = 0; n < cases.length; n++) {
          const answer = await fetchText(port, `/${n}`);
          seen.push(`${answer.status} ${answer.headers['content-disposition'] ?? '-'} ${short(answer.body)}`);
        }
      });
      return seen;
    };
    // Both print send's deprecation notice (once a process): not compared.
    const expected = await captureStderrOf(() => notes(express));
    const actual = await captureStderrOf(() => notes(webapp as unknown as Framework));
    assert.deepEqual(actual.result, expected.result);
    assert.match(expected.result[0], /^404 - Error: ENOENT: .*stat '<tmp>\/root<tmp>\/root\/plain\.txt'/);
    assert.deepEqual(
      actual.result.map((line) => line.slice(0, 3)),
      ['404', '200', '404', '200'],
    );
  });

  it('two files sent into one response: the one not sent hears ECONNABORTED, as on express@4', async () => {
    // Both files are looked up at once; the one read second finds the response ended by
    // the other. Which one that is depends on which read the file system finishes first,
    // on Express as here; that one of the two was not sent, and is told so, does not
    // (webapp told neither, about half the time). The download's Content-Disposition is
    // in the head when its lookup ends before the other file's read, nearly always on
    // both, but a busy machine can delay the one thread it waits on (seen once on
    // webapp, Node 20.9.0): the header is checked to be that or absent, not compared.
    const runs = async (framework: Framework) => {
      const seen: string[] = [];
      const app: Any = framework();
      let outcomes: string[] = [];
      app.get('/race', (_req: Any, res: Any) => {
        const note = (name: string) => (err?: Any) => outcomes.push(err ? `${name} ${err.code} ${err.message}` : name);
        res.sendFile(join(root, 'plain.txt'), note('sendFile'));
        res.download(join(root, 'plain.txt'), note('download'));
      });
      await withServer(app, async (port) => {
        for (let i = 0; i < 12; i++) {
          outcomes = [];
          const answer = await fetchText(port, '/race');
          await eventually(() => outcomes.length >= 2);
          // A third callback would come after the second: a moment to see it.
          await new Promise((resolve) => setImmediate(resolve));
          const told = outcomes.map((outcome) => outcome.replace(/^(sendFile|download)/, 'cb')).sort();
          const disposition = answer.headers['content-disposition'];
          assert.ok(disposition === undefined || disposition === 'attachment; filename="plain.txt"', disposition);
          seen.push(`${answer.status} ${answer.body} | ${told.join(', ')}`);
        }
      });
      return seen;
    };
    const once = '200 0123456789abcdef | cb, cb ECONNABORTED Request aborted';
    assert.deepEqual(await runs(express), Array(12).fill(once));
    assert.deepEqual(await runs(webapp as unknown as Framework), Array(12).fill(once));
  });
});
