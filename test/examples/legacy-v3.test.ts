/** The legacy 3.x example runs unchanged on webapp/v3. */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startExample, type RunningExample } from '../support/example-server';

let example: RunningExample;
let base: string;
// The example's temporary folder, to see that no upload is left in it.
const scratch = mkdtempSync(join(tmpdir(), 'legacy-v3-example-'));

describe('legacy 3.x example', () => {
  before(async () => {
    example = await startExample('examples/legacy-v3/server.js', {
      RUNTIME_ENV: 'development',
      NO_DEPRECATION: 'webapp',
      TMPDIR: scratch,
    });
    base = example.base;
  });
  after(() => {
    example.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

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
    // The path is the client's: the fallback's page is plain text, never markup.
    const markup = await fetch(base + '/%3Cscript%3Ealert(1)%3C/script%3E');
    assert.equal(markup.status, 404);
    assert.match(markup.headers.get('content-type')!, /^text\/plain/);
  });

  it('takes no upload: a multipart body to any path leaves no file behind', async () => {
    const form = new FormData();
    form.set('file', new Blob(['x'.repeat(100_000)]), 'big.bin');
    for (const path of ['/notes', '/nope', '/']) {
      const res = await fetch(base + path, { method: 'POST', body: form });
      assert.ok([403, 404].includes(res.status), `${path}: ${res.status}`);
      await res.arrayBuffer();
    }
    assert.deepEqual(readdirSync(scratch), []);
  });

  it('runs the bundled middleware stack: session cookie, csrf-protected form, json and urlencoded', async () => {
    const page = await fetch(base + '/notes');
    assert.equal(page.status, 200);
    const cookie = (page.headers.getSetCookie() ?? []).map((c) => c.split(';')[0]).join('; ');
    const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
    assert.ok(cookie.includes('connect.sid=') && token);

    const forged = await fetch(base + '/notes', {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'note=hi',
    });
    assert.equal(forged.status, 403);

    const posted = await fetch(base + '/notes', {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `_csrf=${encodeURIComponent(token!)}&note=hello`,
    });
    assert.equal(posted.status, 302);
    const next = (posted.headers.getSetCookie() ?? []).map((c) => c.split(';')[0]).join('; ') || cookie;
    const after = await fetch(base + '/notes', { headers: { cookie: next } });
    assert.match(await after.text(), /<li>hello<\/li>/);

    // A note is one text field: repeated or bracketed it is a 400, not a 500 or "[object Object]".
    for (const body of ['note=a&note=b', 'note[toString]=x', 'note[a]=1']) {
      const odd = await fetch(base + '/notes', {
        method: 'POST',
        headers: { cookie: next, 'content-type': 'application/x-www-form-urlencoded' },
        body: `_csrf=${encodeURIComponent(token!)}&${body}`,
      });
      assert.equal(odd.status, 400, body);
      assert.equal(await odd.text(), 'a note is one text field');
    }
  });
});
