/**
 * HTTP/2 against HTTP/1.1 on the same app: generated requests (seeded, so a failure
 * reproduces) go to one `http2.createSecureServer({ allowHTTP1: true })` server
 * once over HTTP/1.1 and once over HTTP/2, and the answers must be equal: status,
 * headers (but the clock's `Date` and the connection headers HTTP/2 has none of)
 * and body bytes. The routes cover sending, headers and cookies, redirects,
 * negotiation, files and `static` (ranges, conditional requests), views, streaming,
 * errors, the body parsers (with and without Content-Length, gzip) and the request's
 * getters, for GET, HEAD, OPTIONS and POST.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { inspect, isDeepStrictEqual } from 'node:util';
import { after, before, describe, it } from 'node:test';
import webapp = require('../../src/index');
import { isFinished } from '../../src/http/on-finished';
import { captureStderrOf } from '../support/capture-stderr';
import { h2connect, h2exchange } from '../support/http2-client';
import { chance, pick, prng, type Random } from '../support/prng';
import { selfSignedCert } from '../support/self-signed-cert';

type Req = webapp.Request;
type Res = webapp.Response;

/** Headers that legitimately differ: the clock, and what only an HTTP/1 connection has. */
const VOLATILE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** Date.now fixed while the test runs: cookies with maxAge get the same Expires over both. */
const realNow = Date.now;
const NOW = Date.UTC(2025, 5, 15, 12, 0, 0, 500);

let base: string;
let server: http2.Http2SecureServer;
let port: number;
let session: http2.ClientHttp2Session;
let agent: https.Agent;

function files(root: string): void {
  const pub = join(root, 'public');
  mkdirSync(join(pub, 'dir'), { recursive: true });
  mkdirSync(join(pub, 'noindex'), { recursive: true });
  mkdirSync(join(root, 'views'), { recursive: true });
  writeFileSync(join(pub, 'index.html'), '<p>home</p>\n');
  writeFileSync(join(pub, 'a.txt'), 'alpha bravo charlie delta echo foxtrot golf hotel\n');
  writeFileSync(join(pub, 'data.json'), '{"x":1}\n');
  writeFileSync(join(pub, 'bin.dat'), Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7) & 0xff)));
  writeFileSync(join(pub, 'empty.txt'), '');
  writeFileSync(join(pub, 'dir', 'index.html'), '<p>dir</p>\n');
  writeFileSync(join(pub, 'dir', 'b.css'), 'body { color: red }\n');
  writeFileSync(join(pub, 'noindex', 'c.js'), 'console.log(1)\n');
  writeFileSync(join(pub, 'dé jà.txt'), 'accents\n');
  writeFileSync(join(root, 'views', 'page.tiny'), 'Hello {{name}} from {{where}}');
  writeFileSync(join(root, 'views', 'plain.tiny'), 'plain');
  const when = new Date(Date.UTC(2024, 0, 2, 3, 4, 5));
  for (const file of ['index.html', 'a.txt', 'data.json', 'bin.dat', 'empty.txt', 'dir/index.html', 'dir/b.css']) {
    utimesSync(join(pub, file), when, when);
  }
}

/** A view engine in a line: `{{name}}` is replaced by the local of that name. */
function tinyEngine(path: string, options: Record<string, unknown>, callback: (e: unknown, s?: string) => void) {
  import('node:fs').then(({ readFile }) =>
    readFile(path, 'utf8', (err, text) => {
      if (err) return callback(err);
      callback(
        null,
        text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(options[name] ?? '')),
      );
    }),
  );
}

const SEND_VALUES: Record<string, () => unknown> = {
  string: () => 'hello world',
  html: () => '<b>bold</b>',
  empty: () => '',
  utf8: () => 'héllo ☃ 𝄞',
  buffer: () => Buffer.from([0, 1, 2, 250, 251, 252]),
  emptyBuffer: () => Buffer.alloc(0),
  object: () => ({ a: 1, b: [true, null], c: 'é' }),
  array: () => [1, 'two', { three: 3 }],
  null: () => null,
  number: () => 201,
  bool: () => true,
  big: () => 'x'.repeat(70_000),
};

function buildApp(root: string) {
  const app = webapp();
  app.set('env', 'production');
  app.set('trust proxy', 'loopback');
  app.set('views', join(root, 'views'));
  app.engine('tiny', tinyEngine as never);
  app.set('view engine', 'tiny');
  app.locals.where = 'locals';

  app.all('/send/:kind', (req: Req, res: Res) => {
    if (req.query.type) res.type(String(req.query.type));
    res.send(SEND_VALUES[req.params.kind]?.());
  });
  app.get('/json', (req: Req, res: Res) => {
    res.json(req.query.v === undefined ? { ok: true } : JSON.parse(String(req.query.v)));
  });
  app.get('/jsonp', (req: Req, res: Res) => res.jsonp({ n: 1, s: '\u2028' }));
  app.get('/status/:code', (req: Req, res: Res) => {
    const code = Number(req.params.code);
    if (req.query.how === 'sendStatus') res.sendStatus(code);
    else res.status(code).send(`status ${code}`);
  });
  app.get('/headers', (req: Req, res: Res) => {
    res.set('X-One', 'one');
    res.set({ 'X-Two': 'two', 'Cache-Control': 'no-store' });
    res.append('X-List', 'a');
    res.append('X-List', ['b', 'c']);
    res.append('Link', '</a>; rel=preload');
    res.append('Vary', 'Accept');
    res.vary('Origin');
    res.cookie('sid', 'abc', { httpOnly: true, path: '/' });
    res.cookie('obj', { a: [1, 2] }, { maxAge: 60_000, sameSite: 'lax' });
    res.cookie('sec', 'v', { secure: true, domain: 'example.com' });
    res.clearCookie('old');
    if (req.query.location) res.location(String(req.query.location));
    res.send('headers');
  });
  app.get('/redirect', (req: Req, res: Res) => {
    const to = String(req.query.to ?? '/');
    if (req.query.status) res.redirect(Number(req.query.status), to);
    else res.redirect(to);
  });
  app.get('/type/:t', (req: Req, res: Res) => res.type(req.params.t).send('typed'));
  app.get('/format', (req: Req, res: Res) => {
    const handlers: Record<string, () => void> = {
      text: () => res.send('text'),
      html: () => res.send('<p>html</p>'),
      json: () => res.send({ json: true }),
    };
    if (req.query.default) handlers.default = () => res.status(406).send('default');
    res.format(handlers);
  });
  app.get('/attachment', (req: Req, res: Res) => {
    res.attachment(req.query.name === undefined ? undefined : String(req.query.name));
    res.send('attached');
  });
  app.get('/download/:name', (req: Req, res: Res, next) => {
    const as = req.query.as === undefined ? undefined : String(req.query.as);
    res.download(join(root, 'public', req.params.name), as as string, (err) => err && next(err));
  });
  app.get('/sendfile/:name', (req: Req, res: Res, next) => {
    const options: Record<string, unknown> = { root: join(root, 'public') };
    if (req.query.maxAge) options.maxAge = Number(req.query.maxAge);
    if (req.query.noEtag) options.etag = false;
    if (req.query.noLm) options.lastModified = false;
    if (req.query.dotfiles) options.dotfiles = String(req.query.dotfiles);
    res.sendFile(req.params.name, options, (err) => err && next(err));
  });
  app.get('/render/:view', (req: Req, res: Res) => {
    res.render(req.params.view, { name: req.query.name ?? 'nobody' });
  });
  app.get('/stream', (req: Req, res: Res) => {
    const n = Number(req.query.n ?? 3);
    res.type('text');
    if (req.query.length) res.set('Content-Length', String(n * 6));
    for (let i = 0; i < n; i++) res.write(`chunk${i}`.slice(0, 6));
    res.end(req.query.tail ? 'tail' : undefined);
  });
  app.get('/throw', () => {
    throw Object.assign(new Error('thrown'), { status: 418 });
  });
  app.get('/next-err', (req: Req, _res: Res, next) => {
    next(req.query.status ? Object.assign(new Error('passed'), { status: Number(req.query.status) }) : new Error('x'));
  });
  app.get('/async-err', async () => {
    await Promise.resolve();
    throw new Error('async');
  });
  app.get('/req', (req: Req, res: Res) => {
    res.json({
      method: req.method,
      url: req.url,
      originalUrl: req.originalUrl,
      path: req.path,
      query: req.query,
      hostname: req.hostname,
      host: req.get('host'),
      protocol: req.protocol,
      secure: req.secure,
      ip: req.ip,
      ips: req.ips,
      subdomains: req.subdomains,
      fresh: req.fresh,
      stale: req.stale,
      xhr: req.xhr,
      is: req.is(['json', 'text/*']),
      accepts: req.accepts(['json', 'html', 'text']),
      acceptsLanguages: req.acceptsLanguages('en', 'fr'),
      acceptsEncodings: req.acceptsEncodings('gzip', 'br'),
      range: req.range(100) ?? null,
    });
  });
  const echo = (req: Req, res: Res) => {
    const body = req.body as unknown;
    res.json({ body: Buffer.isBuffer(body) ? { hex: body.toString('hex') } : (body ?? null), is: req.is('json') });
  };
  app.post('/body/json', webapp.json({ limit: 200 }), echo);
  app.post('/body/urlencoded', webapp.urlencoded({ extended: true, limit: 200 }), echo);
  app.post('/body/text', webapp.text({ limit: 200 }), echo);
  app.post('/body/raw', webapp.raw({ limit: 200 }), echo);
  app.use('/s', webapp.static(join(root, 'public'), { maxAge: 1000 }));
  app.use('/s2', webapp.static(join(root, 'public'), { index: false, redirect: false, etag: false }));
  app.use(
    (err: { status?: number; type?: string; message?: string }, req: Req, res: Res, next: webapp.NextFunction) => {
      // Body parser errors are reported; the others go on to the final handler.
      if (err.type) res.status(err.status ?? 500).json({ type: err.type, message: err.message });
      else next(err);
    },
  );
  return app;
}

interface Case {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Send the body's length (true), or send it without one (chunked over HTTP/1.1, DATA frames only over HTTP/2). */
  length?: boolean;
  /** Ask the resource's validators first, and send them (or a changed copy) back. */
  conditional?: 'etag' | 'date' | 'stale-etag' | 'old-date';
}

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

const ACCEPTS = [
  'text/html',
  'application/json',
  'text/plain',
  '*/*',
  'image/png',
  'application/json;q=0.5, text/html',
  'text/*;q=0.2, application/*',
  '',
];

const STATIC_PATHS = [
  '/s/',
  '/s',
  '/s/a.txt',
  '/s/dir',
  '/s/dir/',
  '/s/dir/b.css',
  '/s/noindex/',
  '/s/noindex',
  '/s/bin.dat',
  '/s/data.json',
  '/s/empty.txt',
  '/s/missing.txt',
  '/s/d%C3%A9%20j%C3%A0.txt',
  '/s/../a.txt',
  '/s/%2e%2e/a.txt',
  '/s/dir?x=1',
  '/s2/a.txt',
  '/s2/dir',
  '/s2/',
];

const FILES = ['a.txt', 'bin.dat', 'data.json', 'index.html', 'empty.txt', 'missing.txt', 'dir', '.hidden'];

const RANGES = [
  'bytes=0-4',
  'bytes=5-',
  'bytes=-7',
  'bytes=0-1,3-4',
  'bytes=1000-',
  'bytes=x',
  'items=0-1',
  'bytes=2-1',
];

function bodyCase(random: Random): Case {
  const parser = pick(random, ['json', 'urlencoded', 'text', 'raw']);
  const payloads: Record<string, Array<[string, string]>> = {
    json: [
      ['application/json', '{"a":[1,2],"b":"é"}'],
      ['application/json', '{broken'],
      ['application/json; charset=utf-8', '"strict-off?"'],
      ['application/vnd.api+json', '{"x":1}'],
      ['application/json', JSON.stringify({ s: 'y'.repeat(300) })],
      ['text/plain', '{"ignored":true}'],
    ],
    urlencoded: [
      ['application/x-www-form-urlencoded', 'a[b]=1&c=2&c=3'],
      ['application/x-www-form-urlencoded', 'x=%E2%98%83&empty='],
      ['application/x-www-form-urlencoded', 'big=' + 'z'.repeat(300)],
    ],
    text: [
      ['text/plain', 'hello text'],
      ['text/plain; charset=latin1', 'caf\u00e9'],
      ['text/html', '<p>not text/plain</p>'],
      ['text/plain; charset=nope', 'x'],
    ],
    raw: [
      ['application/octet-stream', '\u0000\u0001binary'],
      ['application/octet-stream', ''],
      ['image/png', 'png?'],
    ],
  };
  const [type, text] = pick(random, payloads[parser]);
  let body = Buffer.from(text, type.includes('latin1') ? 'latin1' : 'utf8');
  const headers: Record<string, string> = { 'content-type': type };
  const encoding = random();
  if (encoding < 0.25) {
    body = zlib.gzipSync(body);
    headers['content-encoding'] = 'gzip';
  } else if (encoding < 0.3) {
    headers['content-encoding'] = pick(random, ['deflate', 'identity', 'br-ish']);
    if (headers['content-encoding'] === 'deflate') body = zlib.deflateSync(body);
  }
  if (chance(random, 0.1)) headers['content-type'] = '';
  if (headers['content-type'] === '') delete headers['content-type'];
  return { method: 'POST', path: `/body/${parser}`, headers, body, length: chance(random, 0.5) };
}

function requestCase(random: Random): Case {
  const headers: Record<string, string> = {};
  const roll = random();
  if (roll < 0.12) return bodyCase(random);
  let method = 'GET';
  const m = random();
  if (m < 0.2) method = 'HEAD';
  else if (m < 0.27) method = 'OPTIONS';
  else if (m < 0.3) method = pick(random, ['DELETE', 'PUT', 'PATCH']);
  if (chance(random, 0.4)) headers.accept = pick(random, ACCEPTS);
  if (chance(random, 0.1)) headers['x-requested-with'] = 'XMLHttpRequest';
  if (chance(random, 0.1)) headers['accept-language'] = pick(random, ['fr', 'en-US,en;q=0.5', 'de']);
  if (chance(random, 0.1)) headers['accept-encoding'] = pick(random, ['gzip', 'br;q=0.1, gzip', 'identity']);
  const c: Case = { method, path: '/', headers };
  const family = random();
  if (family < 0.15) {
    c.path = pick(random, STATIC_PATHS);
    if (chance(random, 0.3)) headers.range = pick(random, RANGES);
    if (chance(random, 0.3)) c.conditional = pick(random, ['etag', 'date', 'stale-etag', 'old-date'] as const);
  } else if (family < 0.3) {
    const route = pick(random, ['sendfile', 'download']);
    const name = pick(random, FILES);
    const query = [
      chance(random, 0.2) ? 'maxAge=5000' : '',
      chance(random, 0.15) ? 'noEtag=1' : '',
      chance(random, 0.15) ? 'noLm=1' : '',
      chance(random, 0.1) ? 'dotfiles=allow' : '',
      route === 'download' && chance(random, 0.4)
        ? 'as=' + pick(random, ['r%C3%A9sum%C3%A9.txt', 'x.pdf', 'a%20b'])
        : '',
    ].filter(Boolean);
    c.path = `/${route}/${name}${query.length ? '?' + query.join('&') : ''}`;
    if (chance(random, 0.3)) headers.range = pick(random, RANGES);
    if (chance(random, 0.15)) headers['if-range'] = pick(random, ['"nope"', 'Tue, 02 Jan 2024 03:04:05 GMT']);
    if (chance(random, 0.3)) c.conditional = pick(random, ['etag', 'date', 'stale-etag', 'old-date'] as const);
  } else if (family < 0.45) {
    const kind = pick(random, Object.keys(SEND_VALUES));
    const type = chance(random, 0.2) ? '?type=' + pick(random, ['html', 'bin', 'application/x-custom', 'txt']) : '';
    c.path = `/send/${kind}${type}`;
    if (chance(random, 0.25)) c.conditional = pick(random, ['etag', 'stale-etag'] as const);
    if (method === 'GET' && chance(random, 0.1)) c.method = 'POST';
  } else if (family < 0.5) {
    c.path = pick(random, [
      '/json',
      '/json?v=%22str%22',
      '/json?v=null',
      '/json?v=%5B1%2C2%5D',
      '/jsonp',
      '/jsonp?callback=cb',
      '/jsonp?callback=a.b%5B0%5D',
      '/jsonp?callback=%3Cx%3E',
    ]);
  } else if (family < 0.56) {
    const code = pick(random, [200, 201, 204, 301, 304, 400, 404, 418, 500, 503, 299, 599]);
    c.path = `/status/${code}${chance(random, 0.5) ? '?how=sendStatus' : ''}`;
  } else if (family < 0.6) {
    c.path =
      '/headers' +
      (chance(random, 0.4)
        ? '?location=' + pick(random, ['back', '/x%20y', 'http://ex.com/%E2%98%83', 'caf%C3%A9'])
        : '');
    if (chance(random, 0.3)) headers.referer = 'http://ref.example/from';
  } else if (family < 0.66) {
    const to = pick(random, [
      '/',
      'back',
      '/a?b=c',
      'http://ex.com/p',
      '//evil.example',
      '/%E2%98%83',
      'rel/ative',
      '<script>',
    ]);
    const status = chance(random, 0.4) ? `&status=${pick(random, [301, 302, 303, 307, 308])}` : '';
    c.path = `/redirect?to=${encodeURIComponent(to)}${status}`;
    if (chance(random, 0.3)) headers.referer = pick(random, ['http://ref.example/from', '/local']);
  } else if (family < 0.7) {
    c.path = `/type/${pick(random, ['json', 'html', 'png', 'application%2Fxml', 'text', 'unknownext', '.js'])}`;
  } else if (family < 0.76) {
    c.path = '/format' + (chance(random, 0.3) ? '?default=1' : '');
    headers.accept = pick(random, ACCEPTS);
  } else if (family < 0.79) {
    c.path = '/attachment' + pick(random, ['', '?name=report.pdf', '?name=%C3%A9t%C3%A9.txt', '?name=a%22b.json']);
  } else if (family < 0.82) {
    c.path = `/render/${pick(random, ['page', 'plain', 'missing'])}${chance(random, 0.5) ? '?name=%3Cb%3E' : ''}`;
  } else if (family < 0.86) {
    const query = [`n=${pick(random, [0, 1, 3, 10])}`];
    if (chance(random, 0.3)) query.push('tail=1');
    c.path = `/stream?${query.join('&')}`;
  } else if (family < 0.9) {
    c.path = pick(random, [
      '/throw',
      '/next-err',
      '/next-err?status=403',
      '/next-err?status=600',
      '/async-err',
      '/nowhere',
      '/send/unknown%ZZ',
      '/%',
    ]);
  } else {
    const query = pick(random, ['', '?a=1&b=2', '?a[b]=c', '?x=%E2%98%83', '?arr=1&arr=2', '?']);
    c.path = pick(random, ['/req', '/REQ', '/req/', '//req']) + query;
    if (chance(random, 0.3)) headers['x-forwarded-proto'] = pick(random, ['http', 'https', 'ws, https']);
    if (chance(random, 0.3)) headers['x-forwarded-host'] = pick(random, ['fwd.example', 'fwd.example:81', '[::1]:9']);
    if (chance(random, 0.3)) headers['x-forwarded-for'] = pick(random, ['10.0.0.1', '1.2.3.4, 127.0.0.1']);
    if (chance(random, 0.3))
      headers.host = pick(random, ['a.b.example.com', 'x.example:8443', '[::1]:8080', 'UPPER.Example']);
    if (chance(random, 0.2)) headers['content-type'] = pick(random, ['application/json', 'text/html; charset=utf-8']);
    if (chance(random, 0.2)) headers.range = pick(random, RANGES);
    if (chance(random, 0.2)) headers['if-none-match'] = pick(random, ['*', '"x"']);
    if (chance(random, 0.1)) headers['cache-control'] = 'no-cache';
  }
  return c;
}

/**
 * The head as sent: Node's HTTP/1 client decodes a Content-Disposition as UTF-8 (a
 * latin1 `é` turns into U+FFFD), its HTTP/2 client does not. Names in lower case, a
 * repeated header joined with ", " (Set-Cookie a list), as both clients do otherwise.
 */
function rawHeaders(raw: string[]): Record<string, unknown> {
  const headers: Record<string, string | string[]> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    const seen = headers[name];
    if (name === 'set-cookie') headers[name] = [...((seen as string[] | undefined) ?? []), raw[i + 1]];
    else headers[name] = seen === undefined ? raw[i + 1] : `${seen as string}, ${raw[i + 1]}`;
  }
  return headers;
}

/** One request over HTTP/1.1 (TLS, the same server): headers as received, body bytes as latin1. */
function h1(c: Case): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...c.headers };
    if (c.body !== undefined && c.length) headers['content-length'] = String(c.body.length);
    else if (c.body !== undefined) headers['transfer-encoding'] = 'chunked';
    const req = https.request({ host: '127.0.0.1', port, method: c.method, path: c.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: rawHeaders(res.rawHeaders),
          body: Buffer.concat(chunks).toString('latin1'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(c.body);
  });
}

/** The same request over HTTP/2: `Host` becomes `:authority`, as a browser sends it. */
function h2(c: Case): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: http2.OutgoingHttpHeaders = { ':method': c.method, ':path': c.path };
    for (const [name, value] of Object.entries(c.headers)) {
      if (name === 'host') headers[':authority'] = value;
      else headers[name] = value;
    }
    if (c.body !== undefined && c.length) headers['content-length'] = String(c.body.length);
    const stream = session.request(headers, { endStream: c.body === undefined });
    let received: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => (received = h));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const { ':status': status, ...rest } = received;
      resolve({ status: Number(status), headers: rest, body: Buffer.concat(chunks).toString('latin1') });
    });
    stream.on('error', reject);
    if (c.body !== undefined) stream.end(c.body);
  });
}

function comparable(answer: Answer): Answer {
  const headers: Record<string, unknown> = {};
  for (const name of Object.keys(answer.headers).sort()) {
    if (!VOLATILE.has(name)) headers[name] = answer.headers[name];
  }
  // Node's HTTP/1 response reads a Content-Disposition as UTF-8 bytes held in a latin1
  // string: a latin1 file name (`filename="été.txt"`) goes out as U+FFFD there, in
  // Express too, and whole over HTTP/2. Only its ASCII is compared.
  const disposition = headers['content-disposition'];
  if (typeof disposition === 'string') headers['content-disposition'] = disposition.replace(/[^\x00-\x7f]+/g, '?');
  return { status: answer.status, headers, body: answer.body };
}

/**
 * Node's HTTP/1 response adds a Content-Length to a body given whole to `res.end()`
 * (nothing written before); its HTTP/2 response ends the stream instead, which frames
 * the body as well. webapp's own answers (`res.send`, files) set one on both.
 */
function withoutEndLength(c: Case, one: Answer, two: Answer): Answer {
  if (!c.path.startsWith('/stream') || two.headers['content-length'] !== undefined) return one;
  const { ['content-length']: _length, ...headers } = one.headers;
  return { ...one, headers };
}

/** The validators the resource answers with now, sent back as the case asks. */
async function withValidators(c: Case): Promise<Case> {
  if (c.conditional === undefined) return c;
  const probe = await h1({ method: 'GET', path: c.path, headers: {} });
  const headers = { ...c.headers };
  const etag = probe.headers.etag as string | undefined;
  const modified = probe.headers['last-modified'] as string | undefined;
  if (c.conditional === 'etag' && etag) headers['if-none-match'] = etag;
  if (c.conditional === 'stale-etag') headers['if-none-match'] = (etag ?? '"x"').replace(/"$/, 'x"');
  if (c.conditional === 'date' && modified) headers['if-modified-since'] = modified;
  if (c.conditional === 'old-date') headers['if-modified-since'] = 'Mon, 01 Jan 2001 00:00:00 GMT';
  return { ...c, headers };
}

describe('HTTP/2 answers as HTTP/1.1 does (generated)', () => {
  before(async () => {
    Date.now = () => NOW;
    base = mkdtempSync(join(tmpdir(), 'webapp-h2-gen-'));
    files(base);
    server = http2.createSecureServer({ ...selfSignedCert(), allowHTTP1: true }, buildApp(base) as never);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    session = h2connect(port);
    agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false, maxSockets: 1 });
  });
  after(async () => {
    Date.now = realNow;
    session.close();
    agent.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(base, { recursive: true, force: true });
  });

  it('a HEAD response over HTTP/2 is not finished before it is written: sendFile calls back, no error', async () => {
    // Its stream's writable side is ended from the start (the head goes with END_STREAM),
    // which on-finished read as a connection gone: the file was aborted, 500 or a logged error.
    const app = webapp();
    const seen: unknown[] = [];
    app.head('/file', (req: Req, res: Res) => {
      seen.push(isFinished(res));
      res.sendFile(join(base, 'public', 'a.txt'), (err) => seen.push(err ?? 'sent'));
    });
    const h2server = http2.createSecureServer({ ...selfSignedCert() }, app as never);
    await new Promise<void>((resolve) => h2server.listen(0, '127.0.0.1', resolve));
    const client = h2connect((h2server.address() as AddressInfo).port);
    try {
      for (let i = 0; i < 5; i++) {
        const answer = await h2exchange(client, { ':method': 'HEAD', ':path': '/file', range: 'bytes=0-4' });
        assert.equal(answer.status, 206);
      }
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(seen, Array.from({ length: 5 }, () => [false, 'sent']).flat());
    } finally {
      client.close();
      await new Promise<void>((resolve) => h2server.close(() => resolve()));
    }
  });

  it('gives the same status, headers and body over both for generated requests', async () => {
    const random = prng(0x4832);
    const cases = Array.from({ length: 400 }, () => requestCase(random));
    const differences: string[] = [];
    // The final handler logs the generated errors (production): kept out of the run's output.
    await captureStderrOf(async () => {
      for (const [i, generated] of cases.entries()) {
        const c = await withValidators(generated);
        const two = comparable(await h2(c));
        const one = withoutEndLength(c, comparable(await h1(c)), two);
        if (!isDeepStrictEqual(two, one)) {
          const show = (value: unknown) => inspect(value, { breakLength: Infinity, maxStringLength: 200, depth: 4 });
          differences.push(
            `#${i} ${c.method} ${c.path} ${show(c.headers)}` +
              `${c.body ? ` body ${c.length ? 'with' : 'without'} length` : ''}\n` +
              `  HTTP/1.1: ${show(one)}\n  HTTP/2:   ${show(two)}`,
          );
        }
      }
    });
    assert.equal(differences.length, 0, `${differences.length} of ${cases.length} differ:\n${differences.join('\n')}`);
  });
});
