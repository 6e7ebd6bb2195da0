import assert from 'node:assert/strict';
import { exchange } from '../support/raw-http';
import { describe, it } from 'node:test';
import { methodOverride } from '../../src/middleware/method-override';
import { assertSameAsConnect, chain, echo, withServer } from './support';

const connect = require('connect');

const show = echo((req) => ({ method: req.method, original: req.originalMethod, body: req.body ?? null }));

function withBody(body: unknown) {
  return (req: any, _res: unknown, next: () => void) => {
    if (body !== undefined) req.body = JSON.parse(JSON.stringify(body));
    next();
  };
}

describe('methodOverride', () => {
  const cases: Array<{ body?: unknown; method?: string; headers?: Record<string, string> }> = [
    { body: { _method: 'DELETE', keep: 1 } },
    { body: { _method: 'put' }, method: 'GET' },
    { body: { _method: 'bogus' } },
    { body: { _method: ['patch', 'put'] } },
    { body: { _method: 7 } },
    { body: 'string body' },
    { headers: { 'x-http-method-override': 'PATCH' } },
    { headers: { 'x-http-method-override': 'delete, put' } },
    { headers: { 'x-http-method-override': 'nope' } },
    { body: { _method: 'PUT' }, headers: { 'x-http-method-override': 'DELETE' } },
    { body: { other: 'PUT' } },
    {},
  ];
  for (const [index, c] of cases.entries()) {
    it(`matches Connect 2.30 (case ${index})`, async () => {
      await assertSameAsConnect(
        [withBody(c.body), connect.methodOverride(), show],
        [withBody(c.body), methodOverride(), show],
        [{ method: c.method ?? 'POST', path: '/', headers: c.headers }],
      );
    });
  }

  it('reads a custom key', async () => {
    const [res] = await assertSameAsConnect(
      [withBody({ verb: 'PUT', _method: 'DELETE' }), connect.methodOverride('verb'), show],
      [withBody({ verb: 'PUT', _method: 'DELETE' }), methodOverride('verb'), show],
      [{ method: 'POST', path: '/' }],
    );
    assert.deepEqual(JSON.parse(res.body), { method: 'PUT', original: 'POST', body: { _method: 'DELETE' } });
  });
});

describe('methodOverride to HEAD', () => {
  /** Two requests pipelined on one connection; everything the server wrote until it closed. */
  function pipelined(port: number, first: string): Promise<string> {
    return exchange(port, first + 'GET /next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  }

  it('is refused for a request that is not HEAD: its answer keeps its body, the next response its place', async () => {
    const app = chain([
      withBody({ _method: 'HEAD' }),
      methodOverride(),
      (req: any, res: any) => {
        const body = req.url === '/next' ? 'next answer' : 'answer to ' + req.method;
        res.setHeader('Content-Length', Buffer.byteLength(body));
        res.end(req.method === 'HEAD' ? undefined : body);
      },
    ]);
    await withServer(app, async (port) => {
      for (const override of ['X-HTTP-Method-Override: HEAD\r\n', '']) {
        const text = await pipelined(port, `POST / HTTP/1.1\r\nHost: x\r\n${override}Content-Length: 0\r\n\r\n`);
        const answers = text.split(/(?=HTTP\/1\.1 )/);
        assert.equal(answers.length, 2, text);
        assert.match(answers[0]!, /\r\n\r\nanswer to POST$/);
        assert.match(answers[1]!, /\r\n\r\nnext answer$/);
      }
      // A HEAD request stays one.
      const head = await pipelined(port, 'HEAD / HTTP/1.1\r\nHost: x\r\nX-HTTP-Method-Override: HEAD\r\n\r\n');
      assert.match(head, /^HTTP\/1\.1 200 OK\r\n[^]*Content-Length: 14\r\n[^]*\r\n\r\nHTTP\/1\.1 200 OK/);
    });
  });
});
