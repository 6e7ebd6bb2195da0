/**
 * 4.x paths that continue after I/O keep the AsyncLocalStorage store the app
 * entered: webapp.static's next, res.sendFile / res.download / res.sendfile
 * callbacks, and compression-style response work.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import webapp from '../../src/index';
import { als, assertStoreKept, enterStore, storeErrorProbe, storeProbe } from '../support/async-context';
import { rawRequest, withServer } from '../support/raw-http';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'webapp-ctx-'));
  writeFileSync(join(root, 'hello.txt'), 'hello');
});
after(() => rmSync(root, { recursive: true, force: true }));

describe('4.x keeps the AsyncLocalStorage store after I/O', () => {
  it('webapp.static: next() for a missing file, next(err) for a bad path', async () => {
    const app = webapp();
    app.use(enterStore, webapp.static(root, { fallthrough: true }), storeProbe, storeErrorProbe);
    const strict = webapp();
    strict.use(enterStore, webapp.static(root, { fallthrough: false }), storeProbe, storeErrorProbe);
    await assertStoreKept(app, [
      { name: 'missing', request: { path: '/missing.txt' }, status: 200 },
      { name: 'bad path', request: { path: '/%00' }, status: 200 },
    ]);
    await assertStoreKept(strict, [
      { name: 'missing, no fallthrough', request: { path: '/missing.txt' }, status: 404 },
    ]);
  });

  it('res.sendFile, res.download and res.sendfile callbacks, on success and on error', async () => {
    const seen = new Map<string, string>();
    const app = webapp();
    app.use(enterStore);
    const callback = (req: webapp.Request, res: webapp.Response) => (err?: Error) => {
      seen.set(String(req.headers['x-id']), als.getStore() ?? 'none');
      if (err && !res.headersSent) storeErrorProbe(err as { status?: number }, req, res, () => undefined);
    };
    app.get('/sendFile/:name', (req, res) => res.sendFile(join(root, req.params.name), callback(req, res)));
    app.get('/download/:name', (req, res) => res.download(join(root, req.params.name), callback(req, res)));
    app.get('/sendfile/:name', (req, res) => {
      const quiet = process.emitWarning;
      (res as unknown as { sendfile(path: string, fn: (err?: Error) => void): void }).sendfile(
        join(root, req.params.name),
        callback(req, res),
      );
      process.emitWarning = quiet;
    });
    app.use(storeProbe);
    await withServer(app, async (port) => {
      const paths = ['sendFile', 'download', 'sendfile'].flatMap((kind) => [
        `/${kind}/hello.txt`,
        `/${kind}/missing.txt`,
      ]);
      const results = await Promise.all(paths.map((path) => rawRequest(port, { path, headers: { 'x-id': path } })));
      for (const [i, res] of results.entries()) {
        assert.equal(res.status, paths[i].includes('missing') ? 404 : 200, paths[i]);
      }
      for (let i = 0; i < 100 && seen.size < paths.length; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      for (const path of paths) assert.equal(seen.get(path), path, `${path}: the store in the callback`);
    });
  });

  it("a pipelined file response's callback: its own request's store, not the one answered before it", async () => {
    // `/slow` answers once the two file requests behind it on the connection are
    // queued; their files are sent when the connection is theirs, from `/slow`'s end.
    const seen = new Map<string, string>();
    const queued: webapp.Response[] = [];
    let releaseSlow!: () => void;
    const app = webapp();
    app.use(enterStore);
    app.get('/slow', (_req, res) => (releaseSlow = () => res.end('slow')));
    const record = (req: webapp.Request) => () => seen.set(String(req.headers['x-id']), als.getStore() ?? 'none');
    app.get('/sendFile', (req, res) => {
      queued.push(res);
      res.sendFile(join(root, 'hello.txt'), record(req));
    });
    app.get('/download', (req, res) => {
      queued.push(res);
      res.download(join(root, 'hello.txt'), record(req));
    });
    await withServer(app, async (port) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.resume();
      await new Promise((resolve) => socket.once('connect', resolve));
      // GETs, whose files are sent at their turn, and a HEAD and a 304, answered (ended) at
      // once and written out at their turn.
      const requests = [
        'GET /slow',
        'GET /sendFile',
        'GET /download',
        'HEAD /sendFile',
        'GET /sendFile\r\nIf-Modified-Since: Fri, 01 Jan 2100 00:00:00 GMT',
      ];
      socket.write(requests.map((line, i) => `${line} HTTP/1.1\r\nHost: x\r\nX-Id: ${i}\r\n\r\n`).join(''));
      const headsMade = () =>
        queued.length === 4 && queued.every((res) => res.writableEnded || res.getHeader('Content-Length'));
      for (let i = 0; i < 200 && !headsMade(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
      releaseSlow();
      for (let i = 0; i < 200 && seen.size < 4; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      socket.destroy();
      assert.deepEqual(Object.fromEntries(seen), { 1: '1', 2: '2', 3: '3', 4: '4' });
    });
  });
});
