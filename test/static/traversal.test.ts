/**
 * Hostile paths against `static` and `res.sendFile` with a root: every one gets
 * the status Express gives it, and no file system call ever names a path outside
 * the root (checked by recording what reaches `fs`), nor does the secret that
 * sits beside the root ever appear in a body.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Request, Response } from 'express';
import webapp = require('../../src/index');
import { serveStatic } from '../../src/static/index';
import { assertSameResponses, type Framework } from '../support/differential';
import { spyOnFs } from './fs-spy';
import { close, createFixtures, listen, rawRequest, withBareServer, type Fixtures } from './support';

let fx: Fixtures;
before(() => {
  fx = createFixtures();
});
after(() => fx.cleanup());

/** [raw request path, status with `fallthrough: false`] */
const HOSTILE: Array<[string, number]> = [
  ['/../secret.txt', 403],
  ['/../../../../etc/passwd', 403],
  ['/..', 403],
  ['/%2e%2e', 403],
  ['/..%2fsecret.txt', 403],
  ['/%2e%2e/secret.txt', 403],
  ['/%2E%2e%2fsecret.txt', 403],
  ['/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd', 403],
  ['/.%2e/secret.txt', 403],
  ['/users/../../secret.txt', 403],
  ['/users/%2e%2e/%2e%2e/secret.txt', 403],
  ['/users/..%2f..%2f..%2fsecret.txt', 403],
  ['/..%5csecret.txt', 403],
  ['/..\\secret.txt', 403],
  ['/%5c..%5csecret.txt', 403],
  ['/%2e%2e%5c%2e%2e%5csecret.txt', 403],
  ['/users/..%5c..%5csecret.txt', 403],
  ['/%252e%252e/secret.txt', 404],
  ['/..%252fsecret.txt', 404],
  ['/%00../secret.txt', 400],
  ['/secret.txt%00.html', 400],
  ['/..%00/secret.txt', 400],
  ['/%c0%ae%c0%ae/secret.txt', 400],
  ['/..%c0%afsecret.txt', 400],
  ['/..%u2216secret.txt', 400],
  ['/%', 400],
  ['//etc/passwd', 404],
  ['/%2fetc%2fpasswd', 404],
  ['/%2F..%2F..%2Fsecret.txt', 403],
  ['/....//secret.txt', 404],
  ['/..;/secret.txt', 404],
  ['/C:%5cwindows%5cwin.ini', 404],
  ['/' + '..%2f'.repeat(40) + 'etc%2fpasswd', 403],
  ['/root-sibling.txt', 404],
  ['/../root-sibling.txt', 403],
];

function assertInsideRoot(paths: string[], label: string): void {
  for (const path of paths) {
    assert.ok(path === fx.root || path.startsWith(fx.root + sep), `${label}: touched ${path} outside the root`);
  }
}

describe('path traversal', () => {
  it(`static answers ${HOSTILE.length} hostile paths with 400/403/404 and touches nothing outside root`, async () => {
    assert.ok(HOSTILE.length >= 20);
    const middleware = serveStatic(fx.root, { fallthrough: false, dotfiles: 'allow' });
    await withBareServer(middleware, async (port) => {
      for (const [path, status] of HOSTILE) {
        const spy = spyOnFs();
        let response;
        try {
          response = await rawRequest(port, path);
        } finally {
          spy.restore();
        }
        assert.equal(response.status, status, path);
        assert.equal(response.headers['x-next'], 'error', path);
        assert.ok(!response.text.includes(fx.secret), path);
        assertInsideRoot(spy.paths, path);
      }
      // The server still answers normally afterwards, and the spy does see what is read.
      const spy = spyOnFs();
      try {
        assert.equal((await rawRequest(port, '/todo.txt')).text, '- groceries');
      } finally {
        spy.restore();
      }
      assert.ok(spy.paths.includes(fx.root + sep + 'todo.txt'), 'the fs spy records reads');
    });
  });

  it('static with the default fallthrough passes hostile paths on without reading', async () => {
    await withBareServer(serveStatic(fx.root), async (port) => {
      for (const [path] of HOSTILE) {
        const spy = spyOnFs();
        let response;
        try {
          response = await rawRequest(port, path);
        } finally {
          spy.restore();
        }
        assert.equal(response.headers['x-next'], 'called', path);
        assertInsideRoot(spy.paths, path);
      }
    });
  });

  it('gives the statuses express@4 gives', async () => {
    await assertSameResponses(
      (framework: Framework) => {
        const app = framework();
        app.set('env', 'production');
        const factory = (framework as unknown as { static?: typeof serveStatic }).static ?? serveStatic;
        app.use(factory(fx.root, { fallthrough: false }) as never);
        return app;
      },
      HOSTILE.map(([path]) => ({ path })),
    );
  });

  it('res.sendFile with a root refuses user-supplied names that leave it', async () => {
    const names: Array<[string, number]> = [
      ['../secret.txt', 403],
      ['..%2fsecret.txt', 404],
      ['users/../../secret.txt', 403],
      ['..\\secret.txt', 403],
      ['/../secret.txt', 403],
      ['/etc/passwd', 404],
      ['....//secret.txt', 404],
      ['a\0b', 400],
      ['../outside/secret.txt', 403],
      ['users/../todo.txt', 200],
      ['%2e%2e/secret.txt', 404],
    ];
    const app = webapp();
    app.set('env', 'production');
    app.get('/file', (req: Request, res: Response) => res.sendFile(String(req.query.name), { root: fx.root }));
    const server = http.createServer(app);
    const port = await listen(server);
    try {
      for (const [name, status] of names) {
        const spy = spyOnFs();
        let response;
        try {
          response = await rawRequest(port, '/file?name=' + encodeURIComponent(name));
        } finally {
          spy.restore();
        }
        assert.equal(response.status, status, name);
        assert.ok(!response.text.includes(fx.secret), name);
        assertInsideRoot(spy.paths, name);
      }
    } finally {
      await close(server);
    }
  });
});
