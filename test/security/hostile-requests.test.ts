/**
 * Hostile requests, sent byte for byte over raw sockets, to one app that uses much
 * of the 4.x API (body parsers, cookies, static files, params, redirects, content
 * negotiation, ranges, proxy headers) built on express@4 and on webapp. Seeded
 * random mixes of malformed paths, percent-escapes, methods, Content-Types,
 * charsets, encodings, lengths, bodies and headers. For every request webapp gives
 * the answer Express gives (status, headers but the volatile ones, body), and the
 * process keeps serving: an uncaught exception would end the test run.
 *
 * Left out on purpose: `Content-Encoding: br`, which webapp decodes where
 * body-parser 1.x answers 415 (docs/migrating-from-express-4.md), and lengths
 * larger than the body, on which both servers wait for the rest.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import cookieParser from 'cookie-parser';
import express from 'express';
import webapp = require('../../src/index');
import { chance, pick, prng, type Random } from '../support/prng';
import { listen, close } from '../support/raw-http';

const SEED = 0x40571e;
const CASES = 400;

type Any = any;

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'webapp-hostile-'));
  mkdirSync(join(root, 'sub'));
  writeFileSync(join(root, 'a.txt'), 'hello, file\n');
  writeFileSync(join(root, 'sub', 'index.html'), '<p>index</p>\n');
});
after(() => rmSync(root, { recursive: true, force: true }));

function defineApp(framework: Any, cookies: Any): http.RequestListener {
  const app = framework();
  app.set('env', 'production');
  app.set('trust proxy', 'loopback');
  app.disable('x-powered-by');
  app.use(cookies('secret'));
  app.use(framework.json({ limit: '10kb' }));
  app.use(framework.urlencoded({ extended: true, limit: '10kb' }));
  app.use(framework.text({ limit: '10kb' }));
  app.use('/static', framework.static(root));
  app.param('id', (req: Any, res: Any, next: Any, id: string) => {
    req.idSeen = id;
    next();
  });
  app.get('/users/:id', (req: Any, res: Any) => res.json({ id: req.params.id, seen: req.idSeen, q: req.query }));
  app.get('/file/:name', (req: Any, res: Any, next: Any) =>
    res.sendFile(req.params.name, { root }, (err: Any) => err && next(err)),
  );
  app.get('/to', (req: Any, res: Any) => res.redirect(String(req.query.u)));
  app.get('/back', (req: Any, res: Any) => res.redirect('back'));
  app.all('/echo', (req: Any, res: Any) =>
    res.json({
      body: req.body,
      cookies: req.cookies,
      signed: req.signedCookies,
      ip: req.ip,
      ips: req.ips,
      host: req.hostname,
      protocol: req.protocol,
      xhr: req.xhr,
      fresh: req.fresh,
      accepts: req.accepts(['json', 'html']),
      range: req.range(100),
      subdomains: req.subdomains,
      query: req.query,
      is: req.is('json'),
    }),
  );
  app.get('/format', (req: Any, res: Any) =>
    res.format({
      json: () => res.json({ a: 1 }),
      html: () => res.send('<b>x</b>'),
      default: () => res.status(406).send('none'),
    }),
  );
  app.get('/cookie', (req: Any, res: Any) =>
    res.cookie(String(req.query.n ?? 'a'), req.query.v, { signed: Boolean(req.query.s) }).send('set'),
  );
  app.get('/jsonp', (req: Any, res: Any) => res.jsonp({ a: 1 }));
  app.get('/attachment', (req: Any, res: Any) => res.attachment(String(req.query.f)).send('x'));
  app.get('/type', (req: Any, res: Any) => res.type(String(req.query.t)).send('t'));
  app.get('/status', (req: Any, res: Any) => res.sendStatus(Number(req.query.s)));
  app.use((err: Any, req: Any, res: Any, _next: Any) => {
    res.status(err.status || 500).send(`error ${err.status || 500}: ${err.type || err.code || ''}`);
  });
  return app;
}

const PATHS = [
  '/users/%',
  '/users/%E0%A4%A',
  '/users/%C0%AF',
  '/users/abc?x=%',
  '/users/' + '%41'.repeat(40),
  '/users/1#frag',
  '/users/1?%',
  '//users/1',
  'http://evil.example/users/1',
  '*',
  '/static/',
  '/static',
  '/static/sub',
  '/static/a.txt',
  '/static/a.txt/',
  '/static/%00',
  '/static/..%2f..%2fetc%2fpasswd',
  '/static/%2e%2e/%2e%2e/etc/passwd',
  '/static//evil.example/',
  '/static/\\evil.example',
  '/file/a.txt',
  '/file/%',
  '/file/..%2F..%2Fetc%2Fpasswd',
  '/to?u=//evil.example',
  '/to?u=%0d%0aSet-Cookie:x=1',
  '/to?u=javascript:alert(1)',
  '/to?u[]=a',
  '/back',
  '/echo',
  '/echo?a[__proto__][x]=1&b[constructor][prototype][y]=2',
  '/echo?' + 'a[]=1&'.repeat(300),
  '/echo?a[b][c][d][e][f][g][h][i][j][k]=1',
  '/format',
  '/cookie?n=a%3Bb&v=x',
  '/cookie?n=__proto__&v=1',
  '/cookie?n=a&v[]=1&v[]=2&s=1',
  '/jsonp?callback=%E2%80%A8',
  '/jsonp?callback[]=a',
  '/jsonp?callback=a.b%5B0%5D',
  '/attachment?f=%22%0d%0a.txt',
  '/attachment?f=%E2%82%AC.txt',
  '/type?t=%00',
  '/type?t=',
  '/type?t=json',
  '/status?s=999',
  '/status?s=abc',
  '/status?s=0',
  '/status?s=1e3',
  '/%',
  '/..',
  '/' + 'x'.repeat(3000),
];
const METHODS = ['GET', 'GET', 'POST', 'POST', 'PUT', 'HEAD', 'OPTIONS', 'DELETE', 'PATCH', 'FOO'];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-16',
  'application/json; charset=koi8-r',
  'application/json; charset=bogus',
  'application/json; charset="',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=latin1',
  'application/x-www-form-urlencoded; charset=utf-7',
  'text/plain',
  'text/plain; charset=utf-32',
  'application/*+json',
  'multipart/form-data; boundary=x',
  ';;;',
  '',
];
const BODIES = [
  '{"a":1}',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{"y":1}}}',
  '[' + '['.repeat(3000),
  '{',
  '"str"',
  'null',
  ' \t\n{"a":1} ',
  'a=1&a[__proto__][z]=1',
  'a[10000]=1&a[1]=2',
  'a=%&b=%zz',
  'a[b]=1&a=2',
  '\u0000\u0001',
  '{"a":"\ud800"}',
  'x'.repeat(12 * 1024),
  '',
  '%FF%FE',
];
const ODD_HOSTS = ['', '[::1]:80', 'a.b.c.example.com', 'evil.example:abc', '[::1'];
const ENCODINGS = ['gzip', 'deflate', 'identity', 'gzip, gzip', 'bogus', 'x-gzip'];

function extraHeaders(random: Random): string[] {
  const headers: string[] = [];
  const sometimes = (p: number, name: string, values: string[]) => {
    if (chance(random, p)) headers.push(`${name}: ${pick(random, values)}`);
  };
  sometimes(0.3, 'Cookie', [
    'a=1; b=2',
    'a=%E0%A4%A; s:x=1',
    'b=s%3Aabc.def',
    'j=j%3A%7B%22a%22%3A1%7D',
    'j=j%3A%7B',
    '__proto__=1; constructor=2',
    '=;=;;',
    'a="x',
    'a=' + 'x'.repeat(2000),
  ]);
  sometimes(0.3, 'X-Forwarded-For', ['1.2.3.4, 127.0.0.1', 'garbage, , ,', '::ffff:1.2.3.4', '', '1.2.3.4'.repeat(40)]);
  sometimes(0.2, 'X-Forwarded-Proto', ['https', 'https, http', '', 'ftp']);
  sometimes(0.2, 'X-Forwarded-Host', ['evil.example', '[::1]:8080', '', 'a,b']);
  sometimes(0.3, 'Range', ['bytes=0-1', 'bytes=1-0', 'bytes=-1', 'bytes=0-1,2-3,0-100', 'bytes=abc', 'items=0-1']);
  sometimes(0.3, 'Accept', [
    'application/json;q=abc',
    '*/*;q=0',
    'text/html;q=0.5, application/json;q=0.5',
    ';;',
    'a/b/c',
  ]);
  sometimes(0.2, 'If-None-Match', ['*', 'W/"x"', '"', ',']);
  sometimes(0.2, 'If-Modified-Since', ['garbage', 'Thu, 01 Jan 2099 00:00:00 GMT', '']);
  sometimes(0.2, 'X-Requested-With', ['XMLHttpRequest', 'xmlhttprequest', '']);
  headers.push(`Host: ${chance(random, 0.2) ? pick(random, ODD_HOSTS) : 'localhost'}`);
  return headers;
}

function chunked(body: string): string {
  return body.length === 0 ? '0\r\n\r\n' : `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
}

/** One request as written on the wire. */
function hostileRequest(random: Random): string {
  const method = pick(random, METHODS);
  const headers = extraHeaders(random);
  let body = '';
  if (chance(random, 0.5)) {
    const text = pick(random, BODIES);
    headers.push(`Content-Type: ${pick(random, CONTENT_TYPES)}`);
    if (chance(random, 0.2)) headers.push(`Content-Encoding: ${pick(random, ENCODINGS)}`);
    if (chance(random, 0.15)) {
      headers.push('Transfer-Encoding: chunked');
      body = chunked(text);
    } else {
      const length = Buffer.byteLength(text);
      // Lengths that are not a number, or shorter than the body (the rest reads as a next request).
      const declared = chance(random, 0.1)
        ? pick(random, ['-1', 'abc', '0', '1e3', String(length >> 1)])
        : String(length);
      headers.push(`Content-Length: ${declared}`);
      body = text;
    }
  }
  headers.push('Connection: close');
  return `${method} ${pick(random, PATHS)} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Everything the server writes back before it closes the connection. A reset after
 * the answer (the server closing with bytes of a short-length request unread) ends
 * the exchange like a close: what was received is the answer.
 */
function exchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => {
      reject(new Error(`no answer in 5 s to ${JSON.stringify(raw.slice(0, 200))}`));
      socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.write(raw);
  });
}

/** The one header that differs between two servers answering the same request: the clock. */
const VOLATILE = /^date:/i;

/** The first answer: status line, sorted headers but the volatile ones, and the rest of the bytes. */
function normalise(answer: string): string {
  const end = answer.indexOf('\r\n\r\n');
  if (end === -1) return answer;
  const [status, ...headers] = answer.slice(0, end).split('\r\n');
  const kept = headers.filter((line) => !VOLATILE.test(line)).sort();
  return [status, ...kept, '', answer.slice(end + 4)].join('\n');
}

describe('hostile requests: webapp answers as express@4 does and keeps serving', () => {
  it(`${CASES} seeded requests, compared byte for byte`, async () => {
    const oracle = http.createServer(defineApp(express, cookieParser));
    // cookie-parser on both sides, as a 4.x app on webapp keeps it (webapp/middleware's is
    // Connect 2.30's, which reads some malformed cookies otherwise).
    const subject = http.createServer(defineApp(webapp, cookieParser));
    const oraclePort = await listen(oracle);
    const subjectPort = await listen(subject);
    try {
      const random = prng(SEED);
      let differences = 0;
      const report: string[] = [];
      for (let i = 0; i < CASES; i++) {
        const raw = hostileRequest(random);
        const [expected, actual] = await Promise.all([exchange(oraclePort, raw), exchange(subjectPort, raw)]);
        if (normalise(actual) !== normalise(expected)) {
          differences++;
          if (report.length < 5)
            report.push(
              `request ${JSON.stringify(raw.slice(0, 300))}\n` +
                `  express: ${JSON.stringify(normalise(expected).slice(0, 400))}\n` +
                `  webapp:  ${JSON.stringify(normalise(actual).slice(0, 400))}`,
            );
        }
      }
      assert.equal(differences, 0, `${differences} of ${CASES} answers differ:\n${report.join('\n')}`);
      const health = await exchange(subjectPort, 'GET /users/7 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      assert.match(health, /^HTTP\/1\.1 200 OK/);
      assert.match(health, /"id":"7"/);
    } finally {
      await close(oracle);
      await close(subject);
    }
  });
});
