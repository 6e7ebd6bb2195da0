/** res.append(field, value): adds to a header, creating it; res.set afterwards resets it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { appWith } from './support';

describe('res.append', () => {
  it('creates, then accumulates strings and arrays', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        res.append('Set-Cookie', 'a=1').append('Set-Cookie', ['b=2', 'c=3']).append('Set-Cookie', 'd=4');
        res.append('X-One', 'only');
        res.end();
      }),
    );
    const res = await request(app).get('/');
    assert.deepEqual(res.headers['set-cookie'], ['a=1', 'b=2', 'c=3', 'd=4']);
    assert.equal(res.headers['x-one'], 'only');
  });

  it('is reset by a later res.set', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        res.append('Link', '<a>').append('Link', '<b>').set('Link', '<c>').end();
      }),
    );
    await request(app).get('/').expect('Link', '<c>');
  });

  it('appends to a Content-Type with charset handling through res.set', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        res.append('X-Vals', ['1', '2']).end();
      }),
    );
    await request(app).get('/').expect('X-Vals', '1, 2');
  });
});
