/** The legacy 3.x example runs unchanged on webapp/v3. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startExample, type RunningExample } from '../support/example-server';

let example: RunningExample;
let base: string;

before(async () => {
  example = await startExample('examples/legacy-v3/server.js', { RUNTIME_ENV: 'development', NO_DEPRECATION: 'webapp' });
  base = example.base;
});

after(() => example.stop());

describe('legacy 3.x example', () => {
  it('renders with app.locals and configure()d settings', async () => {
    const res = await fetch(base + '/');
    assert.equal(res.status, 200);
    assert.equal(await res.text(), '<h1>Legacy 3.x app</h1><p>Example Corp</p>');
  });

  it('answers status-first res.json with json spaces from configure(development)', async () => {
    const res = await fetch(base + '/items/5', { headers: { Accept: 'application/json' } });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), '{\n  "id": 5,\n  "accepted": [\n    "application/json"\n  ]\n}');
  });

  it('param next("route"), relative redirects, res.send(204) and the fallback after app.router', async () => {
    const bad = await fetch(base + '/items/x');
    assert.equal(bad.status, 400);
    assert.equal(await bad.text(), 'item ids are numbers');
    const old = await fetch(base + '/old', { redirect: 'manual' });
    assert.equal(old.status, 302);
    assert.equal(old.headers.get('location'), '/items/1');
    assert.equal((await fetch(base + '/status')).status, 204);
    const missing = await fetch(base + '/nope');
    assert.equal(missing.status, 404);
    assert.equal(await missing.text(), 'Nothing at /nope');
  });
});
