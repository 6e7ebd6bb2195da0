/**
 * Generated hostile requests over raw sockets (seeded; WEBAPP_TEST_SEED draws others),
 * to a production-style app built alike on express@4 and on webapp, in a few variants
 * (`trust proxy` as a boolean, hop count, list, subnet or function; `subdomain
 * offset`; query parser; strict and case-sensitive routing; ETags; `static`'s options,
 * also mounted at the root; served by `app.listen` or by `http.createServer(app)`):
 * json and urlencoded parsers, cookie-parser (and webapp/middleware's cookieParser
 * beside Connect's), `static`, params, `app.param`, a regular-expression route, a
 * mounted router, `res.format`, `res.redirect` (to a query value and `back`),
 * `res.location`, `res.sendFile`, `res.download`, `res.cookie`, `res.set`,
 * `res.append`, `res.vary`, `res.type` and `res.attachment` given the request's
 * values, everything `req` reads echoed as JSON, and an error handler that echoes
 * the error.
 *
 * A case is up to four requests built from hostile pieces (malformed, authority- and
 * absolute-form targets, `//` paths, `%00`, `%2e%2e`, bad escapes, odd Hosts, proxy
 * header junk and lists, Range, Accept-*, Cookie, Content-Type, Cache-Control and
 * If-* junk, odd or unknown methods, huge, repeated, folded and refused headers,
 * upgrades, Transfer-Encoding with Content-Length, bad chunks, compressed bodies),
 * written at once (pipelined), in pieces a moment apart, or one after another's
 * answer on a kept-alive connection. What each server wrote until it closed the
 * connection is parsed into answers and compared (status line, header lines in order
 * but Date, X-Powered-By's value hidden, body). Clients that half-close or go away
 * (before the body ends, or in the middle of a 1 MB download) are held to the
 * invariants only, their answers being a matter of timing: after every case both
 * servers answer a plain GET, webapp never leaves a connection open past 4 s when
 * Express does not, never redirects off site on its own, and at the end holds no
 * connection and no file open; no exception or rejection goes uncaught.
 *
 * Where webapp differs by design (docs/migrating-from-express-4.md), Express's answer
 * is compared as webapp gives it: `static`'s directory redirect for an absolute-form
 * target names the path only (Express's names the client's host: an open redirect).
 * `Expect: 100-continue` and upgrades are not pipelined (the first is a documented
 * difference, after the second Node parses nothing more).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { deflateSync, gzipSync } from 'node:zlib';
import cookieParser from 'cookie-parser';
import express from 'express';
import webapp = require('../../src/index');
import * as middleware from '../../src/middleware/index';
import { brandHidden, isDeepStrictEqual, show, wireAnswers, type HeaderLines } from '../support/generated-answers';
import { randomText } from '../support/odd-values';
import { chance, pick, prng, type Random } from '../support/prng';
import { close } from '../support/raw-http';

type Any = any;

/** Connect 2.30's cookieParser (cookie-parser 1.3), the oracle of webapp/middleware's. */
const connectCookieParser = require('connect/node_modules/cookie-parser');

const SEED = 0x7a3_11e5;
const CASES = 600;
const VARIANTS = 4;
const SECRET = 'raw-secret';

/** `value` signed with SECRET, as cookie-signature signs (HMAC-SHA256, base64 without padding). */
const sign = (value: string): string =>
  `${value}.${createHmac('sha256', SECRET).update(value).digest('base64').replace(/=+$/, '')}`;

/**
 * The fixture folder, one copy a framework (same names, bytes and times, so the same
 * ETags and Last-Modified): a file webapp's side left open shows under its own copy.
 */
const roots = { express: '', webapp: '' };
const FILES: Record<string, string> = {
  'a.txt': 'hello, file\n',
  'page.html': '<p>page</p>\n',
  'data.json': '{"a":1}\n',
  '.secret': 'hidden\n',
  'caf\u00e9 file.txt': 'accented\n',
  'big.txt': '0123456789'.repeat(300),
  // Large enough that a client can leave in the middle of it.
  'large.bin': 'L'.repeat(1 << 20),
  'sub/index.html': '<p>index</p>\n',
  'evil.example/index.html': '<p>evil</p>\n',
};
before(() => {
  const when = new Date('2024-01-02T03:04:05Z');
  for (const name of ['express', 'webapp'] as const) {
    const root = mkdtempSync(join(tmpdir(), `raw-${name.slice(0, 3)}-`));
    for (const [file, text] of Object.entries(FILES)) {
      mkdirSync(join(root, file, '..'), { recursive: true });
      writeFileSync(join(root, file), text);
      utimesSync(join(root, file), when, when);
    }
    roots[name] = root;
  }
});
after(() => Object.values(roots).forEach((root) => rmSync(root, { recursive: true, force: true })));

/** The settings one pair of servers is built with. */
interface Variant {
  trustProxy: unknown;
  subdomainOffset: number;
  queryParser: string;
  strict: boolean;
  caseSensitive: boolean;
  etag: unknown;
  static: {
    dotfiles: string;
    fallthrough: boolean;
    redirect: boolean;
    extensions: string[] | false;
    index: string | false;
  };
  /** `static` also in front of everything, as a site serves its public folder. */
  staticAtRoot: boolean;
  /** Served by `app.listen` rather than `http.createServer(app)`. */
  listen: boolean;
}

const TRUST = [
  true,
  false,
  'loopback',
  0,
  1,
  2,
  '127.0.0.1',
  'loopback, 10.0.0.0/8',
  ['uniquelocal', '127.0.0.1/8'],
  (addr: string, i: number) => addr === '127.0.0.1' || i < 1,
];

function variant(random: Random): Variant {
  return {
    trustProxy: pick(random, TRUST),
    subdomainOffset: pick(random, [0, 1, 2, 3]),
    queryParser: pick(random, ['extended', 'simple']),
    strict: chance(random, 0.3),
    caseSensitive: chance(random, 0.3),
    etag: pick(random, ['weak', 'strong', false]),
    static: {
      dotfiles: pick(random, ['ignore', 'allow', 'deny']),
      fallthrough: chance(random, 0.7),
      redirect: chance(random, 0.8),
      extensions: chance(random, 0.5) ? ['html', 'txt'] : false,
      index: chance(random, 0.8) ? 'index.html' : false,
    },
    staticAtRoot: chance(random, 0.5),
    listen: chance(random, 0.5),
  };
}

function defineApp(framework: Any, v: Variant, root: string): http.RequestListener {
  const app = framework();
  app.set('env', 'production');
  app.set('trust proxy', v.trustProxy);
  app.set('subdomain offset', v.subdomainOffset);
  app.set('query parser', v.queryParser);
  app.set('strict routing', v.strict);
  app.set('case sensitive routing', v.caseSensitive);
  app.set('etag', v.etag);
  app.get('/health', (req: Any, res: Any) => res.send('ok'));
  // webapp/middleware's cookieParser (Connect 2.30's, for apps that keep it) beside Connect's own.
  app.get(
    '/mw-cookies',
    framework === express ? connectCookieParser(SECRET) : middleware.cookieParser(SECRET),
    (req: Any, res: Any) => res.json({ cookies: ordinary(req.cookies), signed: ordinary(req.signedCookies) }),
  );
  // cookie-parser on both sides, as a 4.x app moving to webapp keeps it (webapp/middleware's
  // cookieParser is Connect 2.30's, compared against Connect in test/middleware/).
  app.use(cookieParser(SECRET));
  app.use(framework.json({ limit: '2kb' }));
  app.use(framework.urlencoded({ extended: v.queryParser === 'extended', limit: '2kb', parameterLimit: 30 }));
  if (v.staticAtRoot) app.use(framework.static(root, { ...v.static, fallthrough: true }));
  app.use('/static', framework.static(root, v.static));
  app.param('id', (req: Any, res: Any, next: Any, id: string) => {
    if (!/^\d+$/.test(id)) return next(Object.assign(new Error(`bad id ${id}`), { status: 400, expose: true }));
    req.userId = Number(id);
    next();
  });
  app.get('/users/:id', (req: Any, res: Any) => res.json({ id: req.userId, params: req.params, query: req.query }));
  app.get('/users/:id/:rest(*)', (req: Any, res: Any) => res.json({ params: req.params }));
  app.get(/^\/re\/(\w+)-(\d+)$/, (req: Any, res: Any) => res.json({ params: req.params, path: req.path }));
  app.get('/opt/:a?/:b(\\d+)?', (req: Any, res: Any) => res.json({ params: req.params }));
  const api = framework.Router({ mergeParams: true });
  api.get('/items/:id', (req: Any, res: Any) =>
    res.json({ params: req.params, baseUrl: req.baseUrl, url: req.url, originalUrl: req.originalUrl }),
  );
  app.use('/api/:version', api);
  app.all('/echo*', echo);
  app.get('/format', (req: Any, res: Any) =>
    res.format({
      'text/plain': () => res.send('plain'),
      html: () => res.send('<b>html</b>'),
      json: () => res.json({ type: 'json' }),
    }),
  );
  app.get('/go', (req: Any, res: Any) => res.redirect(req.query.to));
  app.get('/back', (req: Any, res: Any) => res.redirect('back'));
  app.get('/loc', (req: Any, res: Any) => res.location(req.query.to ?? 'back').sendStatus(201));
  app.get('/files/:name', (req: Any, res: Any, next: Any) =>
    res.sendFile(req.params.name, { root, dotfiles: req.query.dot }, (err: Any) => err && next(err)),
  );
  app.all('/cookie', (req: Any, res: Any) => {
    const from = { ...req.query, ...(typeof req.body === 'object' ? req.body : {}) };
    const options: Any = { signed: from.s === '1', path: from.p, domain: from.d, sameSite: from.ss };
    if (from.m !== undefined) options.maxAge = Number(from.m);
    res.cookie(from.n ?? 'c', from.v ?? req.cookies.v ?? req.get('x-value'), options);
    res.json({ cookies: req.cookies, signed: req.signedCookies });
  });
  app.get('/set', (req: Any, res: Any) => res.set(req.query.name ?? 'X-Echo', req.query.h).send('set'));
  app.get('/append', (req: Any, res: Any) => res.append('Link', req.query.h).append('Link', '</x>').send('appended'));
  app.get('/vary', (req: Any, res: Any) => res.vary(req.query.f).send('vary'));
  app.get('/type', (req: Any, res: Any) => res.type(String(req.query.t)).send('type'));
  app.get('/attach', (req: Any, res: Any) => res.attachment(req.query.f).send('attached'));
  app.get('/dl/:name', (req: Any, res: Any, next: Any) =>
    res.download(req.params.name, req.query.as, { root }, (err: Any) => err && next(err)),
  );
  app.get('/boom', (req: Any) => {
    throw Object.assign(new Error(String(req.query.msg)), { status: Number(req.query.status) || undefined });
  });
  app.use((err: Any, req: Any, res: Any, next: Any) => {
    if (res.headersSent) return next(err);
    res.status(err.status || 500).json({
      status: err.status,
      statusCode: err.statusCode,
      type: err.type,
      expose: err.expose,
      code: err.code,
      // A message may name a file under the side's own copy of the fixtures.
      message: String(err.message).replaceAll(root, '<root>'),
    });
  });
  return app;
}

/**
 * Cookies but those named after Object.prototype's members: Connect's parser drops
 * them, webapp's keeps them (docs/migrating-from-express-3.md).
 */
function ordinary(cookies: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(cookies).filter(([name]) => !(name in Object.prototype)));
}

/** Everything `req` reads, as JSON; ETag and Last-Modified set first so `fresh` has something to compare. */
function echo(req: Any, res: Any): void {
  res.set('ETag', '"v1"');
  res.set('Last-Modified', 'Thu, 01 Jan 2015 00:00:00 GMT');
  // A parsed Range is an array with a `type`, which JSON would leave out.
  const ranges = (parsed: Any) =>
    Array.isArray(parsed) ? { type: (parsed as Any).type, ranges: [...parsed] } : parsed;
  res.json({
    method: req.method,
    url: req.url,
    originalUrl: req.originalUrl,
    path: req.path,
    params: req.params,
    query: req.query,
    body: req.body,
    cookies: req.cookies,
    signed: req.signedCookies,
    hostname: req.hostname,
    host: req.get('host'),
    ip: req.ip,
    ips: req.ips,
    protocol: req.protocol,
    secure: req.secure,
    subdomains: req.subdomains,
    fresh: req.fresh,
    stale: req.stale,
    xhr: req.xhr,
    range: ranges(req.range(1000)),
    combined: ranges(req.range(100, { combine: true })),
    accepts: req.accepts(),
    acceptsJsonHtml: req.accepts('json', 'html'),
    acceptsText: req.accepts('text/plain'),
    encodings: req.acceptsEncodings(),
    gzip: req.acceptsEncodings('gzip', 'identity'),
    charsets: req.acceptsCharsets(),
    utf8: req.acceptsCharsets('utf-8', 'iso-8859-1'),
    languages: req.acceptsLanguages(),
    english: req.acceptsLanguages('en', 'fr'),
    isJson: req.is('json'),
    isAny: req.is('application/*', 'text/*'),
    isForm: req.is('urlencoded'),
    referrer: req.get('referrer'),
    contentType: req.get('content-type'),
  });
}

// The hostile pieces requests are made of.

const PATHS = [
  '/echo',
  '/echo/',
  '/ECHO',
  '/echo/a/b',
  '/echo//x',
  '/echo/%2e%2e/%2e%2e',
  '/echo/%00',
  '/echo/%',
  '/echo/%E0%A4%A',
  '/echo/%C0%AF',
  '/echo/caf%C3%A9',
  '/echo;x=1',
  '/echo/./a/../b',
  '/users/12',
  '/users/abc',
  '/users/%',
  '/users/%2e%2e',
  '/users/1%00',
  '/users/12/a/b%2Fc',
  '/users/' + '9'.repeat(400),
  '/re/abc-12',
  '/re/%61bc-1',
  '/re/a%2Fb-1',
  '/re/abc-',
  '/opt',
  '/opt/x',
  '/opt/x/12',
  '/opt/x/y',
  '/api/v1/items/7',
  '/api/%/items/7',
  '/api/v%00/items/%2e',
  '/api//items/7',
  '/static/a.txt',
  '/static/a',
  '/static/page',
  '/static/big.txt',
  '/static/large.bin',
  '/static/data.json',
  '/static/.secret',
  '/static/%2esecret',
  '/static/sub',
  '/static/sub/',
  '/static/sub%2F',
  '/static/evil.example',
  '/static//evil.example',
  '/static/%2e%2e/%2e%2e/etc/passwd',
  '/static/..%2f..%2fetc%2fpasswd',
  '/static/..%5c..%5cetc%5cpasswd',
  '/static/a.txt%00.html',
  '/static/%00',
  '/static/%',
  '/static/caf%C3%A9%20file.txt',
  '/static/caf%E9%20file.txt',
  '/static/a.txt/',
  '/files/a.txt',
  '/files/.secret',
  '/files/..%2f..%2fetc%2fpasswd',
  '/files/%2e%2e',
  '/files/%00',
  '/files/big.txt',
  '/files/large.bin',
  '/files/sub',
  '/files/caf%C3%A9%20file.txt',
  '/format',
  '/go',
  '/back',
  '/set',
  '/append',
  '/vary',
  '/type',
  '/attach',
  '/dl/a.txt',
  '/dl/%2e%2e%2fa.txt',
  '/dl/large.bin',
  '/dl/missing',
  '/loc',
  '/cookie',
  '/mw-cookies',
  '/mw-cookies',
  '/boom',
  '/nowhere',
  '/%',
  '/%2e%2e',
  '/..',
  '/<script>alert(1)</script>',
  '/' + 'x'.repeat(3000),
];

const QUERIES = [
  '',
  '',
  '',
  '?a=1',
  '?a=1&a=2',
  '?a[b]=1&a[c]=2',
  '?a[__proto__][x]=1&constructor[prototype][y]=2',
  '?__proto__=1',
  '?%',
  '?a=%zz&b=%E0%A4%A',
  '?a[]=1&a[]=2&a[5]=3',
  '?' + 'a[]=1&'.repeat(60),
  '?a[b][c][d][e][f][g]=1',
  '?to=http://ok.example/p',
  '?to=//evil.example',
  '?to=/\\evil.example',
  '?to=%2F%2Fevil.example',
  '?to=javascript:alert(1)',
  '?to=%0d%0aSet-Cookie:%20x=1',
  '?to=back',
  '?to=http://%E2%82%AC.example/%F0%9F%98%80',
  '?to[]=a&to[]=b',
  '?to=',
  '?to=<script>',
  '?n=a&v=1',
  '?n=a;b&v=1',
  '?n=__proto__&v=x',
  '?n=a&v=%0d%0a',
  '?n=a&v=1&s=1',
  '?n=a&v[]=1&v[]=2',
  '?n=a&v=1&p=/x;%20Domain=evil',
  '?n=a&v=1&d=evil.example;x',
  '?n=a&v=1&ss=strict',
  '?n=a&v=1&ss=bogus',
  '?n=a&v=1&m=1000',
  '?n=a&v=1&m=abc',
  '?n=a&v[x]=1',
  '?n[]=a',
  '?status=404&msg=gone',
  '?status=600&msg=odd',
  '?status=abc&msg=%3Cb%3E',
  '?status=401&msg=%E2%80%A8',
  '?h=plain',
  '?h=%0d%0aX-Injected:%201',
  '?h=%00',
  '?h=caf%C3%A9',
  '?h=%E2%82%AC',
  '?h=%7F',
  '?h[]=a&h[]=b',
  '?name=X%20Y&h=1',
  '?name=Content-Type&h=text/x',
  '?name=Set-Cookie&h=a=1',
  '?name=Content-Length&h=1',
  '?name=&h=1',
  '?f=a.txt',
  '?f=%22quoted%22.txt',
  '?f=%E2%82%AC%20rates.txt',
  '?f=../../etc/passwd',
  '?f=%0d%0a.txt',
  '?f=Accept,%20X%20Y',
  '?f=*',
  '?f[]=a',
  '?t=json',
  '?t=text/html;%20charset=bogus',
  '?t=%00',
  '?t=',
  '?t=nosuch',
  '?t=.ext',
  '?as=report.pdf',
  '?as=%E2%82%AC.txt',
  '?as=a%22b%0d%0ac.txt',
  '?as=../x',
  '?dot=allow',
  '?dot=deny',
  '?callback=x',
];

/** Prefixes of the request-target: origin-form, doubled slashes, absolute-form. */
const PREFIXES = [
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '/',
  '//',
  'http://evil.example',
  'http://localhost:3000',
  'HTTP://a@b',
  'https://user:pass@[::1]:8080',
  'http://evil.example:abc',
  'ftp://x',
];

/** Targets that are not made of pieces. */
const ODD_TARGETS = [
  'evil.example:443',
  'localhost:80',
  'http://[::1%25eth0]/echo',
  'http://[::1]/echo',
  'http://user@[::1]:80/echo',
  '*',
  'echo',
  '?a=1',
  '/echo\u00e9',
  '/echo%',
  'http://',
  'http:///echo',
  '//',
  '///echo',
  '/\\echo',
];

const METHODS = [
  'GET',
  'GET',
  'GET',
  'GET',
  'GET',
  'HEAD',
  'POST',
  'POST',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
];
/** Methods in odd case, unknown to Node (its parser refuses them), or known to it but to no route. */
const ODD_METHODS = [
  'get',
  'Post',
  'FOO',
  'PROPFIND',
  'SEARCH',
  'QUERY',
  'M-SEARCH',
  'TRACE',
  'PURGE',
  'LINK',
  'CONNECT',
];

const HOSTS = [
  'localhost',
  'localhost',
  'localhost:3000',
  '',
  'a.b.example.com',
  'x.y.z.example.co.uk:8080',
  '127.0.0.1',
  '127.0.0.1:80',
  '[::1]',
  '[::1]:3000',
  '[::1',
  '::1',
  'user@evil.example',
  'user:pass@host:1',
  'host:',
  ':80',
  '.',
  '..example',
  'ex\u00e4mple.com',
  'EXAMPLE.COM',
  'a'.repeat(300) + '.example',
  'evil.example, good.example',
  'host:99999',
  'host name',
];

const FORWARDED_FOR = [
  '1.2.3.4',
  '1.2.3.4, 10.0.0.1',
  '1.2.3.4,10.0.0.1, 127.0.0.1',
  ' , ,',
  'garbage',
  '::1',
  '[::1]',
  '::ffff:127.0.0.1',
  '1.2.3.4:80',
  '256.1.1.1',
  '',
  '10.0.0.1, 10.0.0.2, 10.0.0.3, 10.0.0.4',
  Array.from({ length: 50 }, (_, i) => `10.0.${i}.1`).join(', '),
];
const FORWARDED_PROTO = ['https', 'HTTPS', 'https, http', 'http,https', '', ' https', 'ftp', 'https\t', 'ws'];
const FORWARDED_HOST = [
  'evil.example',
  'evil.example:8080',
  '[::1]:8080',
  'a.example, b.example',
  'a.example , b.example',
  'a.example:81 ,b.example',
  '',
  ' ',
  'user@evil.example',
  '[::1',
  'sub.sub.example.com',
];
const RANGES = [
  'bytes=0-4',
  'bytes=-3',
  'bytes=5-',
  'bytes=0-0,-1',
  'bytes=9-1',
  'bytes=abc',
  'bytes=',
  'bytes=0-1,1-2,2-3,3-4,4-5',
  'items=0-5',
  'bytes = 0-1',
  'bytes=0-1;',
  'bytes=1000-2000',
  'bytes=-0',
  'bytes=0-18446744073709551616',
  'bytes=0-1,',
  ',',
  'bytes=' + '0-1,'.repeat(200) + '0-1',
];
const ACCEPTS = [
  'application/json',
  'text/html;q=0.5, application/json;q=0.9',
  '*/*;q=abc',
  'application/json;q=1.5',
  ';q=0',
  'text/*, */*;q=0',
  'a/b/c',
  '',
  ',,,',
  'text/plain;level=1;q=0.3, text/html',
  'application/json;q=0.000001, text/html;q=0',
  'text/html;q=-1',
  'image/*;q=0.8, text/*;q=0.8',
  'text/html;charset="utf-8";q=0.1',
  '*/*',
  'text/plain, application/json',
  'TEXT/HTML',
  Array.from({ length: 80 }, (_, i) => `type${i}/sub;q=0.${i % 10}`).join(', '),
];
const ENCODINGS = ['gzip;q=0, *', 'identity;q=0', 'br;q=1.0, gzip;q=abc', '*;q=0', '', 'gzip, deflate', 'GZIP'];
const LANGUAGES = ['en-US,en;q=0.9,*;q=0.5', 'x', '*', 'fr;q=0', 'en-', ';;', 'EN'];
const CHARSETS = ['utf-8;q=0', 'iso-8859-1, *;q=0', '*', 'UTF-8', 'x;q=1.0001'];
const COOKIES = [
  'a=1; b=2',
  `s=s%3A${encodeURIComponent(sign('good'))}`,
  's=s%3Agood.badsignature',
  `s=${sign('unprefixed')}`,
  'j=j%3A%7B%22a%22%3A1%7D',
  'j=j:[1,2]',
  'j=j%3A%7B',
  '__proto__=x; constructor=y; toString=z',
  'a=%E0%A4%A',
  'a="quoted"',
  'a="half',
  '=;==;;',
  'a=b=c',
  'a',
  ' a = 1 ',
  'a=1; a=2',
  'v=%0d%0aX:1',
  'v=' + 'y'.repeat(3000),
];
const CONTENT_TYPES = [
  'application/json',
  'APPLICATION/JSON',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset="utf-16"',
  'application/json;;',
  'application/vnd.api+json',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=iso-8859-1',
  'text/plain',
  'multipart/form-data',
  '',
  ';',
  'json',
  'application/json ; charset=utf-8',
  'application/json; charset',
  'application/json; charset=utf-8; charset=latin1',
];
const ETAGS = ['*', '"v1"', 'W/"v1"', '"v0", "v1"', '"', ',', 'v1', '"v2"'];
const DATES = ['Thu, 01 Jan 2015 00:00:00 GMT', 'Thu, 01 Jan 2099 00:00:00 GMT', 'garbage', '', '0', '-1'];
const REFERERS = [
  'http://ok.example/from',
  '//evil.example',
  'javascript:alert(1)',
  'http://ok.example/a b',
  '/\\evil.example',
  'http://\u00e9vil.example/',
  '%0d%0aX: 1',
  '<script>',
  '',
];
const BODIES = [
  '{"a":1}',
  '{"__proto__":{"x":1},"constructor":{"prototype":{"y":1}}}',
  '{"n":"a","v":"1","s":"1"}',
  '{"n":"a;b","v":{"x":1}}',
  '[' + '['.repeat(500),
  '{',
  '"str"',
  'null',
  'a=1&a[__proto__][z]=1',
  'a[100]=1&a[1]=2',
  'n=a&v=%0d%0a',
  'a=%&b=%zz',
  '\u0000\u0001',
  'x'.repeat(3000),
  '',
  '%FF%FE',
];

/** Compressed bodies, whole and cut short, with the Content-Encoding they go with (bytes as latin1 text). */
const COMPRESSED: ReadonlyArray<[string, string]> = [
  ['gzip', gzipSync('{"a":1}').toString('latin1')],
  ['gzip', gzipSync('n=a&v=zipped').toString('latin1')],
  ['gzip', gzipSync('{"a":1}').subarray(0, 12).toString('latin1')],
  ['gzip', gzipSync('x'.repeat(50_000)).toString('latin1')],
  ['deflate', deflateSync('{"d":1}').toString('latin1')],
  ['x-gzip', gzipSync('{"a":1}').toString('latin1')],
  ['gzip, deflate', deflateSync(gzipSync('{"a":1}')).toString('latin1')],
  ['GZIP', gzipSync('{"a":1}').toString('latin1')],
];

/** One request as it goes on the wire, with what its answer depends on. */
interface Piece {
  head: string;
  body: string;
  method: string;
}

/** What paths under the file routes are made of, a few pieces at a time. */
const PATH_PIECES = [
  '/',
  '/',
  '.',
  '..',
  '%2e',
  '%2E%2e',
  '%2f',
  '%2F',
  '%5c',
  '\\',
  '%00',
  'sub',
  'a.txt',
  'page',
  '.secret',
  'large.bin',
  'evil.example',
  'index.html',
  '%',
  '%C3%A9',
  'caf%E9',
  ';x',
  '~',
  '%20',
  '//',
  '%252e',
  '?',
  '#',
];

/** Where a body is read. */
const BODY_PATHS = ['/echo', '/echo/a/b', '/cookie'];

function target(random: Random, withBody: boolean): string {
  if (chance(random, 0.03)) return pick(random, ODD_TARGETS);
  if (chance(random, 0.12))
    return (
      pick(random, ['/static/', '/files/', '/dl/', '/']) + randomText(random, PATH_PIECES, 6) + pick(random, QUERIES)
    );
  const path = withBody && chance(random, 0.6) ? pick(random, BODY_PATHS) : pick(random, PATHS);
  return pick(random, PREFIXES) + path + pick(random, QUERIES);
}

function headerLinesFor(random: Random): string[] {
  const lines: string[] = [];
  const sometimes = (p: number, name: string, values: readonly string[]) => {
    if (chance(random, p)) lines.push(`${name}: ${pick(random, values)}`);
  };
  const host = chance(random, 0.7) ? 'localhost' : pick(random, HOSTS);
  if (!chance(random, 0.03)) lines.push(`Host: ${host}`);
  if (chance(random, 0.03)) lines.push(`Host: ${pick(random, HOSTS)}`);
  sometimes(0.3, 'X-Forwarded-For', FORWARDED_FOR);
  if (chance(random, 0.05)) lines.push(`X-Forwarded-For: ${pick(random, FORWARDED_FOR)}`);
  sometimes(0.25, 'X-Forwarded-Proto', FORWARDED_PROTO);
  sometimes(0.25, 'X-Forwarded-Host', FORWARDED_HOST);
  sometimes(0.25, 'Range', RANGES);
  sometimes(0.1, 'If-Range', [...ETAGS, ...DATES]);
  sometimes(0.35, 'Accept', ACCEPTS);
  sometimes(0.15, 'Accept-Encoding', ENCODINGS);
  sometimes(0.15, 'Accept-Language', LANGUAGES);
  sometimes(0.1, 'Accept-Charset', CHARSETS);
  sometimes(0.3, 'Cookie', COOKIES);
  if (chance(random, 0.05)) lines.push(`Cookie: ${pick(random, COOKIES)}`);
  sometimes(0.2, 'If-None-Match', ETAGS);
  sometimes(0.15, 'If-Modified-Since', DATES);
  sometimes(0.05, 'If-Match', ETAGS);
  sometimes(0.05, 'If-Unmodified-Since', DATES);
  sometimes(0.15, 'Referer', REFERERS);
  sometimes(0.08, 'Cache-Control', [
    'no-cache',
    'max-age=0, no-cache',
    'no-cache=x',
    'NO-CACHE',
    ' no-cache ',
    'nocache',
  ]);
  sometimes(0.05, 'Referrer', REFERERS);
  sometimes(0.1, 'X-Requested-With', ['XMLHttpRequest', 'xmlhttprequest', 'XMLHttpRequest, x', '']);
  sometimes(0.1, 'X-Value', ['plain', 'caf\u00e9', 'a;b', 'a\tb']);
  // An upgrade no server here listens for, a header folded over two lines, a name Node refuses.
  if (chance(random, 0.03)) lines.push('Upgrade: websocket', 'Connection: Upgrade');
  if (chance(random, 0.02))
    lines.push(pick(random, ['X-Forwarded-For: 1.2.3.4\r\n 5.6.7.8', 'Accept: text/html\r\n\t, application/json']));
  if (chance(random, 0.02))
    lines.push(pick(random, ['X-Forwarded-For : 1.2.3.4', 'X Y: 1', ': empty', 'X-\u00e9: 1', 'Host:localhost']));
  // Huge: under Node's 16 KB limit on a head, or over it.
  if (chance(random, 0.03)) lines.push(`X-Big: ${'b'.repeat(pick(random, [8000, 17000]))}`);
  if (chance(random, 0.03)) for (let i = 0; i < 120; i++) lines.push(`X-Many-${i}: ${i}`);
  // Now and then a line left out, and two lines swapped.
  const kept = lines.filter(() => !chance(random, 0.02));
  if (kept.length > 1 && chance(random, 0.2)) {
    const [i, j] = [Math.floor(random() * kept.length), Math.floor(random() * kept.length)];
    [kept[i], kept[j]] = [kept[j], kept[i]];
  }
  return kept;
}

function chunked(random: Random, body: string): string {
  if (body === '') return '0\r\n\r\n';
  const size = body.length.toString(16);
  return pick(random, [
    `${size}\r\n${body}\r\n0\r\n\r\n`,
    `${size}\r\n${body}\r\n0\r\n\r\n`,
    `${size}\r\n${body}\r\n0\r\n\r\n`,
    `${size};ext=1\r\n${body}\r\n0\r\n\r\n`,
    `${size.toUpperCase()}\r\n${body}\r\n0\r\nX-Trailer: 1\r\n\r\n`,
    `zz\r\n${body}\r\n0\r\n\r\n`,
    `${size}\r\n${body}0\r\n\r\n`,
    `-1\r\n${body}\r\n0\r\n\r\n`,
  ]);
}

/** How a request's end reaches the server. */
type Ending = 'whole' | 'half-close' | 'destroy';

function piece(random: Random): Piece & { ending: Ending } {
  const method = chance(random, 0.08) ? pick(random, ODD_METHODS) : pick(random, METHODS);
  const lines = headerLinesFor(random);
  let body = '';
  let ending: Ending = 'whole';
  const withBody = chance(random, 0.45);
  if (withBody) {
    let text = pick(random, BODIES);
    if (chance(random, 0.9)) lines.push(`Content-Type: ${pick(random, CONTENT_TYPES)}`);
    if (chance(random, 0.03)) lines.push(`Content-Type: ${pick(random, CONTENT_TYPES)}`);
    if (chance(random, 0.1)) {
      const [encoding, bytes] = pick(random, COMPRESSED);
      lines.push(`Content-Encoding: ${encoding}`);
      text = bytes;
    } else if (chance(random, 0.04)) lines.push(`Content-Encoding: ${pick(random, ['gzip', 'identity', 'bogus'])}`);
    const framing = pick(random, [
      'length',
      'length',
      'length',
      'length',
      'length',
      'length',
      'chunked',
      'chunked',
      'both',
      'odd-length',
      'short',
      'early',
      'early',
    ]);
    // Bodies are ASCII or bytes as latin1 text: one character a byte.
    const length = text.length;
    if (framing === 'length') {
      lines.push(`Content-Length: ${length}`);
      body = text;
    } else if (framing === 'chunked') {
      lines.push('Transfer-Encoding: chunked');
      body = chunked(random, text);
    } else if (framing === 'both') {
      lines.push(
        `Content-Length: ${length}`,
        pick(random, ['Transfer-Encoding: chunked', 'Transfer-Encoding: gzip, chunked', 'Transfer-Encoding: identity']),
      );
      body = chunked(random, text);
    } else if (framing === 'odd-length') {
      const odd = ['-1', 'abc', `${length}e0`, ` ${length} `, `${length}, ${length}`, `+${length}`, ''];
      lines.push(`Content-Length: ${pick(random, odd)}`);
      body = text;
    } else if (framing === 'short') {
      // Shorter than the body: the rest reads as the next request.
      lines.push(`Content-Length: ${length >> 1}`);
      body = text;
    } else {
      // The body stops before its declared length, and the client half-closes or goes away.
      lines.push(chance(random, 0.7) ? `Content-Length: ${length + 50}` : 'Transfer-Encoding: chunked');
      body = lines.at(-1)!.startsWith('Transfer') ? `${(length + 50).toString(16)}\r\n${text}` : text;
      ending = chance(random, 0.5) ? 'half-close' : 'destroy';
    }
  }
  // A client that leaves or half-closes after a whole request (in the middle of a download, say).
  if (ending === 'whole' && chance(random, 0.08)) ending = chance(random, 0.6) ? 'destroy' : 'half-close';
  if (chance(random, 0.02)) lines.push('Expect: 100-continue');
  const version = chance(random, 0.03) ? pick(random, ['HTTP/1.0', 'HTTP/0.9', 'HTTP/2.0', 'HTTP/1.1 ']) : 'HTTP/1.1';
  return { head: `${method} ${target(random, withBody)} ${version}\r\n${lines.join('\r\n')}`, body, method, ending };
}

/**
 * How a case's bytes are written: in one write (several requests pipelined), in a
 * few writes a moment apart (a head or a body, a UTF-8 character even, cut between
 * two reads), or one request at a time on a kept-alive connection, each once the
 * answer to the one before has come whole.
 */
type Delivery = 'one' | 'split' | 'sequential';

/** One case: one request, or up to four on one connection (all but the last kept alive). */
interface Case {
  /** Each request's bytes. */
  parts: Buffer[];
  methods: string[];
  ending: Ending;
  variant: number;
  delivery: Delivery;
  /** Where a split delivery cuts the bytes, ascending. */
  cuts: number[];
}

function generate(random: Random): Case {
  const count = chance(random, 0.25) ? pick(random, [2, 3, 4]) : 1;
  const pieces: Array<Piece & { ending: Ending }> = [];
  for (let i = 0; i < count; i++) {
    const next = piece(random);
    // Only the last request can stop early.
    if (i < count - 1 && next.ending !== 'whole') continue;
    // Pipelined, an Expect is a documented difference, and Node parses nothing after an
    // upgrade no one listens for (the connection waits for its timeout on both).
    if (count > 1)
      next.head = next.head.replace(
        /\r\n(?:Expect: 100-continue|Upgrade: websocket|Connection: Upgrade)(?=\r\n|$)/g,
        '',
      );
    pieces.push(next);
  }
  // Heads beyond ASCII go as UTF-8, as most clients send them, or as latin1; bodies are bytes.
  const headEncoding = chance(random, 0.5) ? 'utf8' : 'latin1';
  const parts = pieces.map((p, i) =>
    Buffer.concat([
      Buffer.from(`${p.head}\r\nConnection: ${i === pieces.length - 1 ? 'close' : 'keep-alive'}\r\n\r\n`, headEncoding),
      Buffer.from(p.body, 'latin1'),
    ]),
  );
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const delivery: Delivery = pick(random, [
    'one',
    'one',
    'one',
    'split',
    'split',
    parts.length > 1 ? 'sequential' : 'one',
  ]);
  const cuts = Array.from({ length: 1 + Math.floor(random() * 3) }, () => Math.floor(random() * length));
  return {
    parts,
    methods: pieces.map((p) => p.method),
    ending: pieces.at(-1)!.ending,
    variant: Math.floor(random() * VARIANTS),
    delivery,
    cuts: [...new Set(cuts)].sort((a, b) => a - b),
  };
}

/** Everything the server wrote, until it closed the connection, and how it ended. */
interface Outcome {
  data: Buffer;
  end: 'closed' | 'timeout';
}

const HANG = 4000;

function exchange(port: number, c: Case): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (end: Outcome['end']) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ data: Buffer.concat(chunks), end });
    };
    const timer = setTimeout(() => finish('timeout'), HANG);
    // The writes: one a request (sequential), a few pieces (split), or everything at once.
    const all = Buffer.concat(c.parts);
    const rest = c.delivery === 'sequential' ? [...c.parts] : c.delivery === 'split' ? cut(all, c.cuts) : [all];
    let sent = 1;
    const ended = () => {
      if (c.ending === 'half-close') socket.end();
      // Gone before the answer, once the server has had what was sent.
      if (c.ending === 'destroy') setTimeout(() => finish('closed'), 15);
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // Gone in the middle of the answer.
      if (c.ending === 'destroy' && rest.length === 0) return finish('closed');
      // The next request once every answer so far has come whole.
      if (c.delivery === 'sequential' && rest.length > 0 && responses(Buffer.concat(chunks), c.methods).whole >= sent) {
        sent++;
        socket.write(rest.shift()!);
        if (rest.length === 0) ended();
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish('closed'));
    socket.write(rest.shift()!);
    if (c.delivery === 'split') {
      // A moment between writes, so that each arrives in a read of its own.
      const writeNext = () => {
        if (done) return;
        if (rest.length === 0) return ended();
        socket.write(rest.shift()!);
        setTimeout(writeNext, 2);
      };
      setTimeout(writeNext, 2);
    } else if (rest.length === 0) ended();
  });
}

/** `bytes` cut at `cuts` (ascending offsets), empty pieces left out. */
function cut(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const pieces: Buffer[] = [];
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    if (at > from) pieces.push(bytes.subarray(from, at));
    from = Math.max(from, at);
  }
  return pieces;
}

/** One response read from the stream, as compared. */
interface Response {
  status: string;
  headers: HeaderLines;
  body: string;
}

/**
 * The responses in what a server wrote, in order, without Date and with the brand hidden;
 * `whole`: how many final answers have come whole.
 */
function responses(
  data: Buffer,
  methods: readonly string[],
): { list: Response[]; rest: string; whole: number; lastCut: boolean } {
  const { list, rest } = wireAnswers(data.toString('latin1'), (final) => methods[final]?.toUpperCase() === 'HEAD');
  const last = list.at(-1);
  return {
    list: list.map(({ status, headers, body }) => ({
      status,
      headers: brandHidden(headers.filter(([name]) => name !== 'date')),
      body,
    })),
    rest,
    whole: list.filter((answer) => !answer.interim && answer.whole).length,
    lastCut: last !== undefined && !last.interim && !last.whole,
  };
}

/** An answer Node's parser wrote for bytes it refused (400, 431...): no header but Connection. */
function refused(res: Response | undefined): boolean {
  return res !== undefined && res.body === '' && res.headers.length === 1 && res.headers[0][0] === 'connection';
}

/**
 * What of an answer is compared. Where the bytes came in pieces and a later piece was
 * refused by Node's parser, Node drops the answers the app had not begun to write by
 * then: how many it had is a matter of timing, so only the refusal is compared. A piece
 * refused while an answer was being written (a file streaming out) ends the connection
 * without a refusal: how much of that answer got out first is timing too (and the
 * chunks a file is streamed in, 64 KB on Express, 128 KB on webapp), so its head is
 * compared and its body is not.
 */
function comparable(answer: ReturnType<typeof responses>, c: Case): ReturnType<typeof responses> {
  if (c.delivery !== 'split') return answer;
  if (refused(answer.list.at(-1))) return { ...answer, list: answer.list.slice(-1) };
  if (!answer.lastCut) return answer;
  const cut = answer.list.at(-1)!;
  return { ...answer, list: [...answer.list.slice(0, -1), { ...cut, body: '' }] };
}

/** A Location a browser would resolve to another origin: protocol-relative, backslash-led or absolute. */
const OFF_SITE = /^(?:[/\\]{2}|\\|[a-z][a-z0-9+.-]*:)/i;

/** The scheme and authority of an absolute URL. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/**
 * Express's answers as webapp gives them where the migration guide says they differ:
 * `static` redirects a directory asked for by an absolute-form target to the path
 * only (`Location: /dir/`), where Express names the host the client put in the
 * request line (an open redirect). Only a 301 whose Location webapp gives without
 * that origin is rewritten.
 */
function documented(expected: Response[], actual: Response[]): Response[] {
  return expected.map((res, i) => {
    const location = res.headers.find(([name]) => name === 'location')?.[1];
    const origin = location === undefined ? null : ORIGIN.exec(location);
    const theirs = actual[i]?.headers.find(([name]) => name === 'location')?.[1];
    if (!res.status.includes(' 301 ') || origin === null || theirs !== location!.slice(origin[0].length)) return res;
    const body = res.body.replace(`Redirecting to ${origin[0]}`, 'Redirecting to ');
    return {
      ...res,
      headers: res.headers.map(([name, value]): [string, string] => [
        name,
        // The page names the Location once (a HEAD answer has only its length).
        name === 'location' ? theirs : name === 'content-length' ? String(Number(value) - origin[0].length) : value,
      ]),
      body,
    };
  });
}

/**
 * A Set-Cookie made with maxAge carries an Expires from the clock: a second boundary
 * between the two answers is not a difference.
 */
function clockless(list: Response[]): Response[] {
  return list.map((res) => ({
    ...res,
    headers: res.headers.map(([name, value]): [string, string] =>
      name === 'set-cookie' && /Max-Age=/i.test(value)
        ? [name, value.replace(/Expires=[^;]*/, 'Expires=<clock>')]
        : [name, value],
    ),
  }));
}

async function healthy(port: number): Promise<boolean> {
  const { data, end } = await exchange(port, {
    parts: [Buffer.from('GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')],
    methods: ['GET'],
    ending: 'whole',
    variant: 0,
    delivery: 'one',
    cuts: [],
  });
  return end === 'closed' && /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nok$/.test(data.toString('latin1'));
}

/** The files under `root` the process holds open, where /proc says (Linux); waits a little for closes under way. */
async function openFiles(root: string): Promise<string[]> {
  if (!existsSync('/proc/self/fd')) return [];
  let open: string[] = [];
  for (let wait = 0; wait < 40; wait++) {
    open = readdirSync('/proc/self/fd').flatMap((fd) => {
      try {
        const target = readlinkSync(`/proc/self/fd/${fd}`);
        return target.startsWith(root) ? [target] : [];
      } catch {
        return [];
      }
    });
    if (open.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return open;
}

/** The app's server: its own (`app.listen`, which webapp gives the app's classes) or one made around it. */
function serve(app: Any, listen: boolean): http.Server {
  return listen ? app.listen(0, '127.0.0.1') : http.createServer(app).listen(0, '127.0.0.1');
}

async function listening(server: http.Server): Promise<number> {
  if (!server.listening) await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

async function connections(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.getConnections((_err, count) => resolve(count)));
}

describe('generated hostile requests over raw sockets: webapp answers as express@4 does', () => {
  it(`${CASES} seeded cases on ${VARIANTS} app variants, and both keep serving`, async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUncaught);
    // The same notices on both sides (res.location('back'), url.parse of a bad port), tested elsewhere.
    const noDeprecation = process.noDeprecation;
    process.noDeprecation = true;
    const random = prng(SEED);
    const variants = Array.from({ length: VARIANTS }, () => variant(random));
    const servers = variants.map((v) => ({
      oracle: serve(defineApp(express, v, roots.express), v.listen),
      subject: serve(defineApp(webapp, v, roots.webapp), v.listen),
    }));
    const ports = await Promise.all(
      servers.map(async (s) => ({ oracle: await listening(s.oracle), subject: await listening(s.subject) })),
    );
    const differences: string[] = [];
    try {
      for (let i = 0; i < CASES; i++) {
        const c = generate(random);
        const port = ports[c.variant];
        const [expected, actual] = await Promise.all([exchange(port.oracle, c), exchange(port.subject, c)]);
        const request = show(Buffer.concat(c.parts).toString('latin1'), 600);
        const how = `${c.delivery}${c.delivery === 'split' ? ` at ${c.cuts}` : ''}, ${c.ending}`;
        const variant = show(variants[c.variant], 200, 3);
        const where = `case ${i} (variant ${c.variant}: ${variant}; ${how})\n  request ${request}`;
        // A client that has not sent the body it announced waits on both.
        if (actual.end === 'timeout' && expected.end !== 'timeout')
          differences.push(`${where}\n  webapp left the connection open for ${HANG} ms`);
        // A client that went away sees nothing; one that half-closed sees what was written before its end was read.
        // No redirect of webapp's own (`static`'s 301) sends the client to another site.
        for (const res of responses(actual.data, c.methods).list) {
          const location = res.headers.find(([name]) => name === 'location')?.[1];
          if (res.status.includes(' 301 ') && location !== undefined && OFF_SITE.test(location))
            differences.push(`${where}\n  webapp redirected off site: ${location}`);
        }
        if (c.ending === 'whole') {
          const a = comparable(responses(expected.data, c.methods), c);
          const b = comparable(responses(actual.data, c.methods), c);
          const same =
            expected.end === actual.end &&
            b.rest === a.rest &&
            isDeepStrictEqual(clockless(b.list), clockless(documented(a.list, b.list)));
          if (!same)
            differences.push(
              `${where}\n  express (${expected.end}): ${show(a, 800, 5)}` +
                `\n  webapp  (${actual.end}): ${show(b, 800, 5)}`,
            );
        }
        const [oracleUp, subjectUp] = await Promise.all([healthy(port.oracle), healthy(port.subject)]);
        assert.ok(subjectUp, `webapp stopped serving after ${where}`);
        assert.ok(oracleUp || !subjectUp, `express stopped serving after ${where}`);
        if (differences.length >= 6) break;
      }
      // No connection is left behind by a client that went away or stopped early.
      for (const s of servers) {
        for (let wait = 0; (await connections(s.subject)) > 0 && wait < 40; wait++)
          await new Promise((resolve) => setTimeout(resolve, 25));
        assert.equal(await connections(s.subject), 0, 'webapp kept connections open');
      }
      assert.deepEqual(await openFiles(roots.webapp), [], 'webapp kept files open');
    } finally {
      process.off('uncaughtException', onUncaught);
      process.off('unhandledRejection', onUncaught);
      process.noDeprecation = noDeprecation;
      await Promise.all(servers.flatMap((s) => [close(s.oracle), close(s.subject)]));
    }
    assert.deepEqual(uncaught, [], 'an exception or rejection went uncaught');
    assert.equal(differences.length, 0, `${differences.length} cases differ:\n${differences.join('\n')}`);
  });
});
