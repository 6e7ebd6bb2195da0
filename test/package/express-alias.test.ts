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
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { packageRoot as root, scratchProject } from '../support/scratch-project';
import { withoutCoverage } from '../support/without-coverage';

let project: string;
/** express@4's own lib/utils, the reference. */
const expressUtils = join(root, 'node_modules/express/lib/utils.js');

/** Runs a script in the scratch project; what it printed on stderr must be nothing. */
function run(file: string, source: string, env: NodeJS.ProcessEnv = {}): string {
  writeFileSync(join(project, file), source);
  const child = spawnSync(process.execPath, [join(project, file)], {
    cwd: project,
    encoding: 'utf8',
    env: { ...withoutCoverage(), ...env },
  });
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
         index: require('express/index') === express && require('express/index.js') === express,
         query: require('express/lib/middleware/query') === express.query,
         init: typeof require('express/lib/middleware/init').init,
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
      index: true,
      query: true,
      init: 'function',
    });
  });

  it("express/lib/middleware/init's expressInit does what Express's does, for an app of the user's", () => {
    const out = run(
      'init.cjs',
      `const http = require('node:http');
       const express = require('express');
       const { init } = require('express/lib/middleware/init');
       const app = express();
       app.set('x-powered-by', true);
       const expressInit = init(app);
       const server = http.createServer((req, res) => {
         expressInit(req, res, () => {
           res.end(JSON.stringify({
             name: expressInit.name,
             linked: req.res === res && res.req === req,
             prototypes: Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response,
             locals: typeof res.locals,
             poweredBy: res.get('X-Powered-By'),
             query: express.query()(req, res, () => undefined) === undefined && req.query,
           }));
         });
       }).listen(0, '127.0.0.1', () => {
         http.get({ port: server.address().port, host: '127.0.0.1', path: '/?a[b]=1' }, (res) => {
           let body = '';
           res.on('data', (chunk) => (body += chunk));
           res.on('end', () => { console.log(body); server.close(); });
         });
       });`,
    );
    assert.deepEqual(JSON.parse(out), {
      name: 'expressInit',
      linked: true,
      prototypes: true,
      locals: 'object',
      poweredBy: 'webapp',
      query: { a: { b: '1' } },
    });
  });

  it("express/lib/utils gives Express 4's helpers the same answers (code that imports them from there)", () => {
    // The same calls on webapp (as express, in the scratch project) and on express@4 itself.
    const calls = `[
      ['etag', 'hello'], ['etag', ''], ['wetag', 'héllo'], ['wetag', 'caf\\xe9', 'latin1'],
      ['isAbsolute', '/a'], ['isAbsolute', 'C:\\\\x'], ['isAbsolute', 'D:/x'], ['isAbsolute', '\\\\\\\\srv\\\\x'],
      ['isAbsolute', 'a/b'], ['isAbsolute', ''],
      ['normalizeType', 'html'], ['normalizeType', 'nosuchext'], ['normalizeType', 'text/html; q=0.5 ; level = 1'],
      ['normalizeTypes', ['json', 'text/plain;charset=utf-8']],
      ['setCharset', 'text/html', 'utf-8'], ['setCharset', 'application/json; charset=latin1', 'utf-8'],
      ['setCharset', '', 'utf-8'], ['setCharset', 'text/plain', ''],
    ]`;
    const script = (load: string) => `
      const utils = ${load};
      const out = ${calls}.map(([name, ...args]) => utils[name](...args));
      out.push(utils.compileETag('weak')('x'), utils.compileETag('strong')('x'), utils.compileETag(false));
      out.push(utils.compileETag(true) === utils.wetag, utils.compileETag('strong') === utils.etag);
      const [extended, simple] = [utils.compileQueryParser('extended'), utils.compileQueryParser('simple')];
      out.push(extended('a[b]=1&c=2&c=3'), simple('a[b]=1&c=2'));
      out.push(utils.compileQueryParser(false)('a=1'));
      const trust = utils.compileTrust('10.0.0.0/8, 127.0.0.1');
      const twoHops = utils.compileTrust(2);
      out.push(trust('10.1.2.3', 0), trust('192.168.0.1', 0), twoHops('x', 1), twoHops('x', 2));
      for (const bad of [() => utils.compileETag('nope'), () => utils.compileQueryParser('nope')]) {
        try { bad(); out.push('no error'); } catch (err) { out.push(err.constructor.name + ': ' + err.message); }
      }
      out.push(utils.flatten([1, [2, [3, [4]]]]), utils.flatten([1, [2, [3, [4]]]], 1));
      out.push(utils.contentDisposition('r\u00e9sum\u00e9.pdf'), utils.contentDisposition());
      out.push(Object.keys(utils).sort());
      console.log(JSON.stringify(out));`;
    const quiet = (name: string) => `process.env.NO_DEPRECATION = '${name}';`;
    const onWebapp = run('utils.cjs', quiet('webapp') + script(`require('express/lib/utils')`));
    const onExpress = spawnSync(
      process.execPath,
      ['-e', quiet('express') + script(`require(${JSON.stringify(expressUtils)})`)],
      { encoding: 'utf8', env: withoutCoverage() },
    );
    assert.equal(onExpress.status, 0, onExpress.stderr);
    assert.deepEqual(JSON.parse(onWebapp), JSON.parse(onExpress.stdout));
    // An ES module's named imports find them, as they find Express's `exports.name = ...`.
    const fromModule = run(
      'utils.mjs',
      `import utils, { contentDisposition, compileETag, isAbsolute } from 'express/lib/utils';
       const same = contentDisposition === utils.contentDisposition;
       console.log(JSON.stringify([same, compileETag('weak')('x'), isAbsolute('/x')]));`,
    );
    assert.deepEqual(JSON.parse(fromModule), [true, 'W/"1-EfatjsUqKYSrqv18O1FlA3hcIHI"', true]);
  });

  it("Express 4's module paths give an ES module and a transpiler's default import what Express's give", () => {
    // The names an ES module can import from each path (Node reads them from the
    // CommonJS source), and what a transpiled `import x from` gets (Babel's and
    // esModuleInterop's helpers take `default` from a module marked `__esModule`).
    const paths = [
      'index.js',
      'lib/express.js',
      'lib/application.js',
      'lib/request.js',
      'lib/response.js',
      'lib/utils.js',
      'lib/view.js',
      'lib/middleware/init.js',
      'lib/middleware/query.js',
      'lib/router/index.js',
      'lib/router/layer.js',
      'lib/router/route.js',
    ];
    const script = (importBase: string, requireBase: string) => `
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      const out = {};
      for (const path of ${JSON.stringify(paths)}) {
        const namespace = await import(${JSON.stringify(importBase)} + path);
        // webapp's own member, and the name Node 24 and later add, which webapp's ES modules have on every line.
        const names = Object.keys(namespace).filter((name) => name !== 'graceful' && name !== 'module.exports');
        const exported = require(${JSON.stringify(requireBase)} + path);
        out[path] = [names.sort().join(','), exported.__esModule ? typeof exported.default : typeof exported];
      }
      console.log(JSON.stringify(out));`;
    const onWebapp = JSON.parse(run('paths.mjs', script('express/', 'express/')));
    const expressRoot = join(root, 'node_modules/express/');
    writeFileSync(join(project, 'express-paths.mjs'), script(pathToFileURL(expressRoot).href, expressRoot));
    const onExpress = spawnSync(process.execPath, [join(project, 'express-paths.mjs')], {
      encoding: 'utf8',
      env: withoutCoverage(),
    });
    assert.equal(onExpress.status, 0, onExpress.stderr);
    assert.deepEqual(onWebapp, JSON.parse(onExpress.stdout));
  });

  it('express-async-errors: errors reach the error handlers once; without a reason, the next route', () => {
    const out = run(
      'async-errors.cjs',
      `const express = require('express');
       require('express-async-errors');
       const app = express();
       app.get('/throws', async () => { throw Object.assign(new Error('async boom'), { status: 503 }); });
       app.param('id', async () => { throw new Error('param boom'); });
       app.get('/items/:id', (req, res) => res.send('item'));
       app.get('/ok', async (req, res) => res.send('ok'));
       // Without a reason the wrapper calls next(undefined): Express goes on to the next
       // route, and only there (an answer from a callback after the error page threw).
       app.get('/undefined', async () => { throw undefined; });
       app.get('/undefined', (req, res) => setTimeout(() => res.send('next route, later'), 20));
       app.get('/no-reason', () => Promise.reject());
       app.get('/no-reason', async (req, res) => { await null; res.send('next async route'); });
       app.get('/two-handlers', async () => { throw undefined; }, (req, res) => res.send('second handler'));
       app.use('/middleware', async () => { throw undefined; });
       app.use('/middleware', (req, res) => setTimeout(() => res.send('next middleware, later'), 20));
       app.use((err, req, res, next) => res.status(err.status || 500).send('handled: ' + err.message));
       const server = app.listen(0, '127.0.0.1', async () => {
         const base = 'http://127.0.0.1:' + server.address().port;
         const answers = [];
         const paths = ['/throws', '/items/1', '/ok', '/undefined', '/no-reason', '/two-handlers', '/middleware'];
         for (const path of paths) {
           const res = await fetch(base + path);
           answers.push(res.status + ' ' + (await res.text()));
         }
         console.log(JSON.stringify(answers));
         server.close();
       });`,
      // Outside 'test' the final handler prints an error it gets: one passed on twice would show.
      { NODE_ENV: 'development' },
    );
    assert.deepEqual(JSON.parse(out), [
      '503 handled: async boom',
      '500 handled: param boom',
      '200 ok',
      '200 next route, later',
      '200 next async route',
      '200 second handler',
      '200 next middleware, later',
    ]);
  });
});
