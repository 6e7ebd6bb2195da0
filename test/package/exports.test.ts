/**
 * The published shape, tested from the built output (dist/) the way users load it:
 * `require('webapp')` and `import webapp, { Router, json, static } from 'webapp'`.
 * `npm test` builds first; this file builds too when dist/ is missing.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, after, describe, it } from 'node:test';
import ts from 'typescript';
import { packageRoot as root, scratchProject } from '../support/scratch-project';
import { withoutCoverage } from '../support/without-coverage';

let project: string;

/** Runs a script in a scratch project whose node_modules/webapp links to this package. */
function run(file: string, source: string): string {
  writeFileSync(join(project, file), source);
  return execFileSync(process.execPath, [join(project, file)], {
    cwd: project,
    encoding: 'utf8',
    env: withoutCoverage(),
  }).trim();
}

before(() => {
  project = scratchProject('webapp-package-');
});

after(() => rmSync(project, { recursive: true, force: true }));

describe('package entry points (built output)', () => {
  it('require("webapp") is a callable factory with Express 4\'s members', () => {
    const out = run(
      'cjs.cjs',
      `const webapp = require('webapp');
       const app = webapp();
       console.log(JSON.stringify({
         factory: typeof webapp, app: typeof app, handle: typeof app.handle, router: typeof webapp.Router,
         route: typeof webapp.Route, application: typeof webapp.application, request: typeof webapp.request,
         response: typeof webapp.response, listen: typeof app.listen,
       }));`,
    );
    assert.deepEqual(JSON.parse(out), {
      factory: 'function',
      app: 'function',
      handle: 'function',
      router: 'function',
      route: 'function',
      application: 'object',
      request: 'object',
      response: 'object',
      listen: 'function',
    });
  });

  it('import webapp, { Router } from "webapp" gives the same objects as require', () => {
    const out = run(
      'esm.mjs',
      `import webapp, { Router, application } from 'webapp';
       import { createRequire } from 'node:module';
       const require = createRequire(import.meta.url);
       const cjs = require('webapp');
       console.log(JSON.stringify({
         same: webapp === cjs, router: Router === cjs.Router,
         application: application === cjs.application, app: typeof webapp(),
       }));`,
    );
    assert.deepEqual(JSON.parse(out), { same: true, router: true, application: true, app: 'function' });
  });

  it('import { json, static } from "webapp" loads them on first call, with their arity and static.mime', () => {
    const out = run(
      'esm-lazy.mjs',
      `import webapp, { json, urlencoded, static as serveStatic, query } from 'webapp';
       import { createRequire } from 'node:module';
       const require = createRequire(import.meta.url);
       const loaded = (part) => Object.keys(require.cache).some((file) => file.includes(part));
       const before = { bodyParser: loaded('/body-parser/'), static: loaded('/static/') };
       const app = webapp();
       app.post('/', json(), urlencoded({ extended: false }), (req, res) => res.json(req.body));
       app.use('/files', serveStatic(${JSON.stringify(root)}));
       app.get('/q', query(), (req, res) => res.json(req.query));
       const server = app.listen(0, '127.0.0.1', async () => {
         const base = 'http://127.0.0.1:' + server.address().port;
         const posted = await fetch(base + '/', { method: 'POST', headers: { 'content-type': 'application/json' },
           body: '{"a":1}' }).then((r) => r.json());
         const file = (await fetch(base + '/files/package.json')).status;
         const q = await fetch(base + '/q?x=1').then((r) => r.json());
         server.close();
         console.log(JSON.stringify({
           before, after: { bodyParser: loaded('/body-parser/'), static: loaded('/static/') },
           posted, file, q,
           names: [json.name, serveStatic.name, urlencoded.name],
           lengths: [json.length, serveStatic.length],
           sameMime: serveStatic.mime === webapp.static.mime && typeof serveStatic.mime.define,
           sameMembers: json === webapp.json && serveStatic === webapp.static && query === webapp.query,
         }));
       });`,
    );
    assert.deepEqual(JSON.parse(out), {
      before: { bodyParser: false, static: false },
      after: { bodyParser: true, static: true },
      posted: { a: 1 },
      file: 200,
      q: { x: '1' },
      // Express's names: serve-static's function is `serveStatic`.
      names: ['json', 'serveStatic', 'urlencoded'],
      lengths: [1, 2],
      sameMime: 'function',
      sameMembers: true,
    });
  });

  it('the named exports of webapp, webapp/v3 and webapp/middleware may be called with new (Express 3 apps do)', () => {
    // `app.use(new express.static(dir))`: Express's members are plain functions, which
    // `new` calls as constructors; the middleware they return is what `new` gives.
    const out = run(
      'esm-new.mjs',
      `process.env.NO_DEPRECATION = 'webapp';
       import { json, static as serveStatic, urlencoded } from 'webapp';
       import * as v3 from 'webapp/v3';
       import * as middleware from 'webapp/middleware';
       const built = [new json(), new urlencoded({ extended: true }), new serveStatic('.'),
         new v3.logger({ stream: { write() {} } }), new v3.static('.'), new middleware.cookieParser()];
       const names = Object.keys(middleware).filter((name) => typeof middleware[name] === 'function');
       const constructible = names.filter((name) => {
         const args = name === 'vhost' ? ['h', () => {}] : [];
         try { return typeof Reflect.construct(middleware[name], args) === 'function'; }
         catch (err) { return !/not a constructor/.test(err.message); }
       });
       const made = built.map((fn) => typeof fn + ':' + fn.length);
       console.log(JSON.stringify({ made, all: constructible.length === names.length }));`,
    );
    assert.deepEqual(JSON.parse(out), {
      made: ['function:3', 'function:3', 'function:3', 'function:3', 'function:3', 'function:3'],
      all: true,
    });
  });

  it("a transpiler's default import of every entry gives its members (TypeScript's esModuleInterop)", () => {
    // webapp/middleware and webapp/otel are marked `__esModule`, and the helper of a
    // transpiled default import then reads their `default`: it was undefined, so
    // `import mw from 'webapp/middleware'` type-checked and failed at run time.
    const source = `
      import webapp from 'webapp';
      import bodyParser from 'webapp/body-parser';
      import v3 from 'webapp/v3';
      import mw from 'webapp/middleware';
      import otel from 'webapp/otel';
      import * as mwNamespace from 'webapp/middleware';
      console.log(JSON.stringify({
        members: [typeof webapp.Router, typeof bodyParser.json, typeof v3.Router,
          typeof mw.cookieParser, typeof otel.instrument],
        namespace: typeof mwNamespace.cookieParser,
        // Not enumerable: listing the bundle's members finds the middleware alone, as before.
        listed: Object.keys(require('webapp/middleware')).includes('default'),
      }));`;
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020, esModuleInterop: true },
    });
    assert.deepEqual(JSON.parse(run('default-imports.js', outputText)), {
      members: ['function', 'function', 'function', 'function', 'function'],
      namespace: 'function',
      listed: false,
    });
  });

  it("Express 4's entry paths (webapp/index.js, webapp/lib/express.js) give an ES module the package's names", () => {
    const out = run(
      'esm-paths.mjs',
      `import webapp from 'webapp';
       import * as main from 'webapp';
       import index, { json, static as serveStatic, Router } from 'webapp/index.js';
       import * as bare from 'webapp/index';
       import * as lib from 'webapp/lib/express.js';
       import * as libBare from 'webapp/lib/express';
       const keys = (ns) => Object.keys(ns).sort().join(',');
       // Node 24 and later name a CommonJS module's exports 'module.exports' besides 'default'.
       const entries = ['webapp', 'webapp/body-parser', 'webapp/v3', 'webapp/middleware', 'webapp/otel'];
       const namespaces = await Promise.all(entries.map((entry) => import(entry)));
       console.log(JSON.stringify({
         same: index === webapp && lib.default === webapp && Router === webapp.Router && lib.Router === webapp.Router,
         functions: [typeof json, typeof serveStatic],
         keys: [keys(bare), keys(lib), keys(libBare)].every((k) => k === keys(main)),
         none: Object.values(bare).filter((value) => value === undefined).length,
         moduleExports: namespaces.every((ns) => ns['module.exports'] === ns.default),
       }));`,
    );
    assert.deepEqual(JSON.parse(out), {
      same: true,
      functions: ['function', 'function'],
      keys: true,
      none: 0,
      moduleExports: true,
    });
  });

  it("deprecation notices of members an ES module imports by name name the module's line", () => {
    writeFileSync(
      join(project, 'esm-deprecation.mjs'),
      `import { urlencoded } from 'webapp';
       import { bodyParser } from 'webapp/middleware';
       urlencoded();
       bodyParser();`,
    );
    const child = spawnSync(process.execPath, [join(project, 'esm-deprecation.mjs')], {
      cwd: project,
      encoding: 'utf8',
      env: withoutCoverage(),
    });
    assert.equal(child.status, 0, child.stderr);
    const notices = child.stderr.trim().split('\n');
    assert.ok(notices.length >= 2, child.stderr);
    for (const notice of notices) assert.match(notice, / deprecated .* at esm-deprecation\.mjs:[34]:8$/);
  });

  it('resolvers that do not read "exports" (Jest 27, browserify) find every subpath, as the same objects', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: object };
    const subpaths = Object.keys(manifest.exports)
      .filter((key) => key !== '.' && key !== './package.json')
      .map((key) => 'webapp' + key.slice(1));
    const out = run(
      'resolve.cjs',
      `const resolve = require(${JSON.stringify(join(root, 'node_modules/resolve'))});
       const differing = ${JSON.stringify(subpaths)}.filter((subpath) => {
         const file = resolve.sync(subpath, { basedir: __dirname });
         return require(file) !== require(subpath);
       });
       console.log(JSON.stringify(differing));`,
    );
    assert.deepEqual(JSON.parse(out), []);
    assert.ok(subpaths.length >= 20);
  });

  it("every entry point's types reference Node's, as @types/express's do (a tsconfig may list no `types`)", () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      exports: Record<string, string | { types?: string }>;
    };
    const declarations = new Set<string>();
    for (const target of Object.values(manifest.exports)) {
      if (typeof target !== 'string') declarations.add(target.types!);
      else if (target.endsWith('.js')) declarations.add(target.replace(/\.js$/, '.d.ts'));
    }
    const without = [...declarations].filter(
      (file) => !readFileSync(join(root, file), 'utf8').startsWith('/// <reference types="node"'),
    );
    assert.ok(declarations.size > 10, `${declarations.size} entry points`);
    assert.deepEqual(without, []);
  });

  it('serves a request from the built package', () => {
    const out = run(
      'serve.cjs',
      `const webapp = require('webapp');
       const app = webapp();
       app.get('/users/:id', (req, res) => res.end('user ' + req.params.id));
       const server = app.listen(0, '127.0.0.1', async () => {
         const res = await fetch('http://127.0.0.1:' + server.address().port + '/users/7');
         console.log(res.status + ' ' + (await res.text()));
         server.close();
       });`,
    );
    assert.equal(out, '200 user 7');
  });
});
