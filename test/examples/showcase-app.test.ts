/**
 * The showcase's createApp(framework, options), in process, on webapp and on express@4:
 * a store that fails makes the async handlers reject, and the rejection must reach the
 * error handlers (JSON for the API, the error page for HTML) with the server still serving.
 * In process, the clock can be moved on too: the login throttle tells the time left, and
 * sessions last as long as they should in the memory store.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, mock } from 'node:test';
import express from 'express';
import webapp = require('../../src/index');
import { Visitor, titleOf } from './showcase-client';

import { createApp, openStore, type ShowcaseApp } from './showcase-modules';

const scratch = mkdtempSync(join(tmpdir(), 'showcase-app-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Mocks Date alone, from the real time on; false on a Node line whose mock timers lack Date (before 20.11). */
function mockDate(): boolean {
  try {
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    return true;
  } catch {
    return false;
  }
}

/** `app` listening on a free port of 127.0.0.1, and the base URL of that. */
async function listening(app: ShowcaseApp): Promise<{ server: Server; base: string }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function closed(server: Server, app: ShowcaseApp): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await app.close();
}

for (const [name, framework] of [
  ['webapp', webapp],
  ['express@4', express],
] as const) {
  describe(`showcase app on ${name}: rejected promises reach the error handlers`, () => {
    const reported: Error[] = [];
    let server: Server;
    let app: ShowcaseApp;
    let visitor: Visitor;

    before(async () => {
      const dataDir = join(scratch, name);
      const store = openStore(dataDir, 'json');
      // Listing notes fails, as a lost database connection would.
      store.notes.list = async () => {
        throw new Error('store unavailable');
      };
      app = createApp(framework, {
        dataDir,
        store,
        sessionSecret: 'test',
        log: false,
        reportError: (err: Error) => reported.push(err),
      });
      let base: string;
      ({ server, base } = await listening(app));
      visitor = new Visitor(base);
      await visitor.signUp('ada');
    });

    after(() => closed(server, app));

    it('answers the API with its JSON error, without the internal message', async () => {
      const res = await visitor.api('GET', '/api/notes');
      assert.equal(res.status, 500);
      assert.deepEqual(res.json, { error: { status: 500, code: 'internal', message: 'Something went wrong.' } });
      assert.equal(reported.at(-1)?.message, 'store unavailable');
    });

    it('answers pages with the error page, and keeps serving', async () => {
      const page = await visitor.get('/notes');
      assert.equal(page.status, 500);
      assert.equal(titleOf(page.text), 'Something went wrong');
      assert.doesNotMatch(page.text, /store unavailable/);
      assert.equal(reported.length, 2);
      const created = await visitor.api('POST', '/api/notes', { title: 'still works' });
      assert.equal(created.status, 201);
    });
  });
}

for (const [name, framework] of [
  ['webapp', webapp],
  ['express@4', express],
] as const) {
  describe(`showcase app on ${name}: how long sessions last (memory store)`, () => {
    let server: Server;
    let app: ShowcaseApp;
    let base: string;

    before(async () => {
      app = createApp(framework, { dataDir: join(scratch, `${name}-sessions`), sessionSecret: 'test', log: false });
      ({ server, base } = await listening(app));
    });

    after(() => closed(server, app));

    /** Days from now until the session cookie a page set expires. */
    function daysLeft(page: { headers: Headers }): number {
      const cookie = page.headers.getSetCookie().find((line) => line.startsWith('showcase.sid='));
      assert.ok(cookie, 'a session cookie was set');
      const expires = /Expires=([^;]+)/.exec(cookie)![1];
      return Math.round((Date.parse(expires) - Date.now()) / (24 * 3600 * 1000));
    }

    it("gives a visitor's session a day and a signed-in one a week; a logout's is a visitor's again", async () => {
      const visitor = new Visitor(base);
      assert.equal(daysLeft(await visitor.get('/signup')), 1);
      assert.equal(daysLeft(await visitor.signUp(`lifetimes${name.length}`)), 7);
      assert.equal(daysLeft(await visitor.submit('/logout', '/logout', {})), 1);
    });

    it('keeps the session a login replaced for a minute only: its form is void after that', async (t) => {
      if (!mockDate()) return t.skip('mock timers cannot mock Date on this Node line');
      try {
        const visitor = new Visitor(base);
        const fields = {
          ...(await visitor.hiddenFields('/signup')),
          username: `kept${name.length}`,
          password: 'correct horse',
          confirm: 'correct horse',
        };
        const secondClick = visitor.copy();
        const first = await visitor.request('/signup', { method: 'POST', body: new URLSearchParams(fields) });
        assert.equal(first.location, '/notes');
        // A second sending 61 seconds later, with the cookie of the session the sign-up replaced.
        mock.timers.tick(61 * 1000);
        const late = await secondClick.request('/signup', { method: 'POST', body: new URLSearchParams(fields) });
        assert.equal(late.status, 403, 'the replaced session and its form secret are gone');
        assert.match(late.text, /This form had expired/);
      } finally {
        mock.timers.reset();
      }
    });
  });

  describe(`showcase app on ${name}: the login throttle`, () => {
    let server: Server;
    let app: ShowcaseApp;
    let base: string;

    before(async () => {
      app = createApp(framework, { dataDir: join(scratch, `${name}-throttle`), sessionSecret: 'test', log: false });
      ({ server, base } = await listening(app));
      await new Visitor(base).signUp('guessme', 'the real one');
    });

    after(() => closed(server, app));

    it('tells the time left, in minutes rounded up, as Retry-After does in seconds', async (t) => {
      if (!mockDate()) return t.skip('mock timers cannot mock Date on this Node line');
      try {
        const guesser = new Visitor(base);
        for (let attempt = 1; attempt <= 10; attempt++)
          assert.equal((await guesser.logIn('guessme', `guess ${attempt}`)).location, '/login', `attempt ${attempt}`);
        // Three minutes of the fifteen-minute window pass.
        mock.timers.tick(3 * 60 * 1000);
        const blocked = await guesser.logIn('guessme', 'the real one');
        assert.equal(blocked.status, 429);
        assert.equal(blocked.headers.get('retry-after'), '720');
        assert.match(blocked.text, /Too many failed logins\. Try again in 12 minutes\./);
        // 11 minutes and 50 seconds later: ten seconds are left, a minute rounded up.
        mock.timers.tick(11 * 60 * 1000 + 50 * 1000);
        const last = await guesser.logIn('guessme', 'the real one');
        assert.equal(last.headers.get('retry-after'), '10');
        assert.match(last.text, /Too many failed logins\. Try again in a minute\./);
      } finally {
        mock.timers.reset();
      }
    });
  });
}
