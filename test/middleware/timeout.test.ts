import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { describe, it } from 'node:test';
import { timeout } from '../../src/middleware/timeout';
import { assertSameAsConnect, chain, requestAll, type Handler } from './support';
import { close, listen } from '../support/raw-http';

const connect = require('connect');

const never: Handler = () => {};
const fast: Handler = (_req, res) => res.end('fast');
const report: Handler = (err: any, req: any, res: any, _next: any) => {
  res.statusCode = err.status;
  res.end(JSON.stringify({ message: err.message, code: err.code, timeout: err.timeout, timedout: req.timedout }));
};

describe('timeout', () => {
  it('answers 503 Response timeout like Connect 2.30', async () => {
    const [res] = await assertSameAsConnect(
      [connect.timeout(20), never, report],
      [timeout(20), never, report],
      [{ path: '/' }],
    );
    assert.equal(res.status, 503);
    assert.deepEqual(JSON.parse(res.body), {
      message: 'Response timeout',
      code: 'ETIMEDOUT',
      timeout: 20,
      timedout: true,
    });
  });

  it('a duration string, and a fast response is untouched', async () => {
    const [res] = await assertSameAsConnect(
      [connect.timeout('30ms'), never, report],
      [timeout('30ms'), never, report],
      [{ path: '/' }],
    );
    assert.equal(JSON.parse(res.body).timeout, 30);
    const [quick] = await requestAll([timeout(1000), fast], [{ path: '/' }]);
    assert.equal(quick.body, 'fast');
  });

  it('a duration Connect 2.30 could not read (ms 0.7: no sign) fires at once, without err.timeout', async () => {
    for (const time of ['-20ms', '', 'soon']) {
      const [res] = await assertSameAsConnect(
        [connect.timeout(time), never, report],
        [timeout(time), never, report],
        [{ path: '/' }],
      );
      assert.deepEqual(JSON.parse(res.body), { message: 'Response timeout', code: 'ETIMEDOUT', timedout: true });
    }
  });

  it('respond: false only flags the request; clearTimeout cancels', async () => {
    const later: Handler = (req, res) => req.on('timeout', () => res.end('flag ' + req.timedout));
    const [flagged] = await requestAll([timeout(10, { respond: false }), later], [{ path: '/' }]);
    assert.equal(flagged.body, 'flag true');
    const cancel: Handler = (req, res) => {
      req.clearTimeout();
      setTimeout(() => res.end('still ' + req.timedout), 40);
    };
    const [cleared] = await requestAll([timeout(10), cancel, report], [{ path: '/' }]);
    assert.equal(cleared.body, 'still false');
  });

  it('a keep-alive connection that carried 20,000 requests is destroyed without a stack overflow', async () => {
    // Connect 2.30 wrapped socket.destroy once per request; the wrappers nested
    // until destroying the socket threw RangeError (uncaught, in a real server).
    const count = 20_000;
    const STATUS_LINE = 'HTTP/1.1 200 OK';
    let answered = 0;
    const server = http.createServer(chain([timeout(60_000), fast]));
    const port = await listen(server);
    try {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => {});
      const all = new Promise<void>((resolve) => {
        let tail = '';
        socket.on('data', (chunk: Buffer) => {
          const text = tail + chunk.toString('latin1');
          answered += text.split(STATUS_LINE).length - 1;
          // Short of a whole status line, so a line cut between chunks is counted once.
          tail = text.slice(-(STATUS_LINE.length - 1));
          if (answered >= count) resolve();
        });
        socket.on('close', resolve);
      });
      socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n'.repeat(count));
      await all;
      assert.equal(answered, count);
      assert.doesNotThrow(() => server.closeAllConnections());
    } finally {
      await close(server);
    }
  });
});
