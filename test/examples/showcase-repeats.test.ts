/**
 * The showcase's forms as browsers send them besides once per page: again after Back, twice
 * for a double click (the second request carrying the cookies the first had, its answer
 * not yet in), or long after the page was shown. Each must end as its first sending did,
 * and no page the session shapes may be kept for Back. The browser side of the same is in
 * test/e2e/showcase.e2e.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startExample, type RunningExample } from '../support/example-server';
import { Visitor, fieldError, flashes, titleOf } from './showcase-client';

const scratch = mkdtempSync(join(tmpdir(), 'showcase-repeats-'));
let example: RunningExample;
let base: string;

before(async () => {
  example = await startExample('examples/showcase/server.js', { DATA_DIR: scratch, SESSION_SECRET: 'test secret' });
  base = example.base;
});

after(() => {
  example?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

let visitors = 0;
async function member(): Promise<Visitor> {
  const visitor = new Visitor(base);
  await visitor.signUp(`repeat${++visitors}`);
  return visitor;
}

/** The fields of the sign-up form at /signup, filled in for `username`. */
async function signupFields(
  visitor: Visitor,
  username: string,
  password = 'correct horse',
): Promise<Record<string, string>> {
  return { ...(await visitor.hiddenFields('/signup')), username, password, confirm: password };
}

const post = (visitor: Visitor, path: string, fields: Record<string, string>) =>
  visitor.request(path, { method: 'POST', body: new URLSearchParams(fields) });

describe('showcase: what the browser may keep for Back', () => {
  it('sends no-store with every page and redirect of the session: Back asks the server again', async () => {
    const visitor = new Visitor(base);
    const signedIn = await member();
    const pages = [
      await visitor.get('/'),
      await visitor.get('/login'),
      await visitor.get('/signup'),
      await visitor.get('/nowhere'),
      await visitor.get('/notes'), // the redirect to the login page, with the flash it sets
      await post(visitor, '/login', { _csrf: 'expired' }), // the login form again
      await signedIn.get('/notes'),
      await signedIn.get('/logout'),
      await post(signedIn, '/logout', {}), // the 403 page
    ];
    assert.deepEqual(
      pages.map((page) => [page.status, page.headers.get('cache-control')]),
      [200, 200, 200, 404, 302, 403, 200, 200, 403].map((status) => [status, 'no-store']),
    );
  });

  it('lets the browser keep the new-note form, for Back to show it with its id; a visit asks again', async () => {
    const visitor = await member();
    const form = await visitor.get('/notes/new');
    assert.equal(form.headers.get('cache-control'), 'private, no-cache');
    // Asked again (a link, a reload: no-cache), the server gives a new form.
    const again = await visitor.request('/notes/new', { headers: { 'If-None-Match': form.headers.get('etag')! } });
    assert.equal(again.status, 200);
    assert.notEqual(
      /name="submission" value="([^"]+)"/.exec(again.text)![1],
      /name="submission" value="([^"]+)"/.exec(form.text)![1],
    );
  });
});

describe('showcase: a sign-up form sent twice', () => {
  it('signs in to the account its first sending made, each of three sent at once', async () => {
    const visitor = new Visitor(base);
    const fields = await signupFields(visitor, 'thrice');
    assert.match(fields.submission, /^[0-9a-f-]{36}$/, 'the form carries its id');
    const clicks = [1, 2, 3].map(() => visitor.copy());
    const answers = await Promise.all(clicks.map((click) => post(click, '/signup', fields)));
    assert.deepEqual(
      answers.map((page) => [page.status, page.location]),
      [
        [302, '/notes'],
        [302, '/notes'],
        [302, '/notes'],
      ],
    );
    for (const click of clicks) {
      const notes = await click.get('/notes');
      assert.equal(notes.status, 200, 'signed in');
      assert.deepEqual(flashes(notes.text), ['Welcome, thrice! Your account is ready.']);
    }
  });

  it('the same form sent after the account was made: signed in and welcomed, not told the name is taken', async () => {
    // What the server sees of a second click that came while the first was hashing the
    // password (the first one's session is gone only once it signs in).
    const first = new Visitor(base);
    const fields = await signupFields(first, 'double');
    assert.equal((await post(first, '/signup', fields)).location, '/notes');
    const second = new Visitor(base);
    const repeat = { ...fields, _csrf: (await second.hiddenFields('/signup'))._csrf };
    const answer = await post(second, '/signup', repeat);
    assert.equal(answer.status, 302, answer.text);
    assert.equal(answer.location, '/notes');
    const notes = await second.get('/notes');
    assert.match(notes.text, /Signed in as <strong>double<\/strong>/);
    assert.deepEqual(flashes(notes.text), ['Welcome, double! Your account is ready.']);
  });

  it('sent again with the first sending’s cookie after it signed in: signed in and welcomed', async () => {
    // A double click on a real network: the second request leaves before the first one's
    // answer (and the new session's cookie) is back, and reaches the server after the
    // first signed in, which replaced the session its form's token belongs to.
    const first = new Visitor(base);
    const fields = await signupFields(first, 'late_double');
    const second = first.copy();
    const holder = first.copy();
    assert.equal((await post(first, '/signup', fields)).location, '/notes');
    const answer = await post(second, '/signup', fields);
    assert.equal(answer.status, 302, answer.text);
    assert.equal(answer.location, '/notes');
    const notes = await second.get('/notes');
    assert.match(notes.text, /Signed in as <strong>late_double<\/strong>/);
    assert.deepEqual(flashes(notes.text), ['Welcome, late_double! Your account is ready.']);
    // The session both came with is signed out: its cookie alone opens nothing.
    assert.equal((await holder.get('/notes')).location, '/login');
  });

  it('is still "taken" for another form, and for the same form with another password', async () => {
    const first = new Visitor(base);
    const fields = await signupFields(first, 'only_once', 'first password');
    assert.equal((await post(first, '/signup', fields)).location, '/notes');
    const others: Record<string, string>[] = [
      { password: 'guess one', confirm: 'guess one' },
      { submission: '' },
      { submission: '00000000-0000-4000-8000-000000000000' },
    ];
    for (const changes of others) {
      const other = new Visitor(base);
      const page = await post(other, '/signup', {
        ...fields,
        _csrf: (await other.hiddenFields('/signup'))._csrf,
        ...changes,
      });
      assert.equal(page.status, 422, JSON.stringify(changes));
      assert.equal(fieldError(page.text, 'username'), 'That username is taken.');
      assert.equal((await other.get('/notes')).location, '/login', 'not signed in');
    }
  });
});

describe('showcase: forms sent once signed in, or long after', () => {
  it('sends a sign-up or login form sent once signed in to the notes (its token is the old session’s)', async () => {
    const browser = new Visitor(base);
    await browser.signUp('slow_click');
    await browser.get('/notes');
    await browser.submit('/logout', '/logout', {});
    const login = { ...(await browser.hiddenFields('/login')), username: 'slow_click', password: 'correct horse' };
    assert.equal((await post(browser, '/login', login)).location, '/notes');
    // The same form again, the first answer's cookie set: not the 403 page.
    const again = await post(browser, '/login', login);
    assert.equal(again.status, 302);
    assert.equal(again.location, '/notes');
    const signup = await post(browser, '/signup', { username: 'x', password: 'y', confirm: 'y' });
    assert.equal(signup.location, '/notes');
  });

  it('a login form sent again with the first sending’s cookie after it signed in: signed in', async () => {
    const browser = new Visitor(base);
    await browser.signUp('late_login');
    await browser.submit('/logout', '/logout', {});
    const login = { ...(await browser.hiddenFields('/login')), username: 'late_login', password: 'correct horse' };
    const second = browser.copy();
    assert.equal((await post(browser, '/login', login)).location, '/notes');
    const again = await post(second, '/login', login);
    assert.equal(again.status, 302, again.text);
    assert.equal(again.location, '/notes');
    const notes = await second.get('/notes');
    assert.match(notes.text, /Signed in as <strong>late_login<\/strong>/);
    assert.deepEqual(flashes(notes.text), ['Welcome back, late_login.']);
  });

  it('shows an expired login or sign-up form again, fresh, with a message: still a 403, nothing done', async () => {
    for (const [path, title] of [
      ['/login', 'Log in'],
      ['/signup', 'Sign up'],
    ]) {
      const visitor = new Visitor(base);
      await visitor.get(path);
      // A token the session does not know, as after a restart of the server.
      const page = await post(visitor, path, { _csrf: 'expired', username: 'ada', password: 'x', confirm: 'x' });
      assert.equal(page.status, 403, path);
      assert.equal(titleOf(page.text), title);
      assert.deepEqual(flashes(page.text), ['This form had expired. Please send it again.']);
      assert.match(page.text, /name="username" type="text" value="ada"/);
      // Its new token works.
      const fields = {
        ...(await visitor.hiddenFields(path)),
        username: `fresh_${title.length}`,
        password: 'correct horse',
      };
      const sent = await post(visitor, path, { ...fields, confirm: 'correct horse' });
      assert.notEqual(sent.status, 403, path);
    }
  });

  it('answers a form from another site (no cookie: SameSite=Lax) with the 403 page, starting no session', async () => {
    for (const path of ['/login', '/signup']) {
      const page = await post(new Visitor(base), path, { username: 'ada', password: 'x' });
      assert.equal(page.status, 403, path);
      assert.equal(titleOf(page.text), 'Forbidden');
      assert.deepEqual(page.headers.getSetCookie(), [], `${path}: the visitor's own cookie stays`);
    }
  });
});

describe('showcase: Log out clicked twice', () => {
  it('ends the second click on the login page with its message, not the 403 page', async () => {
    const browser = await member();
    const fields = await browser.hiddenFields('/logout');
    const secondClick = browser.copy();
    assert.equal((await post(browser, '/logout', fields)).location, '/login');
    const second = await post(secondClick, '/logout', fields);
    assert.equal(second.status, 302, second.text);
    assert.equal(second.location, '/login');
    const login = await secondClick.get('/login');
    assert.equal(titleOf(login.text), 'Log in');
    assert.deepEqual(flashes(login.text), ['You have been logged out.']);
    assert.equal((await secondClick.get('/notes')).location, '/login', 'logged out');
  });

  it('tells it once when the second click brings the first answer’s cookie', async () => {
    const browser = await member();
    const fields = await browser.hiddenFields('/logout');
    await post(browser, '/logout', fields);
    assert.equal((await post(browser, '/logout', fields)).location, '/login');
    assert.deepEqual(flashes((await browser.get('/login')).text), ['You have been logged out.']);
  });

  it('starts no session for a logout from another site: no cookie comes with it', async () => {
    const page = await post(new Visitor(base), '/logout', {});
    assert.equal(page.location, '/login');
    assert.deepEqual(page.headers.getSetCookie(), []);
  });
});

describe('showcase: Delete clicked twice', () => {
  it('ends the second click on the list with "deleted", not the 404 page', async () => {
    const browser = await member();
    const { location: note } = await browser.upload(
      '/notes/new',
      '/notes',
      { title: 'Twice' },
      { name: 'a.txt', type: 'text/plain', content: 'a' },
    );
    const fields = await browser.hiddenFields(`${note}/delete`);
    assert.equal((await post(browser, `${note}/delete`, fields)).location, '/notes');
    const second = await post(browser, `${note}/delete`, fields);
    assert.equal(second.status, 302, second.text);
    assert.equal(second.location, '/notes');
    assert.deepEqual(flashes((await browser.get('/notes')).text), ['Note "Twice" deleted.'], 'told once');
    // Gone all the same, for every other page, and for anyone else it is no note of theirs.
    assert.equal((await browser.get(note!)).status, 404);
    const stranger = await member();
    const theirs = await post(stranger, `${note}/delete`, await stranger.hiddenFields('/notes/new'));
    assert.equal(theirs.status, 404);
    assert.equal((await post(browser, '/notes/999999/delete', fields)).status, 404);
  });

  it('answers each of three sent at once with the list', async () => {
    const browser = await member();
    const { location: note } = await browser.upload('/notes/new', '/notes', { title: 'Thrice' });
    const fields = await browser.hiddenFields(`${note}/delete`);
    const answers = await Promise.all([1, 2, 3].map(() => post(browser, `${note}/delete`, fields)));
    assert.deepEqual(
      answers.map((page) => page.location),
      ['/notes', '/notes', '/notes'],
    );
    assert.deepEqual(flashes((await browser.get('/notes')).text), ['Note "Thrice" deleted.']);
    assert.equal((await browser.api('GET', '/api/notes')).json.total, 0);
  });
});
