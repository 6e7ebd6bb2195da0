/**
 * onFinished / isFinished (src/http/on-finished.ts): the callback every file
 * transfer relies on to close its descriptor.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { isFinished, onFinished } from '../../src/http/on-finished';
import { close, eventually, listen } from './support';

async function withServer(handler: http.RequestListener, fn: (port: number) => Promise<void>): Promise<void> {
  const server = http.createServer(handler);
  const port = await listen(server);
  try {
    await fn(port);
  } finally {
    await close(server);
  }
}

function get(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

describe('onFinished', () => {
  it('calls back once when the response finished, with no error', async () => {
    const calls: unknown[] = [];
    await withServer(
      (_req, res) => {
        assert.equal(isFinished(res), false);
        onFinished(res, (err, msg) => calls.push([err ?? null, msg === res]));
        onFinished(res, () => calls.push('second'));
        res.end('done');
        assert.equal(isFinished(res), true);
      },
      async (port) => {
        assert.equal(await get(port), 'done');
        assert.equal(await eventually(() => calls.length === 2), true);
      },
    );
    assert.deepEqual(calls, [[null, true], 'second']);
  });

  it('calls back on the next turn for a response already finished', async () => {
    let called = 0;
    await withServer(
      (_req, res) => {
        res.end('x');
        onFinished(res, () => called++);
        assert.equal(called, 0, 'not synchronously');
      },
      async (port) => {
        await get(port);
        assert.equal(await eventually(() => called === 1), true);
      },
    );
  });

  it('calls back when the client goes away before the response ends', async () => {
    let called = 0;
    let serverRes: http.ServerResponse | undefined;
    await withServer(
      (_req, res) => {
        serverRes = res;
        res.write('partial');
        onFinished(res, () => called++);
      },
      async (port) => {
        await new Promise<void>((resolve) => {
          const req = http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
            res.once('data', () => {
              req.destroy();
              resolve();
            });
          });
          req.on('error', () => resolve());
        });
        assert.equal(await eventually(() => called === 1), true);
        assert.equal(serverRes?.writableEnded, false);
      },
    );
    assert.equal(called, 1);
  });

  it('knows when a request was fully read', async () => {
    await withServer(
      (req, res) => {
        assert.equal(isFinished(req), false);
        onFinished(req, () => {
          assert.equal(isFinished(req), true);
          res.end('read');
        });
        req.resume();
      },
      async (port) => {
        assert.equal(await get(port), 'read');
      },
    );
  });

  it('is undefined for objects that are not HTTP messages', () => {
    assert.equal(isFinished({} as http.ServerResponse), undefined);
  });
});
