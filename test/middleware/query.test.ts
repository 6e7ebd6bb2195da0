import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { query } from '../../src/middleware/query';
import { assertSameAsConnect, echo, requestAll } from './support';

const connect = require('connect');

const show = echo((req) => req.query);

describe('query', () => {
  it('matches Connect 2.30', async () => {
    const paths = [
      '/',
      '/?',
      '/?a=1&b=2',
      '/?a[]=1&a[]=2',
      '/?user[name]=tj&user[age]=3',
      '/?a.b=1',
      '/?a=%20x&a=y',
      '/p?x=%E0%A4%A',
      '/?=v&k=',
      '/?a[20]=1',
      '/?a[1]=x&a[20]=y',
      '/?a[21]=1',
    ];
    await assertSameAsConnect(
      [connect.query(), show],
      [query(), show],
      paths.map((path) => ({ path })),
    );
  });

  it('keeps a query set earlier', async () => {
    const preset = (req: any, _res: unknown, next: () => void) => {
      req.query = { preset: true };
      next();
    };
    await assertSameAsConnect([preset, connect.query(), show], [preset, query(), show], [{ path: '/?a=1' }]);
  });

  it('does not let keys shadow Object.prototype (security fix)', async () => {
    const probe = echo((req) => ({ own: typeof req.query.hasOwnProperty, polluted: ({} as any).x ?? null }));
    const [res] = await requestAll([query(), probe], [{ path: '/?hasOwnProperty=1&__proto__[x]=1' }]);
    assert.deepEqual(JSON.parse(res.body), { own: 'function', polluted: null });
  });
});
