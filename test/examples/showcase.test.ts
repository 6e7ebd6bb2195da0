/** `npm start` serves the showcase app: start it as a user would and click through it. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startExample, type RunningExample } from '../support/example-server';

let example: RunningExample;
let base: string;

before(async () => {
  example = await startExample('examples/showcase/server.js');
  base = example.base;
});

after(() => example.stop());

describe('showcase app', () => {
  it('serves the static home page', async () => {
    const res = await fetch(base + '/');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/html/);
    assert.match(await res.text(), /webapp showcase/);
  });

  it('serves JSON from a mounted router with a param loader', async () => {
    const res = await fetch(base + '/api/users/1');
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { id: '1', name: 'Ada' });
  });

  it('turns next(err) and async throws into JSON errors, and 404s unknown paths', async () => {
    assert.equal((await fetch(base + '/api/users/99')).status, 404);
    const boom = await fetch(base + '/boom');
    assert.equal(boom.status, 500);
    assert.deepEqual(await boom.json(), { error: 'async handlers are safe' });
    assert.equal((await fetch(base + '/nowhere')).status, 404);
  });
});
