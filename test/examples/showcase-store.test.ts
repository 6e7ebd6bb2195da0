/**
 * The showcase's two embedded stores keep one contract: the JSON file (every Node line)
 * and node:sqlite (the lines that have it). On a Node without node:sqlite, the sqlite
 * half runs in a newer Node from npm's cache.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

import { openStore, sqliteAvailable } from './showcase-modules';

const scratch = mkdtempSync(join(tmpdir(), 'showcase-store-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(scratch, String(++dirs));

const kinds = sqliteAvailable() ? ['json', 'sqlite'] : ['json'];

for (const kind of kinds) {
  describe(`showcase ${kind} store`, () => {
    it('creates and finds users; a taken username is refused', async () => {
      const store = openStore(freshDir(), kind);
      const ada = await store.users.create({ username: 'ada', passwordHash: 'h1' });
      assert.equal(ada.id, 1);
      assert.equal((await store.users.findByUsername('ada'))?.passwordHash, 'h1');
      assert.equal((await store.users.findById(ada.id))?.username, 'ada');
      assert.equal(await store.users.findById(99), undefined);
      await assert.rejects(store.users.create({ username: 'ada', passwordHash: 'h2' }), { code: 'USERNAME_TAKEN' });
      store.close();
    });

    it('keeps the id of the sign-up form that made an account', async () => {
      const dir = freshDir();
      const store = openStore(dir, kind);
      assert.equal(
        (await store.users.create({ username: 'ada', passwordHash: 'x', submission: 'form-1' })).submission,
        'form-1',
      );
      assert.equal((await store.users.create({ username: 'bob', passwordHash: 'x' })).submission, null);
      store.close();
      const reopened = openStore(dir, kind);
      assert.equal((await reopened.users.findByUsername('ada'))?.submission, 'form-1');
      assert.equal((await reopened.users.findById(2))?.submission, null);
      reopened.close();
    });

    it('pages notes newest first, per user, and updates and removes only the owner’s', async () => {
      const store = openStore(freshDir(), kind);
      const [one, two] = [
        await store.users.create({ username: 'one', passwordHash: 'x' }),
        await store.users.create({ username: 'two', passwordHash: 'x' }),
      ];
      for (let n = 1; n <= 5; n++) await store.notes.create(one.id, { title: `t${n}`, body: '' });
      const theirs = await store.notes.create(two.id, {
        title: 'theirs',
        body: 'b',
        attachment: { storedName: 's', originalName: 'a.txt', mimeType: 'text/plain', size: 1 },
      });
      const page = await store.notes.list(one.id, { offset: 1, limit: 2 });
      assert.deepEqual(
        page.items.map((note: { title: string }) => note.title),
        ['t4', 't3'],
      );
      assert.equal(page.total, 5);
      assert.equal(await store.notes.get(one.id, theirs.id), undefined);
      assert.equal(await store.notes.update(one.id, theirs.id, { title: 'stolen' }), undefined);
      assert.equal(await store.notes.remove(one.id, theirs.id), undefined);
      const updated = (await store.notes.update(two.id, theirs.id, { title: 'renamed', body: undefined }))!;
      assert.deepEqual(
        [updated.note.title, updated.note.body, updated.note.attachment?.originalName, updated.replaced],
        ['renamed', 'b', 'a.txt', null],
      );
      const file = { storedName: 't', originalName: 'b.txt', mimeType: 'text/plain', size: 2 };
      const swapped = (await store.notes.update(two.id, theirs.id, { attachment: file }))!;
      assert.deepEqual([swapped.note.attachment, swapped.replaced?.originalName], [file, 'a.txt']);
      assert.equal((await store.notes.remove(two.id, theirs.id))?.title, 'renamed');
      assert.equal((await store.notes.list(two.id, { offset: 0, limit: 10 })).total, 0);
      store.close();
    });

    it('makes one note per form: a second from the same submission is refused, per user', async () => {
      const store = openStore(freshDir(), kind);
      const one = await store.users.create({ username: 'one', passwordHash: 'x' });
      const two = await store.users.create({ username: 'two', passwordHash: 'x' });
      const made = await store.notes.create(one.id, { title: 'first', body: '', submission: 'form-1' });
      assert.equal(made.submission, 'form-1');
      assert.equal((await store.notes.findBySubmission(one.id, 'form-1'))?.id, made.id);
      await assert.rejects(store.notes.create(one.id, { title: 'again', body: '', submission: 'form-1' }), {
        code: 'SUBMISSION_TAKEN',
      });
      assert.equal(await store.notes.findBySubmission(two.id, 'form-1'), undefined, "another user's form");
      assert.equal(
        (await store.notes.create(two.id, { title: 'theirs', body: '', submission: 'form-1' })).userId,
        two.id,
      );
      // Notes without a form (the API's) never stand in each other's way.
      await store.notes.create(one.id, { title: 'api 1', body: '' });
      await store.notes.create(one.id, { title: 'api 2', body: '' });
      assert.deepEqual(
        (await store.notes.list(one.id, { offset: 0, limit: 10 })).items.map((note) => [note.title, note.submission]),
        [
          ['api 2', null],
          ['api 1', null],
          ['first', 'form-1'],
        ],
      );
      // The claim is the note: deleted, its form may make one again.
      await store.notes.remove(one.id, made.id);
      assert.equal(await store.notes.findBySubmission(one.id, 'form-1'), undefined);
      await store.notes.create(one.id, { title: 'remade', body: '', submission: 'form-1' });
      store.close();
    });

    it('creates its folder 0700 and its files 0600: only the account that runs the app reads them', async () => {
      const dir = join(freshDir(), 'data');
      const store = openStore(dir, kind);
      const user = await store.users.create({ username: 'private', passwordHash: 'hash' });
      await store.notes.create(user.id, { title: 'mine', body: '' });
      const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
      assert.equal(mode(dir), '700');
      const files = readdirSync(dir);
      // With sqlite, the database and its -wal and -shm files.
      assert.ok(files.includes(kind === 'sqlite' ? 'showcase.sqlite' : 'showcase.json'), files.join());
      for (const name of files) assert.equal(mode(join(dir, name)), '600', name);
      store.close();
    });

    it('keeps everything across a reopen', async () => {
      const dir = freshDir();
      const first = openStore(dir, kind);
      const user = await first.users.create({ username: 'kept', passwordHash: 'x' });
      await first.notes.create(user.id, { title: 'still here', body: '' });
      first.close();
      const second = openStore(dir, kind);
      assert.equal((await second.notes.list(user.id, { offset: 0, limit: 1 })).items[0].title, 'still here');
      assert.equal((await second.users.create({ username: 'next', passwordHash: 'x' })).id, user.id + 1);
      second.close();
    });

    it('never gives an id again: the note after a removed newest one has a new id, after a reopen too', async () => {
      // SQLite without AUTOINCREMENT gave the removed note's id to the next: a Delete form
      // sent twice, or a DELETE retried, then removed that new note.
      const dir = freshDir();
      const store = openStore(dir, kind);
      const user = await store.users.create({ username: 'ada', passwordHash: 'x' });
      const first = await store.notes.create(user.id, { title: 'first', body: '' });
      await store.notes.remove(user.id, first.id);
      const second = await store.notes.create(user.id, { title: 'second', body: '' });
      assert.equal(second.id, first.id + 1);
      await store.notes.remove(user.id, second.id);
      store.close();
      const reopened = openStore(dir, kind);
      assert.equal((await reopened.notes.create(user.id, { title: 'third', body: '' })).id, second.id + 1);
      assert.equal(await reopened.notes.remove(user.id, second.id), undefined);
      reopened.close();
    });
  });
}

describe(
  'showcase sqlite store: the data a JSON store left (Node 20, then a line with node:sqlite)',
  {
    skip: !sqliteAvailable(),
  },
  () => {
    it('takes the users and notes over with their ids, and counts on where the JSON store left off', async () => {
      // The default store changes with the Node line: upgraded from Node 20, the app opened
      // an empty database beside the JSON file, and every account and note was gone.
      const dir = freshDir();
      const json = openStore(dir, 'json');
      const ada = await json.users.create({ username: 'ada', passwordHash: 'h', submission: 'signup-1' });
      const attachment = { storedName: 's', originalName: 'a.txt', mimeType: 'text/plain', size: 1 };
      const kept = await json.notes.create(ada.id, { title: 'kept', body: 'b', attachment, submission: 'form-1' });
      const removed = await json.notes.create(ada.id, { title: 'removed', body: '' });
      await json.notes.remove(ada.id, removed.id);
      json.close();

      const store = openStore(dir, 'sqlite');
      assert.deepEqual(await store.users.findByUsername('ada'), ada);
      assert.deepEqual((await store.notes.list(ada.id, { offset: 0, limit: 10 })).items, [kept]);
      assert.equal((await store.notes.create(ada.id, { title: 'new', body: '' })).id, removed.id + 1);
      assert.equal((await store.users.create({ username: 'bob', passwordHash: 'x' })).id, ada.id + 1);
      await assert.rejects(store.notes.create(ada.id, { title: 'again', body: '', submission: 'form-1' }), {
        code: 'SUBMISSION_TAKEN',
      });
      store.close();
      // The JSON file is kept under another name, and not taken over twice.
      assert.deepEqual(
        readdirSync(dir).filter((name) => name.startsWith('showcase.json')),
        ['showcase.json.imported'],
      );
      const reopened = openStore(dir, 'sqlite');
      assert.equal((await reopened.notes.list(ada.id, { offset: 0, limit: 10 })).total, 2);
      reopened.close();
    });
  },
);

describe('showcase sqlite store: a database made before the form ids', { skip: !sqliteAvailable() }, () => {
  it('gains the columns and the unique index when opened, keeping its users and notes', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    // The notes table as it was before `submission`.
    const { DatabaseSync } = require('node:sqlite') as {
      DatabaseSync: new (file: string) => { exec(sql: string): void; close(): void };
    };
    const old = new DatabaseSync(join(dir, 'showcase.sqlite'));
    old.exec(`
      CREATE TABLE users (id INTEGER PRIMARY KEY, username TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL,
        created_at TEXT NOT NULL);
      CREATE TABLE notes (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), title TEXT NOT NULL,
        body TEXT NOT NULL, attachment TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
      INSERT INTO users VALUES (1, 'ada', 'x', '2024-01-01T00:00:00.000Z');
      INSERT INTO notes VALUES (1, 1, 'older', '', NULL, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z');
    `);
    old.close();
    const store = openStore(dir, 'sqlite');
    assert.deepEqual(
      (await store.notes.list(1, { offset: 0, limit: 10 })).items.map((note) => [note.title, note.submission]),
      [['older', null]],
    );
    // The users table gains its column too (the sign-up form's id).
    assert.equal((await store.users.findById(1))?.submission, null);
    assert.equal(
      (await store.users.create({ username: 'bob', passwordHash: 'x', submission: 'form-2' })).submission,
      'form-2',
    );
    await store.notes.create(1, { title: 'new', body: '', submission: 'form-1' });
    await assert.rejects(store.notes.create(1, { title: 'again', body: '', submission: 'form-1' }), {
      code: 'SUBMISSION_TAKEN',
    });
    // Made again with AUTOINCREMENT: the newest note removed, its id is not given again.
    const newest = (await store.notes.list(1, { offset: 0, limit: 1 })).items[0];
    await store.notes.remove(1, newest.id);
    assert.ok((await store.notes.create(1, { title: 'after', body: '' })).id > newest.id);
    store.close();
    // Opened again, the migration finds nothing left to do.
    openStore(dir, 'sqlite').close();
  });
});

describe('showcase json store: atomic writes', () => {
  it('rewrites a temporary file left by a crash 0600, whatever its mode was', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(join(dir, `showcase.json.${process.pid}.tmp`), 'half written', { mode: 0o644 });
    const store = openStore(dir, 'json');
    await store.users.create({ username: 'ada', passwordHash: 'x' });
    assert.deepEqual(readdirSync(dir), ['showcase.json']);
    assert.equal((statSync(join(dir, 'showcase.json')).mode & 0o777).toString(8), '600');
  });

  it('leaves no temporary file, and names an unreadable data file instead of starting empty', async () => {
    const dir = freshDir();
    const store = openStore(dir, 'json');
    await store.users.create({ username: 'ada', passwordHash: 'x' });
    assert.deepEqual(readdirSync(dir), ['showcase.json']);
    const broken = freshDir();
    mkdirSync(broken);
    writeFileSync(join(broken, 'showcase.json'), '{"users": [');
    assert.throws(() => openStore(broken, 'json'), /cannot read .*showcase\.json/);
  });

  it('an unknown kind, or sqlite where Node lacks it, is a clear error', () => {
    assert.throws(() => openStore(freshDir(), 'csv'), /unknown store kind csv/);
    if (!sqliteAvailable()) assert.throws(() => openStore(freshDir(), 'sqlite'), /node:sqlite is not available/);
  });
});

describe(
  'showcase sqlite store on a Node line that has node:sqlite',
  { skip: sqliteAvailable() || process.env.SHOWCASE_STORE_NESTED === '1' },
  () => {
    it('passes the same contract under Node 24 from npm’s cache', (t) => {
      const root = resolve(__dirname, '../..');
      // Without the parent runner's NODE_TEST_CONTEXT the child reports plain TAP.
      const env = { ...process.env };
      delete env.NODE_TEST_CONTEXT;
      const run = spawnSync(
        'npm',
        [
          'exec',
          '--offline',
          '--yes',
          '--package=node@24',
          '--',
          'node',
          '--import',
          'tsx',
          '--test',
          '--test-reporter=tap',
          '--no-warnings',
          'test/examples/showcase-store.test.ts',
        ],
        { cwd: root, encoding: 'utf8', env: { ...env, SHOWCASE_STORE_NESTED: '1' }, timeout: 120_000 },
      );
      if (/ENOTCACHED|code E404|not in cache/i.test(run.stderr))
        return t.skip('Node 24 is not in npm’s cache on this machine');
      assert.equal(run.status, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /# Subtest: showcase sqlite store/);
      assert.match(run.stdout, /# fail 0/);
    });
  },
);
