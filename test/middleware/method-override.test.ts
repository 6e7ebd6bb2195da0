import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { methodOverride } from '../../src/middleware/method-override';
import { assertSameAsConnect, echo } from './support';

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
