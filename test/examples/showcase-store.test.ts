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
      const updated = await store.notes.update(two.id, theirs.id, { title: 'renamed', body: undefined });
      assert.deepEqual([updated?.title, updated?.body, updated?.attachment?.originalName], ['renamed', 'b', 'a.txt']);
      assert.equal((await store.notes.remove(two.id, theirs.id))?.title, 'renamed');
      assert.equal((await store.notes.list(two.id, { offset: 0, limit: 10 })).total, 0);
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
  });
}

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
