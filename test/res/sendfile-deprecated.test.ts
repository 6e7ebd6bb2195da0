import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import express from 'express';
import request from 'supertest';
import webapp = require('../../src/index');
import { assertSameResponses, rawRequest, withServer, type Framework } from '../support/differential';

describe('res.sendfile (4.x)', () => {
  it('is the deprecated alias Express 4 keeps: it sends the file and warns once', async () => {
    const warnings: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (typeof chunk === 'string' && chunk.includes('deprecated')) {
        warnings.push(chunk);
        return true;
      }
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
    try {
      const app = webapp();
      const file = require.resolve('../../package.json');
      app.get('/', (_req: unknown, res: { sendfile(path: string): void }) => res.sendfile(file));
      const res = await request(app).get('/').expect(200);
      assert.match(res.text, /"name": "webapp"/);
    } finally {
      process.stderr.write = write;
    }
    assert.ok(
      warnings.some((w) => w.includes('webapp deprecated res.sendfile: Use res.sendFile instead')),
      warnings.join(''),
    );
  });
});

/**
 * What the deprecated `res.sendfile(path, fn)` reports, compared with express@4:
 * `fn()` after the file, a HEAD and a 304; `fn(err)` with `ECONNABORTED` when the
 * client aborts mid-transfer or had already gone when it was called.
 */
describe('res.sendfile(path, fn) outcomes match express@4', () => {
  const dir = mkdtempSync(join(tmpdir(), 'webapp-sendfile-'));
  const small = join(dir, 'small.txt');
  const large = join(dir, 'large.bin');
  writeFileSync(small, 'hello');
  writeFileSync(large, Buffer.alloc(16 * 1024 * 1024, 'x'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  type Outcome = string;
  interface Legacy {
    sendfile(path: string, fn: (err?: NodeJS.ErrnoException) => void): void;
  }

  /** Runs the scenarios against one framework; returns what each callback saw. */
  async function outcomes(framework: Framework): Promise<Record<string, Outcome>> {
    const seen: Record<string, Outcome> = {};
    const waiting = new Map<string, () => void>();
    // With a callback, a failure is the app's to answer: end the response so the client is not left waiting.
    const record =
      (name: string, res: { headersSent: boolean; statusCode: number; end(): void }) =>
      (err?: NodeJS.ErrnoException) => {
        seen[name] = err ? String(err.code) : 'ok';
        if (err && !res.headersSent) {
          res.statusCode = 500;
          res.end();
        }
        waiting.get(name)?.();
      };
    const settled = (name: string) =>
      new Promise<void>((resolve) => (seen[name] ? resolve() : waiting.set(name, resolve)));
    const app = framework();
    app.get('/small', (req, res) => (res as unknown as Legacy).sendfile(small, record(String(req.query.name), res)));
    app.get('/large', (req, res) => (res as unknown as Legacy).sendfile(large, record(String(req.query.name), res)));
    app.get('/missing', (req, res) =>
      (res as unknown as Legacy).sendfile(join(dir, 'nope'), record(String(req.query.name), res)),
    );
    // Called only once the client has gone.
    app.get('/late', (req, res) => {
      req.socket.once('close', () => (res as unknown as Legacy).sendfile(small, record('late', res)));
    });
    const quiet = silenceDeprecations();
    try {
      await withServer(app, async (port) => {
        await rawRequest(port, { path: '/small?name=get' });
        await rawRequest(port, { method: 'HEAD', path: '/small?name=head' });
        const first = await rawRequest(port, { path: '/small?name=etag' });
        const cached = await rawRequest(port, {
          path: '/small?name=not-modified',
          headers: { 'if-none-match': String(first.headers.etag) },
        });
        assert.equal(cached.status, 304);
        await rawRequest(port, { path: '/missing?name=missing' });
        await abortAfterFirstBytes(port, '/large?name=aborted');
        await abortAfterFirstBytes(port, '/late', 0);
        // Bounded: a callback that never comes shows as missing in the comparison.
        const all = Promise.all(['get', 'head', 'etag', 'not-modified', 'missing', 'aborted', 'late'].map(settled));
        await Promise.race([all, new Promise((resolve) => setTimeout(resolve, 3000).unref())]);
      });
    } finally {
      quiet();
    }
    return seen;
  }

  it('fn() after a file, a HEAD and a 304; fn(err) for a missing file and an aborted client', async () => {
    const expected = await outcomes(express as unknown as Framework);
    assert.deepEqual(expected, {
      get: 'ok',
      head: 'ok',
      etag: 'ok',
      'not-modified': 'ok',
      missing: 'ENOENT',
      aborted: 'ECONNABORTED',
      late: 'ECONNABORTED',
    });
    assert.deepEqual(await outcomes(webapp as unknown as Framework), expected);
  });
});

/** Starts a GET and destroys the connection once `bytes` of the response arrived (0: once the request is sent). */
function abortAfterFirstBytes(port: number, path: string, bytes = 1): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      if (bytes === 0) setTimeout(() => socket.destroy(), 20);
    });
    let received = 0;
    socket.on('data', (chunk) => {
      received += chunk.length;
      if (received >= bytes) socket.destroy();
    });
    socket.on('close', () => resolve());
    socket.on('error', () => undefined);
  });
}

function silenceDeprecations(): () => void {
  const write = process.stderr.write;
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) =>
    typeof chunk === 'string' && chunk.includes('deprecated')
      ? true
      : (write as (...a: unknown[]) => boolean).call(process.stderr, chunk, ...rest)) as typeof process.stderr.write;
  return () => {
    process.stderr.write = write;
  };
}

describe('res.sendfile with a path that is not a string (taken from the query string)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'webapp-sendfile-query-'));
  writeFileSync(join(dir, 'a.txt'), 'file a');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('is made a string, as Express 4 makes it: an array names its file, an object is a 404', async () => {
    await assertSameResponses(
      (framework) => {
        const app: any = framework();
        app.get('/file', (req: any, res: any) => res.sendfile(req.query.f, { root: dir }));
        app.use((err: any, _req: any, res: any, _next: any) =>
          res.status(err.status || 500).send('error ' + err.status),
        );
        return app;
      },
      [{ path: '/file?f=a.txt' }, { path: '/file?f[]=a.txt' }, { path: '/file?f[a]=1' }, { path: '/file' }],
    ).then((responses) =>
      assert.deepEqual(
        responses.map((res) => res.status),
        [200, 200, 404, 500],
      ),
    );
  });
});
