import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after as afterAll, describe, it } from 'node:test';
import { favicon } from '../../src/middleware/favicon';
import { assertSameAsConnect, requestAll, withServer, type Handler } from './support';
import { exchange } from '../support/raw-http';

const connect = require('connect');

const dir = mkdtempSync(join(tmpdir(), 'webapp-favicon-'));
const iconPath = join(dir, 'icon.ico');
writeFileSync(iconPath, Buffer.from('not really an icon but bytes'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const after: Handler = (_req, res) => res.end('next');

describe('favicon', () => {
  it('matches Connect 2.30 for a file and a buffer', async () => {
    const requests = [
      { path: '/favicon.ico' },
      { path: '/favicon.ico?v=2', method: 'HEAD' },
      { path: '/favicon.ico', method: 'POST' },
      { path: '/favicon.ico', method: 'OPTIONS' },
      { path: '/other' },
      { path: '/favicon.ico', headers: { 'if-none-match': '"1c-HvJk3uDNpvup4/gNeDDNMw"' } },
    ];
    await assertSameAsConnect([connect.favicon(iconPath), after], [favicon(iconPath), after], requests);
    await assertSameAsConnect(
      [connect.favicon(Buffer.from('abc'), { maxAge: '1d' }), after],
      [favicon(Buffer.from('abc'), { maxAge: '1d' }), after],
      requests,
    );
    await assertSameAsConnect(
      [connect.favicon(iconPath, { maxAge: 5000 }), after],
      [favicon(iconPath, { maxAge: 5000 }), after],
      requests,
    );
  });

  it("judges conditional requests by Connect 2.30's rules (fresh 0.3): no-cache anywhere, * anywhere", async () => {
    const tag = '"1c-HvJk3uDNpvup4/gNeDDNMw"';
    const requests: { path: string; headers: Record<string, string> }[] = [
      { path: '/favicon.ico', headers: { 'if-none-match': tag, 'cache-control': 'x-no-cache' } },
      { path: '/favicon.ico', headers: { 'if-none-match': tag, 'cache-control': 'no-cache="set-cookie"' } },
      { path: '/favicon.ico', headers: { 'if-none-match': '"a", *' } },
      { path: '/favicon.ico', headers: { 'if-none-match': 'W/' + tag } },
      { path: '/favicon.ico', headers: { 'if-modified-since': 'Thu, 01 Jan 2026 00:00:00 GMT' } },
    ];
    await assertSameAsConnect([connect.favicon(iconPath), after], [favicon(iconPath), after], requests);
    const statuses = (await requestAll([favicon(iconPath)], requests)).map((res) => res.status);
    assert.deepEqual(statuses, [200, 200, 304, 304, 200]);
  });

  it('reads maxAge strings as Connect 2.30 did (ms 0.7: no sign, no weeks, the empty string throws)', async () => {
    for (const maxAge of ['-1d', '2w', '1 week', '1.5h', 'never']) {
      await assertSameAsConnect(
        [connect.favicon(iconPath, { maxAge }), after],
        [favicon(iconPath, { maxAge }), after],
        [{ path: '/favicon.ico' }],
      );
    }
    const [icon] = await requestAll([favicon(iconPath, { maxAge: '2w' })], [{ path: '/favicon.ico' }]);
    assert.equal(icon.headers['cache-control'], 'public, max-age=31536000', 'not a duration to ms 0.7: the default');
    const thrown = (make: () => unknown) => assert.throws(make, /^Error: val is not a non-empty string/);
    thrown(() => connect.favicon(iconPath, { maxAge: '' }));
    thrown(() => favicon(iconPath, { maxAge: '' }));
  });

  it('answers 304 to its own ETag and serves a blank icon without a path', async () => {
    const [first] = await requestAll([favicon()], [{ path: '/favicon.ico' }]);
    assert.equal(first.headers['content-type'], 'image/x-icon');
    assert.equal(first.headers['cache-control'], 'public, max-age=31536000');
    const [again] = await requestAll(
      [favicon()],
      [{ path: '/favicon.ico', headers: { 'if-none-match': String(first.headers.etag) } }],
    );
    assert.equal(again.status, 304);
  });

  it('rejects directories and other types', () => {
    assert.throws(() => favicon(dir), /EISDIR/);
    assert.throws(() => favicon(42 as never), /must be string or buffer/);
  });
});

describe('favicon: a head Node refuses', () => {
  it('the icon read from its file with a status message Node refuses: next(err), and the server goes on', async () => {
    // The first request reads the file; its answer was sent from the fs callback, where
    // Node's refusal ended the process (Connect 2.30's favicon ends it too).
    const dir = mkdtempSync(join(tmpdir(), 'webapp-favicon-refused-'));
    const file = join(dir, 'favicon.ico');
    writeFileSync(file, Buffer.from('icon bytes'));
    const icon = favicon(file);
    const seen: string[] = [];
    const listener: http.RequestListener = (req, res) => {
      if (req.url === '/ok') return res.end('still serving');
      res.statusMessage = 'a\r\nb';
      icon(req, res, (err?: unknown) => {
        seen.push(err ? String((err as NodeJS.ErrnoException).code) : 'next');
      });
    };
    try {
      await withServer(listener, async (port) => {
        const answer = await exchange(
          port,
          'GET /favicon.ico HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
        );
        assert.equal(answer.length, 0);
        assert.deepEqual(seen, ['ERR_INVALID_CHAR']);
        assert.equal(await (await fetch(`http://127.0.0.1:${port}/ok`)).text(), 'still serving');
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
