/**
 * res.download(path, [filename], [options], [fn]): differential against express@4
 * for every argument form, the Content-Disposition variants and the errors.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ErrorRequestHandler, Request, Response } from 'express';
import webapp = require('../../src/index');
import { assertSameResponses, type Framework } from '../support/differential';
import { close, createFixtures, eventually, listen, rawRequest, type Fixtures } from '../static/support';

let fx: Fixtures;
before(() => {
  fx = createFixtures();
});
after(() => fx.cleanup());

const errorEcho: ErrorRequestHandler = (err, _req, res, _next) => {
  res.statusCode = typeof err.status === 'number' ? err.status : 500;
  res.setHeader('Content-Type', 'application/json');
  res.end(
    JSON.stringify({ name: err.name, message: err.message, status: err.status, expose: err.expose, code: err.code }),
  );
};

type Case = (req: Request, res: Response) => void;
type Download = (...args: unknown[]) => void;

function appWith(cases: Case[]) {
  return (framework: Framework) => {
    const app = framework();
    app.set('env', 'production');
    app.get('/case/:n', (req, res) => cases[Number(req.params.n)](req, res));
    app.use((_req, res) => {
      res.statusCode = 404;
      res.setHeader('x-fell-through', 'yes');
      res.end('fell through');
    });
    app.use(errorEcho);
    return app;
  };
}

function reportingCallback(res: Response) {
  return (err?: NodeJS.ErrnoException & { status?: number }) => {
    if (res.headersSent) return;
    res.setHeader('x-callback', err ? 'error' : 'ok');
    res.end(err ? JSON.stringify({ code: err.code, status: err.status, message: err.message }) : '');
  };
}

describe('res.download compatibility with express@4', () => {
  it('handles every argument form, name and option', async () => {
    const file = (name: string) => join(fx.root, name);
    const dl = (res: Response) => res.download.bind(res) as unknown as Download;
    const cases: Case[] = [
      (_q, res) => dl(res)(file('todo.txt')),
      (_q, res) => dl(res)(file('todo.txt'), 'list.txt'),
      (_q, res) => dl(res)(file('todo.txt'), 'dir/sub/list.txt'),
      (_q, res) => dl(res)(file('todo.txt'), 'naïve café.txt'),
      (_q, res) => dl(res)(file('todo.txt'), '€ rates 日本.txt'),
      (_q, res) => dl(res)(file('todo.txt'), 'the "quoted" name.txt'),
      (_q, res) => dl(res)(file('todo.txt'), '100%25.txt'),
      (_q, res) => dl(res)(file('snow ☃.txt')),
      (_q, res) => dl(res)(file('todo.txt'), reportingCallback(res)),
      (_q, res) => dl(res)(file('todo.txt'), 'named.txt', reportingCallback(res)),
      (_q, res) => dl(res)(file('missing.txt'), reportingCallback(res)),
      (_q, res) => dl(res)(file('missing.txt'), 'x.txt', reportingCallback(res)),
      (_q, res) => dl(res)(file('missing.txt')),
      (_q, res) => dl(res)(file('users')),
      (_q, res) =>
        dl(res)(file('todo.txt'), {
          headers: { 'X-Extra': '1', 'Content-Disposition': 'inline', 'content-disposition': 'inline' },
        }),
      (_q, res) =>
        dl(res)(file('todo.txt'), 'n.txt', {
          headers: { 'CONTENT-DISPOSITION': 'inline', 'Cache-Control': 'no-cache' },
        }),
      (_q, res) => dl(res)(file('todo.txt'), 'n.txt', { maxAge: '1h', lastModified: false }, reportingCallback(res)),
      (_q, res) => dl(res)(file('todo.txt'), { maxAge: 5000 }, reportingCallback(res)),
      (_q, res) => dl(res)(file('todo.txt'), null, { acceptRanges: false, cacheControl: false }),
      (_q, res) => dl(res)(file('todo.txt'), undefined, { immutable: true, maxAge: '1d' }),
      (_q, res) => dl(res)('todo.txt', { root: fx.root }),
      (_q, res) => dl(res)('users/tobi.txt', 'tobi.txt', { root: fx.root }),
      (_q, res) => dl(res)('../secret.txt', { root: fx.root }),
      (_q, res) => dl(res)('../secret.txt', 'x', { root: fx.root }, reportingCallback(res)),
      (_q, res) => dl(res)(relative(process.cwd(), file('todo.txt'))),
      (_q, res) => dl(res)(file('.hidden')),
      (_q, res) => dl(res)(file('.hidden'), { dotfiles: 'allow' }),
      (_q, res) => dl(res)(file('.hidden'), 'x', { dotfiles: 'deny' }),
      (_q, res) => dl(res)(file('% of 100.txt')),
      (_q, res) => dl(res)(file('data.json'), 'data.json'),
    ];
    const requests = cases.map((_c, n) => ({ path: '/case/' + n }));
    requests.push(
      { path: '/case/0', headers: { Range: 'bytes=0-1' } } as never,
      { method: 'HEAD', path: '/case/1' } as never,
    );
    await assertSameResponses(appWith(cases), requests);
  });
});

describe('res.download (webapp)', () => {
  it('keeps its Content-Disposition whatever the headers option says', async () => {
    const app = webapp();
    app.get('/', (_req: Request, res: Response) =>
      res.download(join(fx.root, 'todo.txt'), 'report.txt', {
        headers: { 'Content-Disposition': 'inline', 'X-Other': 'kept' },
      }),
    );
    const server = http.createServer(app);
    const port = await listen(server);
    try {
      const response = await rawRequest(port, '/');
      assert.equal(response.status, 200);
      assert.equal(response.headers['content-disposition'], 'attachment; filename="report.txt"');
      assert.equal(response.headers['x-other'], 'kept');
      assert.equal(response.text, '- groceries');
    } finally {
      await close(server);
    }
  });

  it('calls back once with the error for a missing file', async () => {
    const calls: unknown[] = [];
    const app = webapp();
    app.get('/', (_req: Request, res: Response) =>
      res.download(join(fx.root, 'missing.txt'), (err) => {
        calls.push(err);
        res.statusCode = 410;
        res.end();
      }),
    );
    const server = http.createServer(app);
    const port = await listen(server);
    try {
      assert.equal((await rawRequest(port, '/')).status, 410);
      assert.equal(await eventually(() => calls.length > 0), true);
      assert.equal(calls.length, 1);
      assert.equal((calls[0] as { status: number }).status, 404);
    } finally {
      await close(server);
    }
  });

  it('has the arity of Express (download.length 4, sendFile.length 3)', () => {
    const proto = webapp.response as { download: Download; sendFile: Download; sendfile: Download };
    assert.equal(proto.download.length, 4);
    assert.equal(proto.sendFile.length, 3);
    assert.equal(proto.sendfile.length, 3);
  });
});
