import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after as afterAll, describe, it } from 'node:test';
import { favicon } from '../../src/middleware/favicon';
import { assertSameAsConnect, requestAll, type Handler } from './support';

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
