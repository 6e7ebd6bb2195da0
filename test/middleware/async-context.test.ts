/**
 * Middleware that continues after I/O (a request body, a session store, the
 * file system, a timer) keeps the AsyncLocalStorage store the app entered
 * before it, in the next middleware and in error handlers.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cookieParser } from '../../src/middleware/cookie-parser';
import * as middleware from '../../src/middleware/index';
import { MemoryStore, session } from '../../src/middleware/session';
import { serveStatic } from '../../src/static';
import type { SessionData } from '../../src/middleware/session/store';
import { als, assertStoreKept, enterStore, storeErrorProbe, storeProbe } from '../support/async-context';
import { rawRequest, withServer } from '../support/raw-http';
import { chain, type Handler } from './support';

const BOUNDARY = 'ctx-boundary';
const FORM = 'multipart/form-data; boundary=' + BOUNDARY;
const form = (parts: string[]) => parts.map((part) => `--${BOUNDARY}\r\n${part}\r\n`).join('') + `--${BOUNDARY}--\r\n`;
const field = (name: string, value: string) => `Content-Disposition: form-data; name="${name}"\r\n\r\n${value}`;
const file = (name: string, content: string) =>
  `Content-Disposition: form-data; name="${name}"; filename="${name}.txt"\r\n` +
  `Content-Type: text/plain\r\n\r\n${content}`;
const post = (type: string, body: string) => ({ method: 'POST', path: '/', headers: { 'content-type': type }, body });

const stack = (...handlers: Handler[]) => chain([enterStore, ...handlers, storeProbe, storeErrorProbe]);

let root: string;
let uploads: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'webapp-ctx-'));
  uploads = join(root, 'uploads');
  mkdirSync(uploads);
  mkdirSync(join(root, 'public'));
  writeFileSync(join(root, 'public', 'hello.txt'), 'hello');
  mkdirSync(join(root, 'public', 'dir'));
  writeFileSync(join(root, 'favicon.ico'), 'icon');
});
after(() => rmSync(root, { recursive: true, force: true }));

/**
 * A store whose answers arrive from a connection of its own, as a Redis or SQL
 * client's do: callbacks run from a timer created outside any request.
 */
class RemoteStore extends MemoryStore {
  private pending: Array<() => void> = [];
  private pump = setInterval(() => this.pending.splice(0).forEach((answer) => answer()), 2).unref();
  failGet = false;
  failSet = false;
  override get(sid: string, fn: (err: unknown, session?: SessionData | null) => void): void {
    super.get(sid, (err, data) => this.pending.push(() => fn(this.failGet ? new Error('store down') : err, data)));
  }
  override set(sid: string, data: SessionData, fn?: (err?: unknown) => void): void {
    super.set(sid, data, (err?: unknown) =>
      this.pending.push(() => fn?.(this.failSet ? new Error('store down') : err)),
    );
  }
  override destroy(sid: string, fn?: (err?: unknown) => void): void {
    super.destroy(sid, (err?: unknown) => this.pending.push(() => fn?.(err)));
  }
  close(): void {
    clearInterval(this.pump);
  }
}

describe('webapp/middleware keeps the AsyncLocalStorage store', () => {
  it('multipart: success, a malformed body and a body over the limit', async () => {
    const quiet = process.emitWarning;
    const multipart = middleware.multipart({ uploadDir: uploads, limit: 1000 });
    process.emitWarning = quiet;
    await assertStoreKept(stack(multipart), [
      { name: 'fields and a file', request: post(FORM, form([field('a', '1'), file('f', 'content')])), status: 200 },
      { name: 'malformed', request: post(FORM, `--${BOUNDARY}\r\nnot a header\r\n\r\nx`), status: 400 },
      { name: 'over the limit', request: post(FORM, form([field('a', 'x'.repeat(2000))])), status: 413 },
    ]);
  });

  it('bodyParser (json, urlencoded, multipart)', async () => {
    await assertStoreKept(stack(middleware.bodyParser({ uploadDir: uploads })), [
      { name: 'json', request: post('application/json', '{"a":1}'), status: 200 },
      { name: 'bad json', request: post('application/json', '{nope'), status: 400 },
      { name: 'urlencoded', request: post('application/x-www-form-urlencoded', 'a=1'), status: 200 },
      { name: 'multipart', request: post(FORM, form([file('f', 'content')])), status: 200 },
    ]);
  });

  it('session with a store answering from its own connection: load, load error and save error', async () => {
    const store = new RemoteStore();
    const failing = new RemoteStore();
    failing.failGet = true;
    const saveFailing = new RemoteStore();
    saveFailing.failSet = true;
    const options = { secret: 'keyboard cat', resave: false, saveUninitialized: true };
    const touch = (req: { session: { visits?: number } }, _res: unknown, next: () => void) => {
      req.session.visits = (req.session.visits || 0) + 1;
      next();
    };
    try {
      // A first request creates the session; the next ones load it from the store.
      const cookie = await withServer(
        chain([cookieParser(), session({ ...options, store }), touch, storeProbe]),
        async (port) => {
          const res = await rawRequest(port, { path: '/', headers: { 'x-id': 'first' } });
          return String(res.headers['set-cookie']).split(';')[0];
        },
      );
      await assertStoreKept(
        chain([enterStore, cookieParser(), session({ ...options, store }), touch, storeProbe, storeErrorProbe]),
        [{ name: 'loaded', request: { path: '/', headers: { cookie } }, status: 200 }],
      );
      await assertStoreKept(
        chain([
          enterStore,
          cookieParser(),
          session({ ...options, store: failing }),
          touch,
          storeProbe,
          storeErrorProbe,
        ]),
        [{ name: 'store error', request: { path: '/', headers: { cookie } }, status: 500 }],
      );
      // The session's own methods call back in the caller's context too (passport logs in inside regenerate).
      const methods = (req: any, _res: unknown, next: (err?: unknown) => void) => {
        req.session.regenerate((err: unknown) => {
          if (err) return next(err);
          req.session.user = 'u';
          req.session.save(() =>
            req.session.reload(() => {
              req.session.destroy(() => next());
            }),
          );
        });
      };
      await assertStoreKept(
        chain([enterStore, cookieParser(), session({ ...options, store }), methods, storeProbe, storeErrorProbe]),
        [{ name: 'regenerate, save, reload, destroy', request: { path: '/', headers: { cookie } }, status: 200 }],
      );
      // A failed save reaches next(err) after the response went out: record what that handler sees.
      const seen: string[] = [];
      const record: Handler = (_err, _req, _res, _next) => {
        seen.push(als.getStore() ?? 'none');
      };
      await withServer(
        chain([enterStore, cookieParser(), session({ ...options, store: saveFailing }), touch, storeProbe, record]),
        async (port) => {
          await rawRequest(port, { path: '/', headers: { 'x-id': 'save' } });
          for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
        },
      );
      assert.deepEqual(seen, ['save']);
    } finally {
      store.close();
      failing.close();
      saveFailing.close();
    }
  });

  it('cookieSession, compress, limit, csrf', async () => {
    await assertStoreKept(
      stack(
        cookieParser(),
        middleware.cookieSession({ secret: 's' }),
        middleware.compress(),
        middleware.limit(10),
        middleware.csrf(),
      ),
      [
        { name: 'get', request: { path: '/' }, status: 200 },
        { name: 'over the limit', request: post('text/plain', 'x'.repeat(20)), status: 413 },
        { name: 'no csrf token', request: post('text/plain', 'x'), status: 403 },
      ],
    );
  });

  it('timeout: the 503 reaches the error handler in the store', async () => {
    const wait: Handler = () => undefined;
    await assertStoreKept(stack(middleware.timeout(20), wait), [
      { name: 'timed out', request: { path: '/' }, status: 503 },
    ]);
  });

  it('static, staticCache, directory, favicon: next() and next(err) after the file system', async () => {
    const publicDir = join(root, 'public');
    await assertStoreKept(
      stack(
        middleware.favicon(join(root, 'favicon.ico')),
        middleware.staticCache(),
        serveStatic(publicDir),
        middleware.directory(publicDir),
      ),
      [
        { name: 'missing file', request: { path: '/missing.txt' }, status: 200 },
        { name: 'bad path', request: { path: '/%00' }, status: 400 },
        { name: 'directory, unacceptable', request: { path: '/dir/', headers: { accept: 'image/png' } }, status: 406 },
      ],
    );
  });
});
