import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { limit } from '../../src/middleware/limit';
import { assertSameAsConnect, rawRequest, withServer, chain, type Handler } from './support';

const connect = require('connect');

const read: Handler = (req, res) => {
  let size = 0;
  req.on('data', (chunk: Buffer) => (size += chunk.length));
  req.on('end', () => res.end('read ' + size));
};

describe('limit', () => {
  it('413 on a declared length over the limit, like Connect 2.30', async () => {
    const requests = [
      { method: 'POST', path: '/', body: 'x'.repeat(10) },
      { method: 'POST', path: '/', body: 'x'.repeat(11) },
      { method: 'POST', path: '/', body: 'x'.repeat(2000) },
    ];
    await assertSameAsConnect([connect.limit(10), read], [limit(10), read], requests);
    await assertSameAsConnect([connect.limit('1kb'), read], [limit('1kb'), read], requests);
  });

  it('destroys an undeclared body once it passes the limit', async () => {
    await withServer(chain([limit(10), read]), async (port) => {
      await assert.rejects(
        rawRequest(port, {
          method: 'POST',
          path: '/',
          headers: { 'transfer-encoding': 'chunked' },
          body: 'x'.repeat(100000),
        }),
      );
      const ok = await rawRequest(port, {
        method: 'POST',
        path: '/',
        headers: { 'transfer-encoding': 'chunked' },
        body: 'x'.repeat(5),
      });
      assert.equal(ok.body, 'read 5');
    });
  });

  it('requires a size', () => {
    assert.throws(() => limit(undefined as never), /limit\(\) bytes required/);
    assert.throws(() => limit('lots'), /limit\(\) bytes required/);
    // Connect 2.30 took NaN and limited nothing.
    assert.throws(() => limit(Number(undefined)), /limit\(\) bytes required/);
  });
});
