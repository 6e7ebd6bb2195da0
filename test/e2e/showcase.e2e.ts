/**
 * The notes showcase in headless Chromium, end to end, on webapp and on express@4: sign
 * up, log in, create a note with an attachment, see it listed, download it, edit it,
 * post a form without its CSRF token, log out and be refused a private page. The browser
 * must see the same pages on both. Screenshots go to test/e2e/output/.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startExample, type RunningExample } from '../support/example-server';
import { launchChromium, type LaunchedBrowser } from './browser';
import { Journey, attachmentFixture, outputDir, type Step } from './journey';

const frameworks = ['webapp', 'express'] as const;
const records = new Map<string, Step[]>();
const scratch = mkdtempSync(join(tmpdir(), 'e2e-showcase-'));
const attachment = attachmentFixture(scratch);

after(() => rmSync(scratch, { recursive: true, force: true }));

for (const framework of frameworks) {
  describe(`showcase in Chromium on ${framework}`, () => {
    let app: RunningExample;
    let chromium: LaunchedBrowser;
    let journey: Journey;

    before(async () => {
      app = await startExample('examples/showcase/server.js', {
        SHOWCASE_FRAMEWORK: framework,
        DATA_DIR: join(scratch, `${framework}-data`),
        SESSION_SECRET: 'e2e secret',
      });
      chromium = await launchChromium();
      journey = new Journey(chromium.browser, app.base, framework);
      await journey.start();
    });

    after(async () => {
      await chromium?.close();
      app?.stop();
    });

    it('signs up and is welcomed on the notes page', async () => {
      const form = await journey.goto('signup-form', '/signup', true);
      assert.equal(form.title, 'Sign up · Notes');
      const invalid = await journey.submit(
        'signup-invalid',
        { username: 'ab', password: 'short', confirm: 'short' },
        { screenshot: true },
      );
      assert.equal(invalid.status, 422);
      assert.deepEqual(
        await journey.currentPage.$$eval('.field .error', (nodes) => nodes.map((node) => node.textContent)),
        ['Use 3 to 30 characters.', 'Use at least 8 characters.'],
      );
      const welcomed = await journey.submit('signup', {
        username: 'ada',
        password: 'analytical engine',
        confirm: 'analytical engine',
      });
      assert.deepEqual(welcomed.hops, ['/signup', '/notes']);
      assert.deepEqual(welcomed.flashes, ['Welcome, ada! Your account is ready.']);
      assert.equal(welcomed.cookies.length, 1);
      assert.match(welcomed.cookies[0], /^showcase\.sid; path=\/; httpOnly=true; sameSite=Lax; session=false$/);
    });

    it('logs out, fails a login, and logs in again', async () => {
      const out = await journey.logOut('logout-first');
      assert.deepEqual(out.hops, ['/logout', '/login']);
      assert.deepEqual(out.flashes, ['You have been logged out.']);
      const wrong = await journey.submit('login-wrong', { username: 'ada', password: 'difference engine' });
      assert.deepEqual(wrong.flashes, ['Unknown username or wrong password.']);
      const back = await journey.submit(
        'login',
        { username: 'ada', password: 'analytical engine' },
        { screenshot: true },
      );
      assert.deepEqual(back.hops, ['/login', '/notes']);
      assert.deepEqual(back.flashes, ['Welcome back, ada.']);
    });

    it('creates a note with an attachment, sees it listed and downloads the attachment', async () => {
      const form = await journey.follow('new-note-form', 'New note', true);
      assert.equal(form.title, 'New note · Notes');
      const created = await journey.submit(
        'note-created',
        { title: 'Trip', body: 'Tickets, passport, charger.' },
        { files: { attachment: attachment.path }, screenshot: true },
      );
      assert.deepEqual(created.hops, ['/notes', '/notes/1']);
      assert.deepEqual(created.flashes, ['Note "Trip" created.']);
      const list = await journey.follow('notes-list', 'All notes', true);
      assert.equal(list.title, 'Your notes · Notes');
      assert.deepEqual(
        await journey.currentPage.$$eval('.notes li a', (links) => links.map((link) => link.textContent)),
        ['Trip'],
      );
      await journey.follow('note', 'Trip');
      const saved = await journey.download(
        'packing-list.txt',
        join(scratch, `${framework}-downloads`),
        'packing-list.txt',
      );
      assert.equal(saved.toString(), attachment.content);
    });

    it('edits the note', async () => {
      const form = await journey.follow('edit-form', 'Edit', true);
      assert.equal(form.title, 'Edit Trip · Notes');
      const saved = await journey.submit('note-edited', { title: 'Summer trip' });
      assert.deepEqual(saved.hops, ['/notes/1/edit', '/notes/1']);
      assert.deepEqual(saved.flashes, ['Note "Summer trip" saved.']);
      assert.equal(saved.title, 'Summer trip · Notes');
    });

    it('answers a form without its CSRF token with the 403 page', async () => {
      await journey.follow('edit-form-again', 'Edit');
      await journey.dropCsrfToken();
      const refused = await journey.submit('csrf-refused', { title: 'Forged' }, { screenshot: true });
      assert.equal(refused.status, 403);
      assert.equal(refused.title, 'Forbidden · Notes');
      const note = await journey.goto('note-unchanged', '/notes/1');
      assert.equal(note.title, 'Summer trip · Notes');
    });

    it('logs out and is refused a private page', async () => {
      const out = await journey.logOut('logout');
      assert.deepEqual(out.flashes, ['You have been logged out.']);
      const refused = await journey.goto('private-refused', '/notes/1', true);
      assert.deepEqual(refused.hops, ['/notes/1', '/login']);
      assert.equal(refused.title, 'Log in · Notes');
      assert.deepEqual(refused.flashes, ['Please log in to see that page.']);
      records.set(framework, journey.steps);
    });
  });
}

describe('webapp and express@4 look the same to the browser', () => {
  it('records identical steps: statuses, redirects, titles, flash texts, cookies', () => {
    const [webapp, express] = frameworks.map((name) => records.get(name));
    assert.ok(webapp && express, 'both journeys completed');
    assert.ok(webapp.length >= 15);
    assert.deepEqual(webapp, express);
    console.log(`screenshots in ${outputDir}`);
  });
});
