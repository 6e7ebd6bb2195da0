/** res.get(field): the response header, case-insensitively. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { appWith } from './support';

describe('res.get', () => {
  it('reads headers whatever the case, undefined when absent', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        res.set('Content-Type', 'text/x-foo').set('X-List', ['a', 'b']);
        res.json({ type: res.get('content-type'), list: res.get('x-LIST'), none: res.get('X-None') ?? 'undefined' });
      }),
    );
    const res = await request(app).get('/');
    assert.deepEqual(JSON.parse(res.text), { type: 'text/x-foo; charset=utf-8', list: ['a', 'b'], none: 'undefined' });
  });
});
