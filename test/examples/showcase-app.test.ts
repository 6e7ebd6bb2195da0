/**
 * The showcase's createApp(framework, options), in process, on webapp and on express@4:
 * a store that fails makes the async handlers reject, and the rejection must reach the
 * error handlers (JSON for the API, the error page for HTML) with the server still serving.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import webapp = require('../../src/index');
import { Visitor, titleOf } from './showcase-client';

import { createApp, openStore, type ShowcaseApp } from './showcase-modules';

const scratch = mkdtempSync(join(tmpdir(), 'showcase-app-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

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
      server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      visitor = new Visitor(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      await visitor.signUp('ada');
    });

    after(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await app.close();
    });

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
