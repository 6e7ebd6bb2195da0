/**
 * `static` of `webapp/middleware` and `webapp/v3`: Connect 2.30's directory
 * redirect (serve-static 1.10: 303 See Other and a one-line HTML body, where 4.x
 * answers 301), with the Location built from `originalUrl`, so relative to the
 * mount point; `webapp.static` keeps 4.x's 301.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as bundle from '../../src/middleware/index';
import { serveStatic } from '../../src/static';
import webapp3 = require('../../src/v3/index');
import { assertSameResponses, withoutStackFrames } from '../support/differential';
import { assertSameAsConnect, requestAll, type RawResponse } from './support';

const connect = require('connect');

const express3 = require('express3');

type Any = any;
const static3 = (bundle as Any).static as typeof serveStatic;

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'webapp-static3-'));
  mkdirSync(join(root, 'dir', 'sub'), { recursive: true });
  mkdirSync(join(root, 'with space'));
  writeFileSync(join(root, 'dir', 'index.html'), '<p>dir</p>');
  writeFileSync(join(root, 'file.txt'), 'file');
  // A fixed modification time: Last-Modified and ETag then match the recorded answers (Node 24+).
  const modified = new Date('2025-01-02T03:04:05Z');
  for (const name of ['data.json', 'app.js', 'page.html', 'style.css', 'image.png', 'noext', 'feed.xml']) {
    writeFileSync(join(root, name), 'content of ' + name);
    utimesSync(join(root, name), modified, modified);
  }
});
after(() => rmSync(root, { recursive: true, force: true }));

/** Redirects compare whole; other answers by status and body (send 0.13's and 0.19's file headers differ). */
function redirectsWhole(res: RawResponse): RawResponse {
  return res.status === 303 ? res : { ...res, headers: {} };
}

/** The same ending on both sides for what static passes on. */
const notFound = (_req: Any, res: Any) => {
  res.statusCode = 404;
  res.end('not here');
};

const paths = ['/dir', '/dir?x=1&y=%20z', '/dir/sub', '/with%20space', '/dir/', '/file.txt', '/missing'];

describe('static (3.x)', () => {
  it('redirects a directory without its slash with 303, as Connect 2.30', async () => {
    const answers = await assertSameAsConnect(
      [connect.static(root), notFound],
      [static3(root), notFound],
      paths.map((path) => ({ path })),
      redirectsWhole,
    );
    assert.deepEqual(
      answers.slice(0, 4).map((res) => [res.status, res.headers.location]),
      [
        [303, '/dir/'],
        [303, '/dir/?x=1&y=%20z'],
        [303, '/dir/sub/'],
        [303, '/with%20space/'],
      ],
    );
  });

  it('mounted, the Location is relative to originalUrl, as express@3.21 answers', async () => {
    const define = (framework: Any) => framework().use('/files', framework.static(root));
    const answers = await assertSameResponses(
      define,
      ['/files', '/files?a=1', '/files/dir', '/files/dir/sub?b=2', '/files/dir/'].map((path) => ({ path })),
      { oracle: express3, subject: webapp3 },
      redirectsWhole,
    );
    assert.deepEqual(
      answers.slice(0, 4).map((res) => res.headers.location),
      ['/files/', '/files/?a=1', '/files/dir/', '/files/dir/sub/?b=2'],
    );
  });

  it("serves files with send 0.13's headers: a charset for text/* only; a 304 keeps no Content-* header", async () => {
    const files = ['/data.json', '/app.js', '/page.html', '/style.css', '/image.png', '/noext', '/feed.xml'];
    // An app's own Content-* headers (but Content-Location) leave a 304 too.
    const withOwnHeaders = (_req: Any, res: Any, next: Any) => {
      res.setHeader('Content-Language', 'en');
      res.setHeader('Content-Disposition', 'inline');
      res.setHeader('Content-Location', '/elsewhere');
      next();
    };
    const requests = [
      ...files.map((path) => ({ path })),
      ...files.map((path) => ({ path, headers: { 'If-None-Match': '*' } })),
    ];
    const answers = await assertSameAsConnect(
      [withOwnHeaders, connect.static(root), notFound],
      [withOwnHeaders, static3(root), notFound],
      requests,
    );
    assert.equal(answers[0].headers['content-type'], 'application/json');
    assert.equal(answers[2].headers['content-type'], 'text/html; charset=UTF-8');
    const notModified = answers[files.length];
    assert.equal(notModified.status, 304);
    assert.equal(notModified.headers['content-language'], undefined);
    assert.equal(notModified.headers['content-disposition'], undefined);
    assert.equal(notModified.headers['content-location'], '/elsewhere');

    // express@3.21's res.sendfile and res.download, against webapp/v3's.
    const define = (framework: Any) =>
      framework()
        .get('/send/:name', (req: Any, res: Any) => res.sendfile(req.params.name, { root }))
        .get('/download/:name', (req: Any, res: Any) => res.download(join(root, req.params.name), 'saved name'));
    const names = ['data.json', 'app.js', 'page.html'];
    await assertSameResponses(
      define,
      names.flatMap((name) => [
        { path: '/send/' + name },
        { path: '/download/' + name },
        { path: '/download/' + name, headers: { 'If-None-Match': '*' } },
      ]),
      { oracle: express3, subject: webapp3 },
    );
  });

  it('Range and conditionals as send 0.13: any unit, a bad part 416, several ranges all, no 412', async () => {
    const { size, mtime } = statSync(join(root, 'noext'));
    const strongTag = `"${size.toString(16)}-${mtime.getTime().toString(16)}"`;
    const odd: Array<Record<string, string>> = [
      { Range: 'items=0-1' },
      { Range: 'bytes=0-1,5-1' },
      { Range: 'bytes=0-1,3-4' },
      { Range: 'bytes=0-1,' + 'bytes=0-0,'.repeat(40) + '0-0' },
      { Range: 'bytes=-0' },
      { Range: 'bytes=5-1' },
      { Range: 'bytes=2-' },
      { Range: 'bytes' },
      { 'If-Match': '"nope"' },
      { 'If-Match': 'garbage', Range: 'bytes=0-1' },
      { 'If-Unmodified-Since': 'Thu, 01 Jan 1970 00:00:00 GMT' },
      { 'If-None-Match': '"x", *' },
      { 'If-None-Match': strongTag },
      { 'If-None-Match': '*', 'Cache-Control': 'max-age=0, no-cache-please' },
    ];
    const requests = odd.map((headers) => ({ path: '/noext', headers }));
    const answers = await assertSameAsConnect([connect.static(root), notFound], [static3(root), notFound], requests);
    assert.deepEqual(
      answers.map((res) => res.status),
      [206, 416, 200, 416, 416, 416, 206, 200, 200, 206, 200, 304, 200, 200],
    );

    // express@3.21's res.sendfile (send 0.13 too), against webapp/v3's.
    await assertSameResponses(
      (framework: Any) =>
        framework().get('/send/:name', (req: Any, res: Any) => res.sendfile(req.params.name, { root })),
      odd.map((headers) => ({ path: '/send/noext', headers })),
      { oracle: express3, subject: webapp3 },
      withoutStackFrames,
    );
  });

  it('webapp.static and res.sendFile (4.x) keep send 0.19: UTF-8 for JSON and JavaScript too', async () => {
    const [json, js] = await requestAll([serveStatic(root), notFound], [{ path: '/data.json' }, { path: '/app.js' }]);
    assert.equal(json.headers['content-type'], 'application/json; charset=UTF-8');
    assert.equal(js.headers['content-type'], 'application/javascript; charset=UTF-8');
  });

  it('webapp.static (4.x) still answers 301', async () => {
    const [res] = await requestAll([serveStatic(root)], [{ path: '/dir' }]);
    assert.deepEqual([res.status, res.headers.location], [301, '/dir/']);
  });
});
