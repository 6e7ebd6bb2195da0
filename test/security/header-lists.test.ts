/**
 * Request headers whose size the client chooses, read in time linear in their size.
 * Each case once took time quadratic (or worse) in a run of characters the client
 * sent: a regular expression that backtracked over a run of spaces (If-Match,
 * X-Forwarded-Proto) or over dots (a vhost pattern with several `*`). The servers
 * here accept 128 KB of headers instead of Node's 16 KB, so the old code would take
 * tens of seconds per request where the linear code takes milliseconds: the bound
 * below is two orders of magnitude above the one and as far below the other. Each
 * case also checks the answer itself, against express@4 where it runs the same
 * request, so nothing was made fast by answering something else.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import webapp = require('../../src/index');
import webapp3 = require('../../src/v3/index');
import { cookieSession } from '../../src/middleware/cookie-session';
import { vhost } from '../../src/middleware/vhost';
import { close, listen } from '../support/raw-http';

type Any = any;

const HEADER_LIMIT = 128 * 1024;
/** A run of spaces; three fit in one header. */
const SPACES = ' '.repeat(40 * 1024);
const LONG_SPACES = ' '.repeat(120 * 1024);
/** Far above what the linear code takes (a few ms), far below what the old code took (10 to 60 s). */
const BOUND_MS = 2_000;

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'webapp-header-lists-'));
  writeFileSync(join(root, 'a.txt'), 'file a\n');
});
after(() => rmSync(root, { recursive: true, force: true }));

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  ms: number;
}

/** One request to `listener` on a server that takes headers up to HEADER_LIMIT; the time it took to answer. */
async function requestOnce(
  listener: http.RequestListener,
  path: string,
  headers: Record<string, string>,
): Promise<Answer> {
  const server = http.createServer({ maxHeaderSize: HEADER_LIMIT }, listener);
  const port = await listen(server);
  try {
    const started = process.hrtime.bigint();
    return await new Promise<Answer>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          resolve({ status: res.statusCode!, headers: res.headers, body, ms });
        });
      });
      req.on('error', reject);
      req.end();
    });
  } finally {
    await close(server);
  }
}

function assertQuick(answer: Answer, what: string): void {
  assert.ok(answer.ms < BOUND_MS, `${what} took ${answer.ms.toFixed(0)} ms`);
}

/** An app on `framework` (express@4 or webapp) serving the fixture through static, sendFile and download. */
function fileApp(framework: Any): http.RequestListener {
  const app = framework();
  app.use('/static', framework.static(root));
  app.get('/send', (req: Any, res: Any, next: Any) => res.sendFile('a.txt', { root }, (err: Any) => err && next(err)));
  app.get('/download', (req: Any, res: Any, next: Any) =>
    res.download(join(root, 'a.txt'), (err: Any) => err && next(err)),
  );
  app.use((err: Any, req: Any, res: Any, _next: Any) => res.status(err.status || 500).end(String(err.status)));
  return app;
}

describe('If-Match on files: a long run of spaces', () => {
  for (const path of ['/static/a.txt', '/send', '/download']) {
    it(`${path}: the same answers as express@4, in time linear in the header`, async () => {
      const cases: Array<[string, string]> = [
        // A tag list that names no tag of ours, with a run of spaces inside an entry.
        ['"x"' + LONG_SPACES + 'y', 'an entry with spaces inside'],
        [SPACES + '"x"' + SPACES + ',' + SPACES, 'spaces around every entry'],
        [',' + SPACES + ',', 'only empty entries'],
      ];
      for (const [ifMatch, what] of cases) {
        const ours = await requestOnce(fileApp(webapp), path, { 'if-match': ifMatch });
        const theirs = await requestOnce(fileApp(express), path, { 'if-match': ifMatch });
        assertQuick(ours, `${path}, ${what}`);
        assert.equal(ours.status, theirs.status, `${path}, ${what}`);
        assert.equal(ours.status, 412, `${path}, ${what}`);
      }
      // The list is still read: our own tag among the spaces passes the precondition.
      const plain = await requestOnce(fileApp(webapp), path, {});
      const tag = String(plain.headers.etag);
      const matching = await requestOnce(fileApp(webapp), path, {
        'if-match': SPACES + '"x",' + SPACES + tag + SPACES,
      });
      assertQuick(matching, `${path}, our tag among the spaces`);
      assert.equal(matching.status, 200);
      assert.equal(matching.body, 'file a\n');
    });
  }
});

describe('X-Forwarded-Proto: a long run of spaces', () => {
  it('webapp/v3 req.protocol takes the first entry as Express 3 does, in time linear in the header', async () => {
    const app = webapp3();
    app.set('trust proxy', true);
    app.get('/', (req: Any, res: Any) => res.send(JSON.stringify([req.protocol, req.secure])));
    const cases: Array<[string, [string, boolean]]> = [
      ['http' + LONG_SPACES + 'x', ['http' + LONG_SPACES + 'x', false]],
      ['https' + SPACES + 'x, http', ['https' + SPACES + 'x', false]],
      ['https \t, http', ['https', true]],
      ['HTTPS ,http', ['HTTPS', false]],
      ['https', ['https', true]],
    ];
    for (const [proto, expected] of cases) {
      const answer = await requestOnce(app, '/', { 'x-forwarded-proto': proto });
      assertQuick(answer, JSON.stringify(proto.slice(0, 12)));
      assert.deepEqual(JSON.parse(answer.body), expected, JSON.stringify(proto.slice(0, 12)));
    }
  });

  it('cookieSession with proxy: true reads the first entry, in time linear in the header', async () => {
    const listener: http.RequestListener = (req, res) => {
      const reqAny = req as Any;
      reqAny.originalUrl = req.url;
      cookieSession({ secret: 'keyboard cat', proxy: true, cookie: { secure: true } })(req as Any, res, () => {
        reqAny.session.visits = 1;
        res.end('ok');
      });
    };
    const slow = await requestOnce(listener, '/', { 'x-forwarded-proto': 'https' + LONG_SPACES + 'x' });
    assertQuick(slow, 'a run of spaces inside the first entry');
    assert.equal(slow.body, 'ok');
    assert.equal(slow.headers['set-cookie'], undefined, 'not a secure connection: no secure cookie');
    const secure = await requestOnce(listener, '/', { 'x-forwarded-proto': 'https' + SPACES + ', http' });
    assertQuick(secure, 'a run of spaces before the comma');
    assert.match(String(secure.headers['set-cookie']), /^webapp\.sess=.*; Secure/i);
  });
});

describe('vhost: several wildcards and a long Host', () => {
  const answer: http.RequestListener = (req, res) => res.end('matched');
  const listener: http.RequestListener = (req, res) =>
    vhost('*.*.*.example.com', answer as Any)(req as Any, res, () => res.end('next'));

  // 5 KB: the old expression's time grew with the cube of the length (about 15 s here).
  it('matches or passes in time linear in the Host header', async () => {
    const cases: Array<[string, string]> = [
      ['.'.repeat(5 * 1024) + 'x', 'next'],
      ['a.'.repeat(2.5 * 1024) + 'example.com', 'matched'],
      ['a.'.repeat(2.5 * 1024) + 'example.org', 'next'],
    ];
    for (const [host, expected] of cases) {
      const got = await requestOnce(listener, '/', { host });
      assertQuick(got, `${host.slice(0, 8)}… (${host.length} characters)`);
      assert.equal(got.body, expected, `${host.slice(0, 8)}… (${host.length} characters)`);
    }
  });
});
