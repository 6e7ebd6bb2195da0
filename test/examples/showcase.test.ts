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

describe('showcase: rendering, negotiation, cookies, bodies', () => {
  it('renders HTML with ejs for browsers and counts visits in a cookie', async () => {
    const first = await fetch(base + '/hello/ada', { headers: { Accept: 'text/html' } });
    assert.equal(first.status, 200);
    assert.match(await first.text(), /<h1>Hello, ada!<\/h1>[\s\S]*visits counted in a cookie: 1\./);
    assert.match(first.headers.get('set-cookie')!, /^visits=1; Max-Age=86400; Path=\/; Expires=.*; HttpOnly; SameSite=Lax$/);
    const second = await fetch(base + '/hello/ada', { headers: { Accept: 'text/html', Cookie: 'visits=1' } });
    assert.match(await second.text(), /visits counted in a cookie: 2\./);
  });

  it('negotiates JSON and text, and parses JSON bodies', async () => {
    const json = await fetch(base + '/hello/ada', { headers: { Accept: 'application/json' } });
    assert.deepEqual(await json.json(), { hello: 'ada', visits: 1 });
    assert.equal(json.headers.get('vary'), 'Accept');
    const text = await fetch(base + '/hello/ada', { headers: { Accept: 'text/plain' } });
    assert.equal(await text.text(), 'Hello, ada! (visit 1)');
    const echo = await fetch(base + '/api/echo', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":[1,2]}' });
    assert.equal(echo.status, 201);
    assert.deepEqual(await echo.json(), { received: { a: [1, 2] } });
  });
});
