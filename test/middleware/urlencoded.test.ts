import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { itWithLiveOracle } from '../support/oracle-recording';
import { urlencoded } from '../../src/middleware/urlencoded';
import { assertSameAsConnect, echo, requestAll } from './support';

const connect = require('connect');

const show = echo((req) => req.body ?? null);
const post = (body: string, type = 'application/x-www-form-urlencoded') => ({
  method: 'POST',
  path: '/',
  headers: { 'content-type': type },
  body,
});

describe('urlencoded (3.x)', () => {
  it('extended parsing by default, like Connect 2.30', async () => {
    await assertSameAsConnect(
      [connect.urlencoded(), show],
      [urlencoded(), show],
      [
        post('a=1&b=2'),
        post('user[name]=tj&user[tags][]=a&user[tags][]=b'),
        post('a=%20x+y'),
        post('a=1', 'text/plain'),
        { path: '/' },
      ],
    );
  });

  it('extended: false gives flat values', async () => {
    await assertSameAsConnect(
      [connect.urlencoded({ extended: false }), show],
      [urlencoded({ extended: false }), show],
      [post('user[name]=tj&a=1&a=2')],
    );
  });

  it('413 over the limit', async () => {
    const [over] = await requestAll([urlencoded({ limit: 10 }), show], [post('a=' + 'x'.repeat(20))]);
    assert.equal(over.status, 413);
  });

  itWithLiveOracle(
    'a 3.x verify gets the body as a string; throwing rejects with 403, as in Connect 2.30',
    'the verify calls',
    async () => {
      const seen: string[] = [];
      const verify = (_req: unknown, _res: unknown, body: string) => {
        seen.push(body);
        if (body.includes('reject')) throw new Error('rejected');
      };
      const requests = [post('a=1&b=%C3%A9'), post('reject=1'), post('c=3')];
      const [ok, rejected, after] = await assertSameAsConnect(
        [connect.urlencoded({ verify }), show],
        [urlencoded({ verify }), show],
        requests,
      );
      assert.equal(Buffer.from(ok.body, 'latin1').toString('utf8'), '{"a":"1","b":"é"}');
      assert.equal(rejected.status, 403);
      assert.equal(rejected.body, 'rejected');
      assert.equal(after.status, 200);
      // Each body was seen as a string by both implementations (Connect's run first).
      assert.deepEqual(seen, ['a=1&b=%C3%A9', 'reject=1', 'c=3', 'a=1&b=%C3%A9', 'reject=1', 'c=3']);
    },
  );
});
