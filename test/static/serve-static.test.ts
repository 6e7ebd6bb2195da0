/**
 * The static middleware on a bare `http.createServer` (no app): what it answers,
 * and exactly what it hands to `next`.
 */
import assert from 'node:assert/strict';
import type { Stats } from 'node:fs';
import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import webapp = require('../../src/index');
import { serveStatic } from '../../src/static/index';
import { createFixtures, rawRequest, withBareServer, type Fixtures } from './support';

let fx: Fixtures;
before(() => {
  fx = createFixtures();
});
after(() => fx.cleanup());

describe('serveStatic(root, options)', () => {
  it('has the arity of serve-static; webapp.static calls it, with its name, arity and mime', () => {
    assert.equal(serveStatic.length, 2);
    assert.equal(serveStatic(fx.root).length, 3);
    const exported = (webapp as unknown as { static: typeof serveStatic }).static;
    assert.equal(exported.name, 'serveStatic');
    assert.equal(exported.length, 2);
    assert.equal(exported.mime, serveStatic.mime);
    assert.equal(exported(fx.root).name, serveStatic(fx.root).name);
  });

  it('serves a file with type, length, validators and caching headers', async () => {
    await withBareServer(serveStatic(fx.root), async (port) => {
      const res = await rawRequest(port, '/todo.txt');
      assert.equal(res.status, 200);
      assert.equal(res.text, '- groceries');
      assert.equal(res.headers['content-type'], 'text/plain; charset=UTF-8');
      assert.equal(res.headers['content-length'], '11');
      assert.equal(res.headers['accept-ranges'], 'bytes');
      assert.equal(res.headers['cache-control'], 'public, max-age=0');
      assert.match(String(res.headers.etag), /^W\/"b-[0-9a-f]+"$/);
      assert.equal(res.headers['last-modified'], 'Thu, 02 Jan 2020 03:04:05 GMT');
    });
  });

  it('sends headers only for HEAD', async () => {
    await withBareServer(serveStatic(fx.root), async (port) => {
      const res = await rawRequest(port, '/todo.txt', { method: 'HEAD' });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-length'], '11');
      assert.equal(res.body.length, 0);
    });
  });

  it('calls next() for a missing file, a dotfile and other methods (fallthrough)', async () => {
    await withBareServer(serveStatic(fx.root), async (port) => {
      for (const [method, path] of [
        ['GET', '/missing'],
        ['GET', '/.hidden'],
        ['POST', '/todo.txt'],
        ['GET', '/%00'],
        ['GET', '/pets/'],
      ]) {
        const res = await rawRequest(port, path, { method });
        assert.equal(res.headers['x-next'], 'called', `${method} ${path}`);
      }
    });
  });

  it('calls next(err) with the status when fallthrough is false, and answers 405 to other methods', async () => {
    await withBareServer(serveStatic(fx.root, { fallthrough: false }), async (port) => {
      const cases: Array<[string, number, string]> = [
        ['/missing', 404, 'ENOENT'],
        ['/.hidden', 404, ''],
        ['/%00', 400, ''],
        ['/../x', 403, ''],
      ];
      for (const [path, status, code] of cases) {
        const res = await rawRequest(port, path);
        assert.equal(res.headers['x-next'], 'error', path);
        assert.equal(res.status, status, path);
        assert.equal(res.text.split('|')[1], code, path);
      }
      const post = await rawRequest(port, '/todo.txt', { method: 'POST' });
      assert.equal(post.status, 405);
      assert.equal(post.headers.allow, 'GET, HEAD');
      assert.equal(post.headers['content-length'], '0');
      assert.equal(post.body.length, 0);
    });
  });

  it('with dotfiles deny answers 403 through next(err), and next() with fallthrough', async () => {
    await withBareServer(serveStatic(fx.root, { dotfiles: 'deny', fallthrough: false }), async (port) => {
      assert.equal((await rawRequest(port, '/.hidden')).status, 403);
      assert.equal((await rawRequest(port, '/.secret/file.txt')).status, 403);
    });
    await withBareServer(serveStatic(fx.root, { dotfiles: 'deny' }), async (port) => {
      assert.equal((await rawRequest(port, '/.hidden')).headers['x-next'], 'called');
    });
    await withBareServer(serveStatic(fx.root, { dotfiles: 'allow' }), async (port) => {
      assert.equal((await rawRequest(port, '/.hidden')).text, 'hidden file');
    });
    await withBareServer(serveStatic(fx.root), async (port) => {
      assert.equal(
        (await rawRequest(port, '/.secret/file.txt')).text,
        'in a dot directory',
        'default mode serves files inside dot-directories',
      );
    });
  });

  it('redirects a directory to its slash URL with an escaped HTML body and safe headers', async () => {
    await withBareServer(serveStatic(fx.root), async (port) => {
      const res = await rawRequest(port, '/emptydir?q=<script>');
      assert.equal(res.status, 301);
      assert.equal(res.headers.location, '/emptydir/?q=%3Cscript%3E');
      assert.equal(res.headers['content-security-policy'], "default-src 'none'");
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['content-type'], 'text/html; charset=UTF-8');
      assert.ok(res.text.includes('Redirecting to /emptydir/?q=%3Cscript%3E'));
      assert.ok(!res.text.includes('<script>'));
      const collapsed = await rawRequest(port, '//emptydir');
      assert.equal(collapsed.headers.location, '/emptydir/', 'no protocol-relative redirect to another host');
    });
    await withBareServer(serveStatic(fx.root, { redirect: false }), async (port) => {
      assert.equal((await rawRequest(port, '/emptydir')).headers['x-next'], 'called');
    });
  });

  it('serves index files (string, array, or none) and extension fallbacks', async () => {
    await withBareServer(serveStatic(fx.root, { index: ['nope.html', 'tobi.txt'] }), async (port) => {
      assert.equal((await rawRequest(port, '/users/')).text, 'ferret');
    });
    await withBareServer(serveStatic(fx.root, { index: false }), async (port) => {
      assert.equal((await rawRequest(port, '/users/')).headers['x-next'], 'called');
    });
    await withBareServer(serveStatic(fx.root, { extensions: ['txt', 'html'] }), async (port) => {
      assert.equal((await rawRequest(port, '/tobi')).text, 'tobi text');
      assert.equal((await rawRequest(port, '/page')).text, '<p>page</p>');
      assert.equal((await rawRequest(port, '/tobi.json')).headers['x-next'], 'called');
    });
  });

  it('sets Cache-Control from maxAge (number or string) and immutable; cacheControl false omits it', async () => {
    const cases: Array<[object, string | undefined]> = [
      [{ maxAge: 60_000 }, 'public, max-age=60'],
      [{ maxAge: '1d' }, 'public, max-age=86400'],
      [{ maxAge: '1d', immutable: true }, 'public, max-age=86400, immutable'],
      [{ maxAge: '5y' }, 'public, max-age=31536000'],
      [{ cacheControl: false, maxAge: 1000 }, undefined],
    ];
    for (const [options, expected] of cases) {
      await withBareServer(serveStatic(fx.root, options), async (port) => {
        assert.equal((await rawRequest(port, '/todo.txt')).headers['cache-control'], expected, JSON.stringify(options));
      });
    }
  });

  it('calls setHeaders(res, path, stat) for files only', async () => {
    const calls: Array<[string, number]> = [];
    const setHeaders = (res: ServerResponse, path: string, stat: Stats) => {
      calls.push([path, stat.size]);
      res.setHeader('x-served-by', 'static');
    };
    await withBareServer(serveStatic(fx.root, { setHeaders }), async (port) => {
      assert.equal((await rawRequest(port, '/todo.txt')).headers['x-served-by'], 'static');
      await rawRequest(port, '/missing');
      await rawRequest(port, '/users');
    });
    assert.deepEqual(calls, [[join(fx.root, 'todo.txt'), 11]]);
  });

  it('forwards a read error of a found file to next(err) even with fallthrough', async () => {
    const eio = () => Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
    const originalRead = fs.read;
    const originalStream = fs.createReadStream;
    // Small files are read in one call, large ones streamed: make both fail.
    (fs as { read: unknown }).read = (_fd: number, ...rest: unknown[]) => {
      const callback = rest[rest.length - 1] as (err: Error) => void;
      process.nextTick(callback, eio());
    };
    (fs as { createReadStream: unknown }).createReadStream = () => {
      const failing = new Readable({ read() {} });
      process.nextTick(() => failing.destroy(eio()));
      return failing;
    };
    try {
      const big = join(fx.root, 'big.bin');
      fs.writeFileSync(big, Buffer.alloc(200 * 1024));
      await withBareServer(serveStatic(fx.root), async (port) => {
        for (const path of ['/todo.txt', '/big.bin']) {
          const res = await rawRequest(port, path);
          assert.equal(res.headers['x-next'], 'error', path);
          assert.equal(res.status, 500, path);
          assert.equal(res.text, 'EIO: i/o error, read|EIO', path);
        }
      });
    } finally {
      (fs as { read: unknown }).read = originalRead;
      (fs as { createReadStream: unknown }).createReadStream = originalStream;
    }
  });

  it('fails requests (not construction) on invalid send options, as serve-static does', async () => {
    const middleware = serveStatic(fx.root, { dotfiles: 'sometimes' as 'allow' });
    await withBareServer(middleware, async (port) => {
      const res = await rawRequest(port, '/todo.txt');
      assert.equal(res.headers['x-next'], 'thrown');
      assert.equal(res.text, 'dotfiles option must be "allow", "deny", or "ignore"');
      assert.equal((await rawRequest(port, '/todo.txt', { method: 'DELETE' })).headers['x-next'], 'called');
    });
  });

  it('throws for a missing or non-string root and a non-function setHeaders', () => {
    assert.throws(() => serveStatic(''), { name: 'TypeError', message: 'root path required' });
    assert.throws(() => serveStatic(5 as unknown as string), {
      name: 'TypeError',
      message: 'root path must be a string',
    });
    assert.throws(() => serveStatic(fx.root, { setHeaders: {} as never }), {
      name: 'TypeError',
      message: 'option setHeaders must be function',
    });
  });
});

describe('serveStatic robustness', () => {
  it('turns a throwing setHeaders into next(err) with 500 instead of crashing', async () => {
    const setHeaders = (res: ServerResponse) => {
      res.setHeader('x-bad', 'line\nbreak');
    };
    await withBareServer(serveStatic(fx.root, { setHeaders }), async (port) => {
      const res = await rawRequest(port, '/todo.txt');
      assert.equal(res.status, 500);
      assert.equal(res.headers['x-next'], 'error');
      assert.equal((await rawRequest(port, '/users/')).status, 500, 'the server keeps serving');
    });
  });
});
