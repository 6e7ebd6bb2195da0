/**
 * 3.x `res.sendfile` when the connection fails while the file is looked up or
 * sent (Connect's guards): the callback hears of it once, with the first error;
 * without a callback, an error after the head went out is not turned into an
 * error page but closes the connection; and the server goes on serving.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { failNextRead } from '../support/failing-read';
import { rawRequest, withServer } from '../support/raw-http';
import webapp3 = require('../../src/v3/index');

type Any = any;

let dir: string;
before(() => {
  dir = fs.mkdtempSync(join(tmpdir(), 'webapp-v3-sendfile-'));
  fs.writeFileSync(join(dir, 'small.txt'), 'small file\n');
  // Above the size read in one call: streamed.
  fs.writeFileSync(join(dir, 'large.bin'), Buffer.alloc(256 * 1024, 0x61));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * A GET on a connection of its own: resolves with what arrived once the server
 * closed it, or `settleMs` after the last byte (`closed: false`: the server left
 * it open); the client then closes it.
 */
function fetchRaw(port: number, path: string, settleMs = 200): Promise<{ closed: boolean; text: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ closed, text });
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      clearTimeout(timer);
      timer = setTimeout(() => done(false), settleMs);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => done(true));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  });
}

describe('3.x res.sendfile when the connection or the read fails', () => {
  it('a socket error while the file is looked up reaches the callback once, and the server serves on', async () => {
    const calls: string[] = [];
    const app: Any = webapp3();
    app.get('/cut', (req: Any, res: Any) => {
      res.sendfile(join(dir, 'small.txt'), (err?: Error) => calls.push(err ? err.message : 'sent'));
      // The connection fails before the file's stat returns.
      req.socket.emit('error', new Error('connection reset by test'));
    });
    app.get('/ok', (_req: Any, res: Any) => res.sendfile(join(dir, 'small.txt')));
    await withServer(app as http.RequestListener, async (port) => {
      await fetchRaw(port, '/cut');
      // Let the lookup finish after the failure.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const ok = await rawRequest(port, { path: '/ok' });
      assert.equal(ok.status, 200);
      assert.equal(ok.body, 'small file\n');
    });
    assert.deepEqual(calls, ['connection reset by test']);
  });

  it('a read failing after the head went out: no error page, and the server serves on', async () => {
    const restoreRead = failNextRead();
    const nextCalls: unknown[] = [];
    const app: Any = webapp3();
    app.get('/large', (_req: Any, res: Any) => res.sendfile(join(dir, 'large.bin')));
    app.use((err: unknown, _req: Any, res: Any, _next: Any) => {
      nextCalls.push(err);
      res.send(500, 'error page');
    });
    app.get('/ok', (_req: Any, res: Any) => res.sendfile(join(dir, 'small.txt')));
    try {
      await withServer(app as http.RequestListener, async (port) => {
        const cut = await fetchRaw(port, '/large');
        assert.match(cut.text, /^HTTP\/1\.1 200 OK\r\n/);
        assert.ok(cut.text.endsWith('b'.repeat(1024)), 'the head and the first chunk arrived, nothing after');
        assert.doesNotMatch(cut.text, /error page/);
        // Express 3 left the response open; the client learns at once that it was cut short.
        assert.equal(cut.closed, true);
        const ok = await rawRequest(port, { path: '/ok' });
        assert.equal(ok.status, 200);
      });
    } finally {
      restoreRead();
    }
    assert.deepEqual(nextCalls, []);
  });

  it('many requests pipelined on one connection share one error listener (no MaxListeners warning)', async () => {
    // Each sendfile put its own 'error' listener on the connection until its file
    // streamed, as Express 3 did: eleven pipelined requests made Node warn.
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const app: Any = webapp3();
    app.get('/file', (_req: Any, res: Any) => res.sendfile(join(dir, 'small.txt')));
    try {
      const text = await withServer(
        app as http.RequestListener,
        (port) =>
          new Promise<string>((resolve, reject) => {
            const socket = net.connect(port, '127.0.0.1');
            let received = '';
            socket.setEncoding('latin1');
            socket.on('data', (chunk: string) => {
              received += chunk;
              if (received.split('small file\n').length - 1 === 30) socket.end();
            });
            socket.on('error', reject);
            socket.on('close', () => resolve(received));
            socket.write('GET /file HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(30));
          }),
      );
      assert.equal(text.match(/HTTP\/1\.1 200 OK\r\n/g)?.length, 30);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(warnings, []);
    } finally {
      process.removeListener('warning', onWarning);
    }
  });
});

describe('3.x res.sendfile when the client leaves', () => {
  it(
    'every callback hears ECONNABORTED: the file streaming then, and the ones queued behind it',
    {
      timeout: 30_000,
    },
    async () => {
      // Larger than what the connection's buffers take while the client reads nothing:
      // the first file is still streaming when the client leaves. Its read was stopped
      // and never ended, so its callback (a download's temporary file removed there)
      // never ran; the queued ones heard the connection's raw ECONNRESET.
      const large = join(dir, 'larger-than-buffers.bin');
      fs.writeFileSync(large, Buffer.alloc(48 * 1024 * 1024, 0x61));
      const heard: string[] = [];
      let handled = 0;
      let allHandled: () => void;
      const handlersRan = new Promise<void>((resolve) => (allHandled = resolve));
      let allHeard: () => void;
      const callbacksRan = new Promise<void>((resolve) => (allHeard = resolve));
      const app: Any = webapp3();
      app.get('/file', (_req: Any, res: Any) => {
        res.sendfile(large, (err?: NodeJS.ErrnoException) => {
          heard.push(err ? String(err.code) : 'sent');
          if (heard.length === 4) allHeard();
        });
        if (++handled === 4) allHandled();
      });
      try {
        await withServer(app as http.RequestListener, async (port) => {
          const socket = net.connect(port, '127.0.0.1');
          socket.on('error', () => undefined);
          socket.pause();
          socket.write('GET /file HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(4));
          await handlersRan;
          socket.destroy();
          await callbacksRan;
        });
      } finally {
        fs.rmSync(large);
      }
      assert.deepEqual(heard, ['ECONNABORTED', 'ECONNABORTED', 'ECONNABORTED', 'ECONNABORTED']);
    },
  );
});
