import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { json } from '../../src/middleware/json';
import { assertSameAsConnect, echo, requestAll } from './support';

const connect = require('connect');

const show = echo((req) => req.body ?? null);
const post = (body: string, type = 'application/json') => ({
  method: 'POST',
  path: '/',
  headers: { 'content-type': type },
  body,
});

describe('json (3.x)', () => {
  it('matches Connect 2.30 on good bodies and the default types', async () => {
    await assertSameAsConnect(
      [connect.json(), show],
      [json(), show],
      [
        post('{"a":1}'),
        post('[1,2]'),
        post('{"a":1}', 'application/vnd.api+json'),
        post('{"a":1}', 'text/plain'),
        { path: '/' },
      ],
    );
  });

  it('limit 1mb by default, 413 above it', async () => {
    const big = JSON.stringify({ s: 'x'.repeat(1024 * 1024) });
    const [over, under] = await requestAll(
      [json(), show],
      [post(big), post(JSON.stringify({ s: 'x'.repeat(500 * 1024) }))],
    );
    assert.equal(over.status, 413);
    assert.equal(under.status, 200);
  });

  it('400 on malformed JSON and on non-objects in strict mode', async () => {
    const [bad, primitive] = await requestAll([json(), show], [post('{nope'), post('"str"')]);
    assert.equal(bad.status, 400);
    assert.equal(primitive.status, 400);
  });

  it('strict mode: a top-level primitive is a 400 "invalid json", as Connect 2.30 answers', async () => {
    const primitives = ['"str"', '1', 'true', ' null', '\n\t-2.5', '"{"'];
    const answers = await assertSameAsConnect(
      [connect.json(), show],
      [json(), show],
      [...primitives.map((body) => post(body)), post('{"a":1}')],
    );
    for (const res of answers.slice(0, -1)) assert.deepEqual([res.status, res.body], [400, 'invalid json']);
    // strict: false lets primitives through, on both.
    await assertSameAsConnect(
      [connect.json({ strict: false }), show],
      [json({ strict: false }), show],
      primitives.map((body) => post(body)),
    );
  });

  it('a 3.x verify gets the body as a string; throwing rejects with 403', async () => {
    const seen: string[] = [];
    const verify = (_req: unknown, _res: unknown, body: string) => {
      seen.push(body);
      if (body.includes('reject')) throw new Error('rejected');
    };
    const [ok, rejected] = await requestAll([json({ verify }), show], [post('{"a":1}'), post('{"reject":1}')]);
    assert.equal(ok.status, 200);
    assert.equal(rejected.status, 403);
    assert.deepEqual(seen, ['{"a":1}', '{"reject":1}']);
  });
});
