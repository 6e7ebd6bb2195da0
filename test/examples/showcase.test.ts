/** `npm start` serves the notes showcase: start it as a user would and use it over HTTP. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { watchChild } from '../support/child-output';
import { startExample, type RunningExample } from '../support/example-server';
import { sharedSetup } from '../support/shared-setup';
import { Visitor, autofocused, fieldError, flashes, formData, titleOf } from './showcase-client';
import { sqliteAvailable } from './showcase-modules';
import { withoutCoverage } from '../support/without-coverage';

const scratch = mkdtempSync(join(tmpdir(), 'showcase-'));
// A folder the app creates, as it does on a first `npm start`.
const dataDir = join(scratch, 'data');
const env = { DATA_DIR: dataDir, SESSION_SECRET: 'test secret' };
let example: RunningExample;
let base: string;

/** The showcase, started once for the suites below. */
const showcaseStarted = sharedSetup(async () => {
  example = await startExample('examples/showcase/server.js', env);
  base = example.base;
});

after(() => {
  example?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** How many files the attachments folder holds. */
const attachmentFiles = () => readdirSync(join(dataDir, 'attachments')).length;

/** A signed-up, logged-in visitor with a fresh name. */
let visitors = 0;
async function member(): Promise<Visitor> {
  const visitor = new Visitor(base);
  await visitor.signUp(`member${++visitors}`);
  return visitor;
}

describe('showcase: pages, headers and assets', () => {
  before(showcaseStarted);

  it('serves the home page in the layout, with helmet headers and compression', async () => {
    const home = await new Visitor(base).get('/');
    assert.equal(home.status, 200);
    assert.equal(titleOf(home.text), 'Welcome');
    assert.match(home.text, /<header class="bar">[\s\S]*<a href="\/signup">Sign up<\/a>[\s\S]*<footer>/);
    // Pages over compression's 1 KB threshold are gzipped.
    const signup = await new Visitor(base).request('/signup', { headers: { 'Accept-Encoding': 'gzip' } });
    assert.equal(signup.headers.get('content-encoding'), 'gzip');
    assert.match(signup.text, /<h1>Sign up<\/h1>/);
    assert.match(home.headers.get('content-security-policy')!, /default-src 'self'/);
    assert.equal(home.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(home.headers.get('x-powered-by'), null);
  });

  it('names what serves it on the home page: webapp, or express@4 with SHOWCASE_FRAMEWORK=express', async () => {
    const claim = /written with the Express 4 API, served by ([^.<]+)\./;
    assert.equal(claim.exec((await new Visitor(base).get('/')).text)?.[1], 'webapp');
    const dir = mkdtempSync(join(tmpdir(), 'showcase-express-'));
    const onExpress = await startExample('examples/showcase/server.js', {
      SHOWCASE_FRAMEWORK: 'express',
      DATA_DIR: dir,
      SESSION_SECRET: 'x',
    });
    try {
      assert.equal(claim.exec((await new Visitor(onExpress.base).get('/')).text)?.[1], 'express@4');
    } finally {
      onExpress.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('links fingerprinted assets cached for a year; plain names revalidate; a stale fingerprint is a 404', async () => {
    const home = await new Visitor(base).get('/');
    const href = /href="(\/assets\/style\.[0-9a-f]{10}\.css)"/.exec(home.text)![1];
    const fingerprinted = await fetch(base + href);
    assert.equal(fingerprinted.status, 200);
    assert.match(fingerprinted.headers.get('content-type')!, /^text\/css/);
    assert.equal(fingerprinted.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const plain = await fetch(base + '/assets/style.css');
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.get('cache-control'), 'public, max-age=0');
    assert.equal(await plain.text(), await fingerprinted.text());
    assert.equal((await fetch(base + '/assets/style.0000000000.css')).status, 404);
  });

  it('gives a visitor who only reads no session: the home page, HEAD, a 404', async () => {
    // Every answer used to make a CSRF token, which stores a secret in a new session: a
    // crawler or a run of 404s filled the session store with seven-day sessions.
    for (const [path, method] of [
      ['/', 'GET'],
      ['/', 'HEAD'],
      ['/nowhere', 'GET'],
      ['/favicon.ico', 'GET'],
    ]) {
      const visitor = new Visitor(base);
      const page = await visitor.request(path, { method });
      assert.equal(page.headers.get('set-cookie'), null, `${method} ${path}`);
    }
    // A page with a form does start one: its token must be checked against it.
    const login = new Visitor(base);
    await login.get('/login');
    assert.deepEqual(login.cookieNames(), ['showcase.sid']);
  });

  it('answers unknown pages with the 404 page', async () => {
    const page = await new Visitor(base).get('/nowhere');
    assert.equal(page.status, 404);
    assert.equal(titleOf(page.text), 'Not found');
    assert.match(page.text, /There is no page at \/nowhere\./);
  });
});

describe('showcase: accounts', () => {
  before(showcaseStarted);

  it('re-renders sign-up errors next to their fields, keeping the username', async () => {
    const visitor = new Visitor(base);
    const page = await visitor.submit('/signup', '/signup', { username: 'x!', password: 'short', confirm: 'other' });
    assert.equal(page.status, 422);
    assert.equal(fieldError(page.text, 'username'), 'Use 3 to 30 characters.');
    assert.equal(fieldError(page.text, 'password'), 'Use at least 8 characters.');
    assert.equal(fieldError(page.text, 'confirm'), 'The passwords do not match.');
    assert.match(page.text, /name="username" type="text" value="x!"/);
    assert.doesNotMatch(page.text, /value="short"/, 'passwords are never echoed');
  });

  it('puts the keyboard focus on the first field to correct, and only there', async () => {
    const signup = await new Visitor(base).submit('/signup', '/signup', {
      username: 'ok_name',
      password: 'short',
      confirm: 'short',
    });
    assert.equal(signup.status, 422);
    assert.deepEqual([fieldError(signup.text, 'username'), fieldError(signup.text, 'confirm')], [undefined, undefined]);
    assert.deepEqual(autofocused(signup.text), ['password']);
    const all = await new Visitor(base).submit('/signup', '/signup', {
      username: 'x!',
      password: 'short',
      confirm: '',
    });
    assert.deepEqual(autofocused(all.text), ['username']);
    const login = await new Visitor(base).submit('/login', '/login', { username: 'ada', password: '' });
    assert.equal(login.status, 422);
    assert.deepEqual(autofocused(login.text), ['password']);
    const note = await (await member()).upload('/notes/new', '/notes', { title: 'fine', body: 'x'.repeat(5001) });
    assert.equal(note.status, 422);
    assert.deepEqual(autofocused(note.text), ['body']);
    // A form shown for the first time leaves the focus at the start of the page.
    assert.deepEqual(autofocused((await new Visitor(base).get('/signup')).text), []);
  });

  it('tells password managers which field is which: autocomplete on the account forms', async () => {
    const autocomplete = (html: string) =>
      [...html.matchAll(/<input id="(\w+)"[^>]* autocomplete="([^"]+)"/g)].map(([, id, value]) => `${id}: ${value}`);
    const visitor = new Visitor(base);
    assert.deepEqual(autocomplete((await visitor.get('/login')).text), [
      'username: username',
      'password: current-password',
    ]);
    assert.deepEqual(autocomplete((await visitor.get('/signup')).text), [
      'username: username',
      'password: new-password',
      'confirm: new-password',
    ]);
  });

  it('shows the sign-up and login forms again for a form over the 32 kB limit: 422 and a message', async () => {
    const long = 'x'.repeat(40_000);
    const message = 'This is too long: a username has at most 30 characters, a password at most 200.';
    for (const [path, title, fields] of [
      ['/signup', 'Sign up', { username: long, password: 'correct horse', confirm: 'correct horse' }],
      ['/login', 'Log in', { username: long, password: 'correct horse' }],
      ['/login', 'Log in', { username: 'ada', password: long }],
    ] as const) {
      const page = await new Visitor(base).submit(path, path, fields);
      assert.equal(page.status, 422, `${path}: ${page.text.slice(0, 200)}`);
      assert.equal(titleOf(page.text), title);
      assert.equal(fieldError(page.text, 'username'), message);
      assert.deepEqual(autofocused(page.text), ['username']);
      assert.match(page.text, /name="_csrf" value="[^"]+"/, 'the form can be sent again');
    }
    // Under the limit, a long password gets the field's own message.
    const password = await new Visitor(base).submit('/signup', '/signup', {
      username: 'long_password',
      password: 'y'.repeat(201),
      confirm: 'y'.repeat(201),
    });
    assert.equal(fieldError(password.text, 'password'), 'Use at most 200 characters.');
  });

  it('signs up, greets with a flash after the redirect, and refuses a taken name', async () => {
    const visitor = new Visitor(base);
    const signedUp = await visitor.signUp('grace');
    assert.equal(signedUp.location, '/notes');
    assert.deepEqual(visitor.cookieNames(), ['showcase.sid']);
    const notes = await visitor.get('/notes');
    assert.equal(titleOf(notes.text), 'Your notes');
    assert.deepEqual(flashes(notes.text), ['Welcome, grace! Your account is ready.']);
    assert.deepEqual(flashes((await visitor.get('/notes')).text), [], 'a flash is shown once');
    const again = await new Visitor(base).submit('/signup', '/signup', {
      username: 'grace',
      password: 'another one',
      confirm: 'another one',
    });
    assert.equal(again.status, 422);
    assert.equal(fieldError(again.text, 'username'), 'That username is taken.');
  });

  it('a sign-up without the form’s id sent thrice at once: one account, the others told it is taken', async () => {
    // A script's requests: both pass the name check before either creates the account. (A
    // browser's form carries its id: sent twice, each signs in, see showcase-repeats.test.ts.)
    const visitor = new Visitor(base);
    const token = await visitor.csrfToken('/signup');
    const fields = { _csrf: token, username: 'twice', password: 'correct horse', confirm: 'correct horse' };
    const answers = await Promise.all(
      [1, 2, 3].map(() => visitor.request('/signup', { method: 'POST', body: new URLSearchParams(fields) })),
    );
    const statuses = answers.map((page) => page.status).sort();
    assert.equal(statuses.filter((status) => status === 302).length, 1, String(statuses));
    for (const page of answers.filter((answer) => answer.status !== 302)) {
      assert.equal(page.status, 422, page.text);
      assert.equal(fieldError(page.text, 'username'), 'That username is taken.');
    }
  });

  it('logs in with the right password only, and logs out', async () => {
    await new Visitor(base).signUp('linus', 'open sesame');
    const stranger = new Visitor(base);
    const wrong = await stranger.logIn('linus', 'wrong password');
    assert.equal(wrong.location, '/login');
    assert.deepEqual(flashes((await stranger.get('/login')).text), ['Unknown username or wrong password.']);
    const unknown = await stranger.logIn('nobody', 'open sesame');
    assert.equal(unknown.location, '/login');
    const empty = await stranger.submit('/login', '/login', { username: '', password: '' });
    assert.equal(empty.status, 422);
    assert.equal(fieldError(empty.text, 'username'), 'Enter your username.');

    const before = (await stranger.get('/login')).headers.getSetCookie();
    const ok = await stranger.logIn('linus', 'open sesame');
    assert.equal(ok.location, '/notes');
    assert.ok(
      ok.headers.getSetCookie().some((line) => line.startsWith('showcase.sid=')),
      'logging in starts a new session',
    );
    assert.deepEqual(before, []);
    assert.deepEqual(flashes((await stranger.get('/notes')).text), ['Welcome back, linus.']);

    // Signed in, the visitors' pages lead to the notes, and /logout asks for the click.
    for (const path of ['/login', '/signup']) assert.equal((await stranger.get(path)).location, '/notes', path);
    const confirm = await stranger.get('/logout');
    assert.equal(confirm.status, 200);
    assert.equal(titleOf(confirm.text), 'Log out');
    assert.match(confirm.text, /<form method="post" action="\/logout">/);
    assert.equal(confirm.headers.get('set-cookie'), null, 'showing the page logs nobody out');
    assert.equal((await stranger.get('/notes')).status, 200);

    const out = await stranger.submit('/logout', '/logout', {});
    assert.equal(out.location, '/login');
    assert.deepEqual(flashes((await stranger.get('/login')).text), ['You have been logged out.']);
    const refused = await stranger.get('/notes');
    assert.equal(refused.status, 302);
    assert.equal(refused.location, '/login');
    assert.deepEqual(flashes((await stranger.get('/login')).text), ['Please log in to see that page.']);
    assert.equal((await stranger.get('/logout')).location, '/login', 'nobody to log out');
  });

  it('throttles failed logins per username: the eleventh within 15 minutes gets 429', async () => {
    await new Visitor(base).signUp('guessme', 'the real one');
    const guesser = new Visitor(base);
    for (let attempt = 1; attempt <= 10; attempt++) {
      assert.equal((await guesser.logIn('guessme', `guess ${attempt}`)).location, '/login', `attempt ${attempt}`);
    }
    const blocked = await guesser.logIn('guessme', 'the real one');
    assert.equal(blocked.status, 429);
    assert.equal(titleOf(blocked.text), 'Too Many Requests');
    // The time left, as Retry-After says it (showcase-app.test.ts lets time pass first).
    assert.equal(Math.ceil(Number(blocked.headers.get('retry-after')) / 60), 15);
    assert.match(blocked.text, /Too many failed logins\. Try again in 15 minutes\./);
    assert.match(blocked.headers.get('ratelimit-policy')!, /q=10; w=900/);
    // Other accounts, and a successful login, are not held back by it.
    await new Visitor(base).signUp('bystander', 'open sesame');
    assert.equal((await guesser.logIn('bystander', 'open sesame')).location, '/notes');
  });

  it('refuses forms without a valid CSRF token with the 403 page, and keeps serving', async () => {
    const visitor = await member();
    const missing = await visitor.request('/logout', { method: 'POST', body: new URLSearchParams({}) });
    assert.equal(missing.status, 403);
    assert.equal(titleOf(missing.text), 'Forbidden');
    assert.match(missing.text, /This form was open too long, was sent twice, or did not come from this site/);
    const forged = await visitor.request('/notes', {
      method: 'POST',
      body: new URLSearchParams({ _csrf: 'forged-token', title: 'x' }),
    });
    assert.equal(forged.status, 403);
    const multipart = new FormData();
    multipart.set('title', 'no token');
    assert.equal((await visitor.request('/notes', { method: 'POST', body: multipart })).status, 403);
    assert.equal((await visitor.get('/notes')).status, 200, 'still logged in and served');
  });
});

describe('showcase: unknown paths and methods', () => {
  before(showcaseStarted);

  it('answers a path no route has with the 404 page, whatever the method and the body', async () => {
    const signedIn = await member();
    for (const visitor of [new Visitor(base), signedIn]) {
      for (const [method, path] of [
        ['POST', '/nope'],
        ['PUT', '/nope'],
        ['DELETE', '/nope'],
        ['PATCH', '/login'],
        ['POST', '/'],
      ]) {
        const page = await visitor.request(path, { method, body: new URLSearchParams({ title: 'x' }) });
        assert.equal(page.status, 404, `${method} ${path}`);
        assert.equal(titleOf(page.text), 'Not found', `${method} ${path}`);
      }
    }
    // Under /notes, for a signed-in member (visitors are sent to log in first, as for GET).
    const { location } = await signedIn.upload('/notes/new', '/notes', { title: 'mine' });
    for (const path of ['/notes/nope', `${location}/attachment`, `${location}/nope`]) {
      const form = new FormData();
      form.set('title', 'x');
      const page = await signedIn.request(path, { method: 'POST', body: form });
      assert.equal(page.status, 404, `POST ${path}`);
      assert.equal(titleOf(page.text), 'Not found');
    }
  });

  it('answers an API path or method no route has with its JSON 404, signed in or not, whatever the body', async () => {
    for (const visitor of [new Visitor(base), await member()]) {
      for (const [method, path] of [
        ['GET', '/api/nope'],
        ['POST', '/api/nope'],
        ['PUT', '/api/notes'],
        ['DELETE', '/api/notes'],
      ]) {
        const page = await visitor.request(path, { method, body: method === 'GET' ? undefined : 'title=x' });
        assert.equal(page.status, 404, `${method} ${path}`);
        assert.deepEqual(JSON.parse(page.text), {
          error: { status: 404, code: 'not_found', message: `No route ${method} ${path}.` },
        });
      }
    }
  });

  it('keeps the CSRF check on every form route: without the token, the 403 page', async () => {
    // The account forms, for a visitor (signed in, they lead to the notes): shown again with a message.
    for (const [path, title] of [
      ['/signup', 'Sign up'],
      ['/login', 'Log in'],
    ]) {
      const guest = new Visitor(base);
      await guest.get(path);
      for (const body of [new URLSearchParams({ username: 'forged' }), new FormData()]) {
        const page = await guest.request(path, { method: 'POST', body });
        assert.equal(page.status, 403, `POST ${path} (${body.constructor.name})`);
        assert.equal(titleOf(page.text), title);
        assert.deepEqual(flashes(page.text), ['This form had expired. Please send it again.']);
      }
      assert.equal((await guest.get('/notes')).location, '/login', 'no one signed in');
    }
    const visitor = await member();
    const { location: note } = await visitor.upload('/notes/new', '/notes', { title: 'kept' });
    for (const path of ['/logout', '/notes', `${note}/edit`, `${note}/delete`]) {
      for (const body of [new URLSearchParams({ title: 'forged' }), new FormData()]) {
        const page = await visitor.request(path, { method: 'POST', body });
        assert.equal(page.status, 403, `POST ${path} (${body.constructor.name})`);
        assert.equal(titleOf(page.text), 'Forbidden');
        assert.match(page.text, /This form was open too long, was sent twice, or did not come from this site/);
      }
    }
    assert.equal(titleOf((await visitor.get(note!)).text), 'kept', 'nothing changed');
    assert.equal((await visitor.get('/notes')).status, 200, 'still signed in');
  });
});

describe('showcase: notes', () => {
  before(showcaseStarted);

  it('creates a note with an attachment, lists it, downloads the file, edits it and deletes it', async () => {
    const visitor = await member();
    const content = 'first line\nsecond line\n';
    const created = await visitor.upload(
      '/notes/new',
      '/notes',
      { title: 'Shopping', body: 'milk' },
      { name: 'list.txt', type: 'text/plain', content },
    );
    assert.equal(created.status, 302, created.text);
    const notePath = created.location!;
    assert.match(notePath, /^\/notes\/\d+$/);
    const shown = await visitor.get(notePath);
    assert.equal(titleOf(shown.text), 'Shopping');
    assert.deepEqual(flashes(shown.text), ['Note "Shopping" created.']);
    assert.match(shown.text, /Attachment: <a href="\/notes\/\d+\/attachment" download>list\.txt<\/a>/);
    assert.match(
      (await visitor.get('/notes')).text,
      /<a href="\/notes\/\d+"><bdi>Shopping<\/bdi><\/a>\s*<span class="badge"/,
    );

    const download = await visitor.get(notePath + '/attachment');
    assert.equal(download.status, 200);
    // Nothing of a signed-in user's is kept by the browser: Back after logging out shows nothing
    // (but the empty new-note form: see showcase-repeats.test.ts).
    for (const page of [shown, download, await visitor.get('/notes')])
      assert.equal(page.headers.get('cache-control'), 'no-store');
    assert.equal(download.headers.get('content-disposition'), 'attachment; filename="list.txt"');
    assert.match(download.headers.get('content-type')!, /^text\/plain/);
    assert.equal(download.text, content);

    const edited = await visitor.upload(notePath + '/edit', notePath + '/edit', {
      title: 'Groceries',
      body: 'milk, eggs',
    });
    assert.equal(edited.location, notePath);
    const afterEdit = await visitor.get(notePath);
    assert.deepEqual(flashes(afterEdit.text), ['Note "Groceries" saved.']);
    assert.match(afterEdit.text, /milk, eggs/);
    assert.match(afterEdit.text, /list\.txt/, 'an edit without a file keeps the attachment');

    const files = () => readdirSync(join(dataDir, 'attachments')).length;
    const filesBefore = files();
    // Delete leads to a page that asks first; only its form deletes.
    assert.match((await visitor.get(notePath)).text, new RegExp(`<a class="button danger" href="${notePath}/delete">`));
    const asked = await visitor.get(notePath + '/delete');
    assert.equal(asked.status, 200);
    assert.equal(titleOf(asked.text), 'Delete note');
    assert.match(asked.text, /<h1>Delete "<bdi>Groceries<\/bdi>"\?<\/h1>[\s\S]*and its attachment, list\.txt,/);
    assert.equal(asked.headers.get('cache-control'), 'no-store');
    assert.equal((await visitor.get(notePath)).status, 200, 'asking deletes nothing');
    const deleted = await visitor.submit(notePath + '/delete', notePath + '/delete', {});
    assert.equal(deleted.location, '/notes');
    assert.deepEqual(flashes((await visitor.get('/notes')).text), ['Note "Groceries" deleted.']);
    assert.equal((await visitor.get(notePath)).status, 404);
    assert.equal(files(), filesBefore - 1, 'the attachment file is removed with its note');
  });

  it('two edits of one note at once, each with a new file: the file kept is the note’s, no other stays', async () => {
    const visitor = await member();
    const created = await visitor.upload(
      '/notes/new',
      '/notes',
      { title: 'Twice', body: 'b' },
      { name: 'first.txt', type: 'text/plain', content: '1' },
    );
    const notePath = created.location!;
    const filesBefore = attachmentFiles();
    // Two tabs opened the edit form of the same note; each sends a new file.
    const forms = await Promise.all([1, 2].map(() => visitor.hiddenFields(notePath + '/edit')));
    const answers = await Promise.all(
      forms.map((hidden, i) =>
        visitor.request(notePath + '/edit', {
          method: 'POST',
          body: formData(
            { ...hidden, title: 'Twice', body: 'b' },
            { name: `tab${i}.txt`, type: 'text/plain', content: String(i) },
          ),
        }),
      ),
    );
    assert.deepEqual(
      answers.map((page) => page.status),
      [302, 302],
    );
    assert.equal(attachmentFiles(), filesBefore, 'one file per note: the two replaced ones are gone');
    assert.match((await visitor.get(notePath)).text, /tab[01]\.txt/);
  });

  it('a title with a right-to-left override reorders itself only: isolated in sentences, <bdi> on pages', async () => {
    const visitor = await member();
    const title = 'Invoice \u202eabc';
    const created = await visitor.upload('/notes/new', '/notes', { title, body: 'b' });
    const notePath = created.location!;
    const shown = await visitor.get(notePath);
    const isolated = `\u2068${title}\u2069`;
    assert.ok(shown.text.includes(`Note &#34;${isolated}&#34; created.`), 'the flash isolates the title');
    assert.ok(shown.text.includes(`<title>${isolated} · Notes</title>`));
    assert.ok(shown.text.includes(`<h1><bdi>${title}</bdi></h1>`));
    assert.ok((await visitor.get('/notes')).text.includes(`<bdi>${title}</bdi></a>`));
    assert.ok((await visitor.get(notePath + '/delete')).text.includes(`<h1>Delete "<bdi>${title}</bdi>"?</h1>`));
    assert.ok((await visitor.get(notePath + '/edit')).text.includes(`<title>Edit ${isolated} · Notes</title>`));
  });

  it('deleting a note through the API removes its attachment file, as the Delete page does', async () => {
    const visitor = await member();
    const created = await visitor.upload(
      '/notes/new',
      '/notes',
      { title: 'Via API', body: 'b' },
      { name: 'api.txt', type: 'text/plain', content: 'x' },
    );
    const id = created.location!.split('/').pop();
    const filesBefore = attachmentFiles();
    assert.equal((await visitor.api('DELETE', `/api/notes/${id}`)).status, 204);
    assert.equal(attachmentFiles(), filesBefore - 1);
    assert.equal((await visitor.api('DELETE', `/api/notes/${id}`)).status, 404);
  });

  it('creates one note from a form sent several times at once (a double click), with one attachment file', async () => {
    const visitor = await member();
    const fields: Record<string, string> = {
      ...(await visitor.hiddenFields('/notes/new')),
      title: 'Once',
      body: 'only once',
    };
    assert.match(fields.submission, /^[0-9a-f-]{36}$/, 'the form carries its id');
    const file = { name: 'once.txt', type: 'text/plain', content: 'once' };
    const filesBefore = attachmentFiles();
    const answers = await Promise.all(
      [1, 2, 3].map(() => visitor.request('/notes', { method: 'POST', body: formData(fields, file) })),
    );
    assert.deepEqual(
      answers.map((page) => page.status),
      [302, 302, 302],
    );
    const [location] = answers.map((page) => page.location);
    assert.match(location!, /^\/notes\/\d+$/);
    assert.deepEqual(
      answers.map((page) => page.location),
      [location, location, location],
      'each sending leads to the one note',
    );
    assert.equal((await visitor.api('GET', '/api/notes')).json.total, 1);
    assert.equal(attachmentFiles(), filesBefore + 1, 'the repeats leave no copy of the attachment behind');
    assert.deepEqual(flashes((await visitor.get(location!)).text), ['Note "Once" created.'], 'announced once');
  });

  it('answers the same form sent again (after Back) with its note; a new rendering is a new note', async () => {
    const visitor = await member();
    const fields = await visitor.hiddenFields('/notes/new');
    // Rejected first: the form shown again keeps its id, so it is still the one form.
    const rejected = await visitor.request('/notes', { method: 'POST', body: formData({ ...fields, title: '' }) });
    assert.equal(rejected.status, 422);
    assert.match(rejected.text, new RegExp(`name="submission" value="${fields.submission}"`));
    const sent = await visitor.request('/notes', { method: 'POST', body: formData({ ...fields, title: 'Back' }) });
    assert.equal(sent.status, 302);
    assert.deepEqual(flashes((await visitor.get(sent.location!)).text), ['Note "Back" created.']);
    const again = await visitor.request('/notes', { method: 'POST', body: formData({ ...fields, title: 'Back' }) });
    assert.equal(again.location, sent.location);
    assert.deepEqual(flashes((await visitor.get(sent.location!)).text), [], 'nothing new to announce');
    const other = await visitor.upload('/notes/new', '/notes', { title: 'Back' });
    assert.notEqual(other.location, sent.location);
    assert.equal((await visitor.api('GET', '/api/notes')).json.total, 2);
    // Each user's forms are their own: the same id from someone else makes their own note.
    const stranger = await member();
    const theirs = await stranger.upload('/notes/new', '/notes', { title: 'Theirs', submission: fields.submission });
    assert.equal(theirs.status, 302);
    assert.notEqual(theirs.location, sent.location);
    // A damaged id is refused; a form without one (sent by a script) is not guarded.
    const damaged = await visitor.upload('/notes/new', '/notes', { title: 'x', submission: 'not an id' });
    assert.equal(damaged.status, 400);
    assert.match(damaged.text, /This form is damaged\. Reload the page and send it again\./);
    const unguarded = { _csrf: fields._csrf, title: 'Scripted' };
    const first = await visitor.request('/notes', { method: 'POST', body: formData(unguarded) });
    const second = await visitor.request('/notes', { method: 'POST', body: formData(unguarded) });
    assert.notEqual(first.location, second.location);
  });

  it('shows the form again for a text or title over the 1 MB field limit, with the field’s own message', async () => {
    const visitor = await member();
    const filesBefore = attachmentFiles();
    const tooLong = await visitor.upload(
      '/notes/new',
      '/notes',
      { title: 'Kept title', body: 'x'.repeat(1024 * 1024 + 1) },
      { name: 'lost.txt', type: 'text/plain', content: 'after the text' },
    );
    assert.equal(tooLong.status, 422);
    assert.equal(titleOf(tooLong.text), 'New note');
    assert.equal(fieldError(tooLong.text, 'body'), 'Keep the text to 5000 characters at most.');
    assert.equal(fieldError(tooLong.text, 'title'), undefined);
    assert.match(tooLong.text, /name="title" type="text" value="Kept title"/);
    // The over-long text is not given back, not even cut to 5000 characters (routes/notes.js says why).
    assert.match(tooLong.text, /<textarea id="body" name="body" rows="8"[^>]*><\/textarea>/);
    assert.deepEqual(autofocused(tooLong.text), ['body']);
    const longTitle = await visitor.upload('/notes/new', '/notes', { title: 't'.repeat(1024 * 1024 + 1) });
    assert.equal(longTitle.status, 422);
    assert.equal(fieldError(longTitle.text, 'title'), 'Give the note a title of at most 100 characters.');
    // The same on the edit form, whose note is left as it was.
    const { location } = await visitor.upload('/notes/new', '/notes', { title: 'Short', body: 'short' });
    const edit = await visitor.upload(`${location}/edit`, `${location}/edit`, { body: 'x'.repeat(1024 * 1024 + 1) });
    assert.equal(edit.status, 422);
    assert.equal(fieldError(edit.text, 'body'), 'Keep the text to 5000 characters at most.');
    assert.match((await visitor.get(location!)).text, /<div class="text">short<\/div>/);
    // A field no page of the app has is still a form no page sends.
    const stray = await visitor.upload('/notes/new', '/notes', { title: 'x', stray: 's'.repeat(1024 * 1024 + 1) });
    assert.equal(stray.status, 400);
    assert.equal((await visitor.api('GET', '/api/notes')).json.total, 1, 'only the short note was made');
    assert.equal(attachmentFiles(), filesBefore, 'no attachment was kept');
  });

  it('shows bidirectional controls in attachment names as U+FFFD, in the pages and the download', async () => {
    const visitor = await member();
    const name = 'invoice\u202Etxt.exe';
    const created = await visitor.upload(
      '/notes/new',
      '/notes',
      { title: 'Bidi' },
      { name, type: 'text/plain', content: 'x' },
    );
    assert.equal(created.status, 302, created.text);
    const shown = 'invoice\uFFFDtxt.exe';
    for (const path of [created.location!, `${created.location}/edit`, `${created.location}/delete`, '/notes']) {
      const page = await visitor.get(path);
      assert.ok(page.text.includes(shown), path);
      // But for the isolates the app puts around the note's title in its own sentences.
      assert.doesNotMatch(page.text.replaceAll('\u2068Bidi\u2069', 'Bidi'), /\p{Bidi_Control}/u, path);
    }
    const download = await visitor.get(created.location! + '/attachment');
    assert.equal(
      download.headers.get('content-disposition'),
      `attachment; filename="invoice_txt.exe"; filename*=UTF-8''invoice%EF%BF%BDtxt.exe`,
    );
    // The stored name keeps the bytes sent: the API returns it as data.
    const note = await visitor.api('GET', `/api${created.location}`);
    assert.equal(note.json.attachment?.name, name);
  });

  it('keeps an attachment name in UTF-8 and takes Markdown, CSV, JSON and WebP files', async () => {
    const visitor = await member();
    const created = await visitor.upload(
      '/notes/new',
      '/notes',
      { title: 'CV' },
      { name: 'résumé café.md', type: 'text/markdown', content: '# Ada\n' },
    );
    assert.equal(created.status, 302, created.text);
    const shown = await visitor.get(created.location!);
    assert.match(shown.text, /download>résumé café\.md<\/a>/);
    const download = await visitor.get(created.location! + '/attachment');
    // In UTF-8 as RFC 8187 says (Chromium read Express's ISO-8859-1 `filename` as `attachment`),
    // after an ASCII name for a client that does not read `filename*`.
    assert.equal(
      download.headers.get('content-disposition'),
      `attachment; filename="resume cafe.md"; filename*=UTF-8''r%C3%A9sum%C3%A9%20caf%C3%A9.md`,
    );
    assert.equal(download.text, '# Ada\n');
    // Quotes and the characters RFC 8187 does not allow as they are.
    const odd = await visitor.upload(
      '/notes/new',
      '/notes',
      { title: 'Odd' },
      { name: `naïve "it's" (1)*.txt`, type: 'text/plain', content: 'x' },
    );
    assert.equal(
      (await visitor.get(odd.location! + '/attachment')).headers.get('content-disposition'),
      `attachment; filename="naive \\"it's\\" (1)*.txt"; filename*=UTF-8''na%C3%AFve%20%22it%27s%22%20%281%29%2A.txt`,
    );
    for (const [name, type] of [
      ['table.csv', 'text/csv'],
      ['data.json', 'application/json'],
      ['photo.webp', 'image/webp'],
    ]) {
      const page = await visitor.upload('/notes/new', '/notes', { title: name }, { name, type, content: 'x' });
      assert.equal(page.status, 302, `${name}: ${page.text}`);
    }
  });

  it('re-renders note errors next to fields: empty title, oversized or wrong-type attachment', async () => {
    const visitor = await member();
    const empty = await visitor.upload('/notes/new', '/notes', { title: '  ', body: 'kept text' });
    assert.equal(empty.status, 422);
    assert.equal(titleOf(empty.text), 'New note');
    assert.equal(fieldError(empty.text, 'title'), 'Give the note a title of at most 100 characters.');
    assert.match(empty.text, /<textarea id="body" name="body" rows="8">kept text<\/textarea>/);

    const big = await visitor.upload(
      '/notes/new',
      '/notes',
      { title: 'Big' },
      { name: 'big.png', type: 'image/png', content: Buffer.alloc(1024 * 1024 + 1) },
    );
    assert.equal(big.status, 422);
    assert.equal(fieldError(big.text, 'attachment'), 'The attachment must be at most 1 MB.');

    const script = await visitor.upload(
      '/notes/new',
      '/notes',
      { title: 'Script' },
      { name: 'run.sh', type: 'application/x-sh', content: 'echo hi' },
    );
    assert.equal(script.status, 422);
    assert.equal(
      fieldError(script.text, 'attachment'),
      'Attach an image (PNG, JPEG, GIF, WebP), a PDF or a text file (plain, Markdown, CSV, JSON).',
    );

    const twoFiles = new FormData();
    twoFiles.set('_csrf', await visitor.csrfToken('/notes/new'));
    twoFiles.set('title', 'Two files');
    twoFiles.append('attachment', new Blob(['a'], { type: 'text/plain' }), 'a.txt');
    twoFiles.append('attachment', new Blob(['b'], { type: 'text/plain' }), 'b.txt');
    const two = await visitor.request('/notes', { method: 'POST', body: twoFiles });
    assert.equal(two.status, 422);
    assert.equal(fieldError(two.text, 'attachment'), 'Attach one file at most.');
    assert.match((await visitor.get('/notes')).text, /No notes yet\./, 'nothing was created');

    // A body cut short, or without its boundary, is the client's mistake: 400, not 500.
    const token = await visitor.csrfToken('/notes/new');
    for (const [type, body] of [
      ['multipart/form-data; boundary=XX', `--XX\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${token}`],
      ['multipart/form-data', 'title=x'],
    ]) {
      const broken = await visitor.request('/notes', { method: 'POST', headers: { 'Content-Type': type }, body });
      assert.equal(broken.status, 400, type);
      assert.equal(titleOf(broken.text), 'Bad Request');
    }
    assert.deepEqual(
      readdirSync(join(dataDir, 'attachments')).filter((name) => name.endsWith('.tmp')),
      [],
    );
  });

  it('asks for the file again when a form that carried one is sent back: no browser can refill it', async () => {
    const visitor = await member();
    const file = { name: 'café.png', type: 'image/png', content: 'png' };
    const rejected = await visitor.upload('/notes/new', '/notes', { title: '' }, file);
    assert.equal(rejected.status, 422);
    assert.equal(fieldError(rejected.text, 'title'), 'Give the note a title of at most 100 characters.');
    assert.equal(
      fieldError(rejected.text, 'attachment'),
      'Choose the file again (café.png): a form sent back cannot keep it.',
    );
    assert.deepEqual(autofocused(rejected.text), ['title'], 'the field to correct first is still the title');
    // Without a file there is nothing to say; the file's own mistake says its own.
    const noFile = await visitor.upload('/notes/new', '/notes', { title: '' });
    assert.equal(fieldError(noFile.text, 'attachment'), undefined);
    const wrongType = await visitor.upload(
      '/notes/new',
      '/notes',
      { title: '' },
      { ...file, type: 'application/x-sh' },
    );
    assert.match(fieldError(wrongType.text, 'attachment')!, /^Attach an image/);
    // The edit form the same.
    const { location } = await visitor.upload('/notes/new', '/notes', { title: 'Kept' });
    const edit = await visitor.upload(`${location}/edit`, `${location}/edit`, { title: '' }, file);
    assert.equal(edit.status, 422);
    assert.equal(
      fieldError(edit.text, 'attachment'),
      'Choose the file again (café.png): a form sent back cannot keep it.',
    );
  });

  it('counts a line break as one character, as the textarea does: CRLF and CR are stored as LF', async () => {
    const visitor = await member();
    // 4999 characters in the browser's textarea, 6499 as it sends them (CRLF).
    const text = 'x\n'.repeat(1500) + 'y'.repeat(1999);
    const created = await visitor.upload('/notes/new', '/notes', { title: 'Lines', body: text.replace(/\n/g, '\r\n') });
    assert.equal(created.status, 302, fieldError(created.text, 'body'));
    const id = created.location!.split('/').pop();
    assert.equal((await visitor.api('GET', `/api/notes/${id}`)).json.body, text);
    const edited = await visitor.upload(`${created.location}/edit`, `${created.location}/edit`, {
      title: 'Lines',
      body: 'one\rtwo\r\nthree',
    });
    assert.equal(edited.status, 302);
    assert.equal((await visitor.api('GET', `/api/notes/${id}`)).json.body, 'one\ntwo\nthree');
    // Over the limit as the textarea counts it is still refused.
    const over = await visitor.upload('/notes/new', '/notes', { title: 'Over', body: 'x\r\n'.repeat(2500) + 'y' });
    assert.equal(fieldError(over.text, 'body'), 'Keep the text to 5000 characters at most.');
  });

  it('paginates from the query string and rejects a bad page number', async () => {
    const visitor = await member();
    for (let n = 1; n <= 7; n++)
      assert.equal((await visitor.api('POST', '/api/notes', { title: `note ${n}` })).status, 201);
    const first = await visitor.get('/notes');
    assert.deepEqual(
      [...first.text.matchAll(/>(note \d)<\/bdi><\/a>/g)].map((m) => m[1]),
      ['note 7', 'note 6', 'note 5', 'note 4', 'note 3'],
    );
    assert.match(first.text, /Page 1 of 2/);
    const second = await visitor.get('/notes?page=2');
    assert.deepEqual(
      [...second.text.matchAll(/>(note \d)<\/bdi><\/a>/g)].map((m) => m[1]),
      ['note 2', 'note 1'],
    );
    assert.match(second.text, /<a rel="prev" href="\?page=1">/);
    assert.match((await visitor.get('/notes?page=9')).text, /No notes on this page\./);
    for (const bad of ['0', 'abc', '-1', '1e3']) {
      const page = await visitor.get('/notes?page=' + bad);
      assert.equal(page.status, 400, bad);
      assert.match(page.text, /page must be a whole number from 1/);
    }
    // Given twice, the page is an array, each of whose elements passed the check.
    for (const twice of ['/notes?page=1&page=2', '/notes?page[]=2']) {
      const page = await visitor.get(twice);
      assert.equal(page.status, 400, twice);
      assert.match(page.text, /page must be given once/);
    }
    const api = await visitor.api('GET', '/api/notes?page=1&page=2');
    assert.equal(api.status, 422);
    assert.deepEqual(api.json.error?.details, [{ field: 'page', message: 'page must be given once' }]);
  });

  it("hides other users' notes and attachments behind 404s", async () => {
    const owner = await member();
    const created = await owner.upload(
      '/notes/new',
      '/notes',
      { title: 'private' },
      { name: 'a.txt', type: 'text/plain', content: 'secret' },
    );
    const other = await member();
    assert.equal((await other.get(created.location!)).status, 404);
    assert.equal((await other.get(created.location! + '/attachment')).status, 404);
    assert.equal((await other.get('/notes/not-a-number')).status, 404);
  });
});

describe('showcase: JSON API', () => {
  before(showcaseStarted);

  it('has its own error format: 401, 415, 400 for broken JSON, 422 with details, 404', async () => {
    const anonymous = new Visitor(base);
    assert.deepEqual(await anonymous.api('GET', '/api/notes'), {
      status: 401,
      headers: (await anonymous.api('GET', '/api/notes')).headers,
      json: { error: { status: 401, code: 'unauthenticated', message: 'Log in first.' } },
    });
    const visitor = await member();
    const form = await visitor.request('/api/notes', { method: 'POST', body: new URLSearchParams({ title: 'x' }) });
    assert.equal(form.status, 415);
    assert.equal(JSON.parse(form.text).error.code, 'unsupported_media_type');
    const broken = await visitor.request('/api/notes', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"title":',
    });
    assert.equal(broken.status, 400);
    assert.equal(JSON.parse(broken.text).error.code, 'entity_parse_failed');
    const invalid = await visitor.api('POST', '/api/notes', { title: '', body: 7 });
    assert.equal(invalid.status, 422);
    assert.deepEqual(invalid.json.error?.details, [
      { field: 'title', message: 'title must have 1 to 100 characters' },
      { field: 'body', message: 'body must be a string' },
    ]);
    assert.deepEqual((await visitor.api('GET', '/api/notes/999999')).json, {
      error: { status: 404, code: 'not_found', message: 'No note 999999.' },
    });
    assert.equal((await visitor.api('GET', '/api/nothing')).json.error?.message, 'No route GET /api/nothing.');
    assert.equal((await visitor.api('GET', '/api/notes?perPage=500')).status, 422);
  });

  it('answers bodies over the limits with 413, in each error format, and keeps serving', async () => {
    const visitor = await member();
    const big = await visitor.request('/api/notes', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'x', body: 'y'.repeat(40 * 1024) }),
    });
    assert.equal(big.status, 413);
    assert.deepEqual(JSON.parse(big.text), {
      error: { status: 413, code: 'entity_too_large', message: 'request entity too large' },
    });
    // A form no page of the app fills this much (the account forms show themselves again).
    const form = await visitor.request('/logout', {
      method: 'POST',
      body: new URLSearchParams({ _csrf: 'x', padding: 'y'.repeat(40 * 1024) }),
    });
    assert.equal(form.status, 413);
    assert.equal(titleOf(form.text), 'Payload Too Large');
    assert.equal((await visitor.api('GET', '/api/notes')).status, 200);
  });

  it('creates, reads, updates, lists and deletes notes', async () => {
    const visitor = await member();
    const created = await visitor.api('POST', '/api/notes', { title: ' API note ', body: 'from JSON' });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('location'), `/api/notes/${created.json.id}`);
    assert.equal(created.json.title, 'API note');
    assert.equal(created.json.attachment, null);
    const patched = await visitor.api('PATCH', `/api/notes/${created.json.id}`, { body: 'changed' });
    assert.deepEqual([patched.json.title, patched.json.body], ['API note', 'changed']);
    const list = await visitor.api('GET', '/api/notes?perPage=1');
    assert.deepEqual([list.json.page, list.json.perPage, list.json.total, list.json.pages], [1, 1, 1, 1]);
    assert.equal(list.json.notes?.[0]?.body, 'changed');
    assert.equal((await visitor.api('DELETE', `/api/notes/${created.json.id}`)).status, 204);
    assert.equal((await visitor.api('GET', `/api/notes/${created.json.id}`)).status, 404);
  });
});

describe('showcase: storage survives a restart', () => {
  before(showcaseStarted);

  it('keeps accounts and notes in DATA_DIR', async () => {
    const visitor = await member();
    await visitor.api('POST', '/api/notes', { title: 'durable' });
    example.stop();
    example = await startExample('examples/showcase/server.js', env);
    base = example.base;
    const returning = new Visitor(base);
    assert.equal((await returning.logIn(`member${visitors}`)).location, '/notes');
    assert.equal((await returning.api('GET', '/api/notes')).json.notes?.[0]?.title, 'durable');
    // node:sqlite where this Node line has it (the server runs on the same Node as the tests).
    assert.ok(existsSync(join(dataDir, sqliteAvailable() ? 'showcase.sqlite' : 'showcase.json')));
  });
});

describe('showcase: private data', () => {
  before(showcaseStarted);

  it('creates its data folders 0700 and its files 0600: hashes and notes are not for other accounts', async () => {
    const visitor = await member();
    await visitor.upload(
      '/notes/new',
      '/notes',
      { title: 'private' },
      { name: 'a.txt', type: 'text/plain', content: 'x' },
    );
    const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
    assert.equal(mode(dataDir), '700');
    assert.equal(mode(join(dataDir, 'attachments')), '700');
    // node:sqlite where this Node line has it (with its -wal and -shm files), else the JSON file.
    const store = readdirSync(dataDir).filter((name) => name !== 'attachments');
    assert.ok(store.includes(sqliteAvailable() ? 'showcase.sqlite' : 'showcase.json'), store.join());
    for (const name of store) assert.equal(mode(join(dataDir, name)), '600', name);
    const uploads = readdirSync(join(dataDir, 'attachments'));
    assert.ok(uploads.length > 0);
    for (const name of uploads) assert.equal(mode(join(dataDir, 'attachments', name)), '600', name);
  });
});

describe('showcase: shutdown', () => {
  before(showcaseStarted);

  it('drains on SIGTERM and exits with code 0, its data saved', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'showcase-shutdown-'));
    const child = spawn(process.execPath, [join(__dirname, '../../examples/showcase/server.js')], {
      env: withoutCoverage({ ...process.env, PORT: '0', DATA_DIR: dir, SESSION_SECRET: 'x' }),
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const watched = watchChild(child);
      const [, port] = await watched.printed(/localhost:(\d+)/);
      const visitor = new Visitor(`http://127.0.0.1:${port}`);
      await visitor.signUp('leaving');
      child.kill('SIGTERM');
      assert.deepEqual(await watched.exited, [0, null]);
      const restarted = await startExample('examples/showcase/server.js', { DATA_DIR: dir, SESSION_SECRET: 'x' });
      try {
        assert.equal((await new Visitor(restarted.base).logIn('leaving')).location, '/notes');
      } finally {
        restarted.stop();
      }
    } finally {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('showcase: behind an HTTPS proxy (SECURE_COOKIES=1)', () => {
  before(showcaseStarted);

  it('sends the session cookie Secure, and only over what the proxy says is HTTPS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'showcase-secure-'));
    const secure = await startExample('examples/showcase/server.js', {
      DATA_DIR: dir,
      SESSION_SECRET: 'x',
      SECURE_COOKIES: '1',
    });
    try {
      const viaProxy = await fetch(secure.base + '/signup', { headers: { 'X-Forwarded-Proto': 'https' } });
      assert.match(viaProxy.headers.getSetCookie()[0], /^showcase\.sid=.*; Secure; SameSite=Lax$/);
      assert.match(viaProxy.headers.get('strict-transport-security')!, /max-age=/);
      const plain = await fetch(secure.base + '/signup');
      assert.equal(plain.status, 200);
      assert.deepEqual(plain.headers.getSetCookie(), []);
    } finally {
      secure.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
