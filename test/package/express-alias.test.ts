/**
 * The npm alias the migration guide uses to run an app's own tests on webapp
 * (`"express": "npm:webapp@..."`): everything that then loads `express` gets webapp,
 * Express 4's module paths under `express/lib/` included, which middleware such as
 * express-async-errors requires. Tested from the built output in a scratch project
 * whose node_modules/express is this package.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { packageRoot as root, scratchProject } from '../support/scratch-project';

let project: string;

/** Runs a script in the scratch project; what it printed on stderr must be nothing. */
function run(file: string, source: string): string {
  writeFileSync(join(project, file), source);
  const child = spawnSync(process.execPath, [join(project, file)], { cwd: project, encoding: 'utf8' });
  assert.equal(child.stderr, '');
  assert.equal(child.status, 0);
  return child.stdout.trim();
}

before(() => {
  project = scratchProject('webapp-alias-', 'express');
  // Copied, not linked: Node resolves a linked package's own `require('express')` from
  // its real path, which would find the express@4 of this repository's node_modules.
  const asyncErrors = join(project, 'node_modules/express-async-errors');
  mkdirSync(asyncErrors);
  for (const file of ['index.js', 'package.json'])
    copyFileSync(join(root, 'node_modules/express-async-errors', file), join(asyncErrors, file));
});

after(() => rmSync(project, { recursive: true, force: true }));

describe('webapp installed under the name express', () => {
  it("Express 4's module paths under express/lib/ are webapp's objects", () => {
    const out = run(
      'paths.cjs',
      `const express = require('express');
       const Layer = require('express/lib/router/layer');
       const router = express.Router();
       router.use((req, res, next) => next());
       console.log(JSON.stringify({
         webapp: require('express/package.json').name,
         express: require('express/lib/express') === express,
         application: require('express/lib/application') === express.application,
         request: require('express/lib/request') === express.request,
         response: require('express/lib/response') === express.response,
         router: require('express/lib/router') === express.Router,
         routerIndex: require('express/lib/router/index.js') === express.Router,
         route: require('express/lib/router/route') === express.Route,
         layer: router.stack[0] instanceof Layer && require('express/lib/router/layer.js') === Layer,
         view: require('express/lib/view') === express().get('view'),
       }));`,
    );
    assert.deepEqual(JSON.parse(out), {
      webapp: 'webapp',
      express: true,
      application: true,
      request: true,
      response: true,
      router: true,
      routerIndex: true,
      route: true,
      layer: true,
      view: true,
    });
  });

  it('express-async-errors loads, and async errors reach the error handlers once', () => {
    const out = run(
      'async-errors.cjs',
      `const express = require('express');
       require('express-async-errors');
       const app = express();
       app.get('/throws', async () => { throw Object.assign(new Error('async boom'), { status: 503 }); });
       app.param('id', async () => { throw new Error('param boom'); });
       app.get('/items/:id', (req, res) => res.send('item'));
       app.get('/ok', async (req, res) => res.send('ok'));
       app.use((err, req, res, next) => res.status(err.status || 500).send('handled: ' + err.message));
       const server = app.listen(0, '127.0.0.1', async () => {
         const base = 'http://127.0.0.1:' + server.address().port;
         const answers = [];
         for (const path of ['/throws', '/items/1', '/ok']) {
           const res = await fetch(base + path);
           answers.push(res.status + ' ' + (await res.text()));
         }
         console.log(JSON.stringify(answers));
         server.close();
       });`,
    );
    assert.deepEqual(JSON.parse(out), ['503 handled: async boom', '500 handled: param boom', '200 ok']);
  });
});
