import assert from 'node:assert/strict';
import type http from 'node:http';
import { describe, it } from 'node:test';
import { itWithLiveOracle } from '../support/oracle-recording';
import { errorHandler } from '../../src/middleware/error-handler';
import { assertSameAsConnect, chain, connectApp, rawRequest, requestAll, withServer, type Handler } from './support';

const connect = require('connect');

const fail: Handler = (req, _res, next) => {
  if (req.url === '/404') return next(Object.assign(new Error('Nope <b>'), { status: 404, extra: 'prop' }));
  if (req.url === '/string') return next('plain string');
  if (req.url === '/object') return next({ status: 302 });
  next(new Error('boom'));
};

/** Stacks differ between the two implementations: keep their first line. */
function firstLines(res: { body: string; headers: Record<string, unknown>; status: number }) {
  const headers = { ...res.headers };
  delete headers['content-length'];
  let body = res.body;
  if (String(res.headers['content-type']).startsWith('application/json')) {
    const parsed = JSON.parse(body);
    if (parsed.error.stack) parsed.error.stack = String(parsed.error.stack).split('\n')[0];
    body = JSON.stringify(parsed);
  } else body = body.split('\n')[0];
  return { ...res, headers, body };
}

describe('errorHandler', () => {
  it('text and JSON answers match Connect 2.30', async () => {
    const requests = ['/', '/404', '/string', '/object'].flatMap((path) => [
      { path, headers: { accept: 'application/json' } },
      { path, headers: { accept: 'text/plain' } },
    ]);
    await assertSameAsConnect(
      [fail, connect.errorHandler({ log: false })],
      [fail, errorHandler({ log: false })],
      requests,
      firstLines as never,
    );
  });

  it('HTML page escapes the message and stack, with nosniff', async () => {
    const [res] = await requestAll(
      [fail, errorHandler({ log: false })],
      [{ path: '/404', headers: { accept: 'text/html' } }],
    );
    assert.equal(res.status, 404);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.ok(res.body.includes('Nope &lt;b&gt;'));
    assert.ok(!res.body.includes('<b>'));
    assert.ok(res.body.includes('<h1>Express</h1>'));
  });

  it('logs through a function, and rejects a bad log option', async () => {
    const logged: string[] = [];
    await requestAll([fail, errorHandler({ log: (_err, str) => logged.push(str.split('\n')[0]) })], [{ path: '/' }]);
    for (let i = 0; i < 50 && logged.length === 0; i++) await new Promise((r) => setImmediate(r));
    assert.deepEqual(logged, ['Error: boom']);
    assert.throws(() => errorHandler({ log: 'yes' as never }), /option log must be function or boolean/);
  });

  itWithLiveOracle(
    'closes the connection when the head is already out, as Connect 2.30 does, and keeps serving',
    'a connection the oracle cuts',
    async () => {
      // Half a response cannot become an error page: the client must see it cut short.
      const partial: Handler = (req, res, next) => {
        if (req.url === '/ok') return res.end('fine');
        res.writeHead(200, { 'Content-Length': '100' });
        res.write('partial');
        next(new Error('late failure'));
      };
      const outcome = async (handlers: Handler[], app: (handlers: Handler[]) => http.RequestListener) =>
        withServer(app(handlers), async (port) => {
          const late = await rawRequest(port, { path: '/late' }).then(
            (res) => `answered ${res.status}`,
            // 'aborted' or 'socket hang up', depending on whether the head reached the client first.
            () => 'cut',
          );
          const after = await rawRequest(port, { path: '/ok' });
          return [late, after.status, after.body];
        });
      const theirs = await outcome([partial, connect.errorHandler({ log: false })], connectApp);
      const ours = await outcome([partial, errorHandler({ log: false })], chain);
      assert.deepEqual(ours, theirs);
      assert.deepEqual(ours, ['cut', 200, 'fine']);
    },
  );
});
