import assert from 'node:assert/strict';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
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

  it(
    'over HTTP/2, resets the stream of a body past the limit, as HTTP/1 closes the connection',
    { timeout: 10_000 },
    async () => {
      // Node's HTTP/2 request destroys only its readable side: the stream stayed open and a
      // handler reading the body itself never answered (the client waited for ever).
      let reads = 0;
      const readItself: Handler = (req, res) => {
        reads++;
        req.on('data', () => undefined);
        req.on('end', () => res.end('read'));
      };
      const server = http2.createServer(chain([limit('1kb'), readItself]) as never);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      try {
        const stream = client.request({ ':method': 'POST', ':path': '/' });
        stream.on('error', () => undefined);
        for (let i = 0; i < 5; i++) stream.write('x'.repeat(1024));
        const closed = await new Promise<number>((resolve) => stream.on('close', () => resolve(stream.rstCode!)));
        assert.equal(closed, http2.constants.NGHTTP2_INTERNAL_ERROR);
        // The session goes on: a body within the limit is read on another stream.
        const next = client.request({ ':method': 'POST', ':path': '/' });
        next.end('small');
        next.setEncoding('utf8');
        let answer = '';
        next.on('data', (chunk: string) => (answer += chunk));
        await new Promise((resolve) => next.on('end', resolve));
        assert.deepEqual([answer, reads], ['read', 2]);
      } finally {
        client.close();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  );

  it('requires a size', () => {
    assert.throws(() => limit(undefined as never), /limit\(\) bytes required/);
    assert.throws(() => limit('lots'), /limit\(\) bytes required/);
    // Connect 2.30 took NaN and limited nothing.
    assert.throws(() => limit(Number(undefined)), /limit\(\) bytes required/);
  });
});
