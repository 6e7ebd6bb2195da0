/**
 * `static` on express@4 (serve-static 1.16) and on webapp, asked generated
 * requests: paths built from the fixture tree's names and from hostile segments
 * (dot segments, encoded separators and dots, NUL, broken escapes, dotfiles),
 * every method, and random combinations of Range and conditional headers, under
 * each option set. Status, headers and body must be the same. The generator is
 * seeded, so a failure names a request that reproduces.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertSameResponses, type Framework, type RawResponse, type RequestSpec } from '../support/differential';
import { chance, pick, prng, type Random } from '../support/prng';
import { errorEcho, staticApp } from './apps';
import { createFixtures, FILE_TIME, type Fixtures } from './support';

let fx: Fixtures;
before(() => {
  fx = createFixtures();
});
after(() => fx.cleanup());

/** Names of the fixture tree (test/static/support.ts), escaped as a client sends them. */
const NAMES = [
  'index.html',
  'todo.txt',
  'nums.txt',
  'empty.txt',
  'users',
  'tobi',
  'tobi.html',
  'tobi.txt',
  'pets',
  'loki.txt',
  'nested',
  'deep',
  'file.txt',
  'emptydir',
  'dir.html',
  'images',
  'pixel.png',
  'noext',
  '.hidden',
  '.secret',
  'sub',
  '.dotfile',
  'foo%20bar.txt',
  '%25%20of%20100.txt',
  'snow%20%E2%98%83.txt',
  'weird%3Cname%3E.txt',
  'page',
  'data.json',
];

/** Segments no well-behaved client sends: traversal, encoded separators, broken escapes. */
const HOSTILE = [
  '..',
  '.',
  '',
  '%2e%2e',
  '%2E.',
  '.%2e',
  '%2e',
  '%2f',
  '%2F..%2F',
  '%5c',
  '..%5c..%5csecret.txt',
  '..%2f..%2fsecret.txt',
  '%00',
  'todo.txt%00.html',
  '%',
  '%zz',
  '%e2%98',
  '%c0%ae%c0%ae',
  'secret.txt',
  'outside',
  'root-sibling.txt',
  '..%00',
  '.hidden%2f',
  'users;x=1',
  '~',
  'index.html.',
  'todo.TXT',
  '\u00e9',
];

const RANGES = [
  'bytes=0-0',
  'bytes=0-3',
  'bytes=-3',
  'bytes=5-',
  'bytes=0-1,3-4',
  'bytes=0-1,1-2',
  'bytes=9-1',
  'bytes=abc',
  'bytes=0-999999',
  'bytes=100-200',
  'bytes=-0',
  'bytes=',
  'items=0-1',
  'bytes= 1-2',
  'bytes=0-0,-1',
  'bytes=1-2,0-0,4-',
];

const DATES = [
  FILE_TIME.toUTCString(),
  new Date(FILE_TIME.getTime() - 60_000).toUTCString(),
  new Date(FILE_TIME.getTime() + 60_000).toUTCString(),
  'not a date',
  '',
];

/** Entity tags a request may hold: the weak tags serve-static makes for some fixtures, and others. */
const TAGS = [
  '*',
  'W/"b-' + FILE_TIME.getTime().toString(16) + '"',
  'W/"9-' + FILE_TIME.getTime().toString(16) + '"',
  '"b-' + FILE_TIME.getTime().toString(16) + '"',
  '"nope"',
  'W/"nope", W/"b-' + FILE_TIME.getTime().toString(16) + '"',
  'garbage',
];

const METHODS = ['GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'HEAD', 'HEAD', 'POST', 'OPTIONS'];

/** Paths of the tree that exist, as a client escapes them. */
const EXISTING = [
  '/',
  '/index.html',
  '/todo.txt',
  '/nums.txt',
  '/empty.txt',
  '/tobi.html',
  '/users',
  '/users/',
  '/users/tobi.txt',
  '/pets/loki.txt',
  '/nested/deep/file.txt',
  '/emptydir',
  '/dir.html',
  '/images/pixel.png',
  '/noext',
  '/.hidden',
  '/.secret/file.txt',
  '/sub/.dotfile',
  '/foo%20bar.txt',
  '/%25%20of%20100.txt',
  '/snow%20%E2%98%83.txt',
  '/weird%3Cname%3E.txt',
  '/data.json',
];

/** Edits that turn a path of the tree into one a hostile or careless client sends. */
const MUTATIONS: Array<(path: string, random: Random) => string> = [
  (path) => path,
  (path) => path,
  (path) => path + '/',
  (path, random) => path.replace(/\/([^/]*)$/, '/' + pick(random, HOSTILE) + '/$1'),
  (path, random) => '/' + pick(random, HOSTILE) + path,
  (path) => path.replace(/\./g, '%2e'),
  (path) => path.replace(/\//g, '//'),
  (path) => path.replace(/\//g, '%2f').replace(/^%2f/, '/'),
  (path) => path.replace(/t/, '%74'),
  (path) => path.toUpperCase(),
  (path) => path + '%00',
  (path) => path + '/..',
  (path) => path + '/../todo.txt',
];

function generatedPath(random: Random): string {
  let path: string;
  if (chance(random, 0.6)) {
    path = pick(random, MUTATIONS)(pick(random, EXISTING), random);
  } else {
    const segments: string[] = [];
    const count = 1 + Math.floor(random() * 4);
    for (let i = 0; i < count; i++) segments.push(chance(random, 0.35) ? pick(random, HOSTILE) : pick(random, NAMES));
    path = '/' + segments.join('/');
    if (chance(random, 0.15)) path += '/';
  }
  if (chance(random, 0.05)) path = '/' + path;
  if (chance(random, 0.1)) path += pick(random, ['?x=1', '?', '?<b>=%3C', '?a=1&a=2']);
  return path;
}

function generatedHeaders(random: Random): Record<string, string> {
  const headers: Record<string, string> = {};
  if (chance(random, 0.35)) headers.Range = pick(random, RANGES);
  if (chance(random, 0.15)) headers['If-Range'] = chance(random, 0.5) ? pick(random, DATES) : pick(random, TAGS);
  if (chance(random, 0.15)) headers['If-None-Match'] = pick(random, TAGS);
  if (chance(random, 0.15)) headers['If-Modified-Since'] = pick(random, DATES);
  if (chance(random, 0.1)) headers['If-Match'] = pick(random, TAGS);
  if (chance(random, 0.1)) headers['If-Unmodified-Since'] = pick(random, DATES);
  if (chance(random, 0.05)) headers['Cache-Control'] = pick(random, ['no-cache', 'max-age=0', 'no-store']);
  return headers;
}

/** `count` requests from `seed`; with a mount path, most of them go under it. */
function generatedRequests(seed: number, count: number, mount?: string): RequestSpec[] {
  const random = prng(seed);
  const requests: RequestSpec[] = [];
  for (let i = 0; i < count; i++) {
    const method = pick(random, METHODS);
    let path = generatedPath(random);
    if (mount && chance(random, 0.8)) path = mount + path;
    requests.push({ method, path, headers: generatedHeaders(random) });
  }
  return requests;
}

/** Option sets, each served to its own share of the generated requests. */
const OPTION_SETS: Array<[string, object | undefined, string | undefined]> = [
  ['defaults', undefined, undefined],
  ['defaults, mounted at /static', undefined, '/static'],
  ["dotfiles 'allow'", { dotfiles: 'allow' }, undefined],
  ["dotfiles 'deny'", { dotfiles: 'deny' }, undefined],
  ["dotfiles 'ignore', fallthrough false", { dotfiles: 'ignore', fallthrough: false }, undefined],
  ['index false, redirect false', { index: false, redirect: false }, undefined],
  [
    "index ['tobi.html', 'index.html'], extensions ['html', 'txt']",
    { index: ['tobi.html', 'index.html'], extensions: ['html', 'txt'] },
    undefined,
  ],
  ['fallthrough false, mounted at /s', { fallthrough: false }, '/s'],
  ['maxAge 1d, immutable', { maxAge: '1d', immutable: true }, undefined],
  [
    'no etag, no lastModified, no acceptRanges, no cacheControl',
    { etag: false, lastModified: false, acceptRanges: false, cacheControl: false },
    undefined,
  ],
];

/** Whatever both frameworks answered, nothing from outside the root reached the client. */
function assertNoSecret(answers: RawResponse[]): void {
  for (const answer of answers) assert.ok(!answer.body.includes(fx.secret), 'a file outside the root was served');
}

describe('static compatibility with express@4, generated requests', () => {
  OPTION_SETS.forEach(([name, options, mount], index) => {
    it(`answers as express@4 does: ${name}`, async () => {
      const requests = generatedRequests(0x5eed + index, 300, mount);
      assertNoSecret(
        await assertSameResponses(
          staticApp(() => fx.root, options, mount),
          requests,
        ),
      );
    });
  });
});

type FileSender = 'sendFile' | 'sendFile with a callback' | 'sendFile, absolute path' | 'download';

/**
 * An app handing the request's decoded path to `res.sendFile` or `res.download`, as
 * apps do with `req.params[0]`: the root and the option checks are all that stands
 * between a hostile path and the disk.
 */
function fileSenderApp(sender: FileSender, options: object) {
  return (framework: Framework) => {
    const app = framework();
    app.set('env', 'production');
    app.use((req, res, next) => {
      let path: string;
      try {
        path = decodeURIComponent(req.path);
      } catch {
        path = req.path;
      }
      if (sender === 'sendFile') res.sendFile(path, { root: fx.root, ...options });
      else if (sender === 'sendFile with a callback')
        res.sendFile(path, { root: fx.root, ...options }, (err) => {
          if (err) next(err);
        });
      else if (sender === 'sendFile, absolute path') res.sendFile(fx.root + path, options);
      // The name offered is the path's last segment, whatever it holds: Content-Disposition is compared too.
      else res.download(path, path.slice(path.lastIndexOf('/') + 1), { root: fx.root, ...options });
    });
    app.use(errorEcho);
    return app;
  };
}

const SENDERS: Array<[FileSender, object]> = [
  ['sendFile', {}],
  ['sendFile', { dotfiles: 'allow', maxAge: 10_000, immutable: true, headers: { 'X-Sent': 'yes' } }],
  ['sendFile with a callback', { dotfiles: 'deny', acceptRanges: false, lastModified: false, cacheControl: false }],
  ['sendFile, absolute path', {}],
  ['sendFile, absolute path', { dotfiles: 'allow' }],
  ['download', {}],
];

describe('res.sendFile and res.download on express@4 and webapp, generated request paths', () => {
  SENDERS.forEach(([sender, options], index) => {
    it(`answers as express@4 does: ${sender} ${JSON.stringify(options)}`, async () => {
      const requests = generatedRequests(0xf11e + index, 200);
      assertNoSecret(await assertSameResponses(fileSenderApp(sender, options), requests));
    });
  });
});
