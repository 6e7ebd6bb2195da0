/**
 * Apps deployed as one bundled file (esbuild, as ncc, webpack and rollup do it): the
 * bundle runs from a folder where no node_modules can be reached, as CommonJS and as an
 * ES module (which has no `__dirname`), and tools that read the stack find what they
 * find on Express (sub-routers are named `router`, middleware as Connect names it). Also
 * the ES module entries' default exports, which Node's own interop gives every CommonJS
 * module.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildSync } from 'esbuild';
import webpack from 'webpack';
import { startDeployed } from '../support/deployed-app';
import { scratchProject } from '../support/scratch-project';
import { withoutCoverage } from '../support/without-coverage';

let project: string;
let deployed: string;

before(() => {
  project = scratchProject('webapp-bundle-');
  deployed = mkdtempSync(join(tmpdir(), 'webapp-deployed-'));
});

after(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(deployed, { recursive: true, force: true });
});

/**
 * An app with a sub-router, a JSON body and a deprecated call, that prints its port and
 * layer names; with webapp/otel imported (its ES module entry must have no top-level
 * `await`, which esbuild cannot bundle as CommonJS).
 */
const APP = `
import webapp from 'webapp';
import { instrument } from 'webapp/otel';
const app = webapp();
app.use(webapp.json());
const users = webapp.Router();
users.get('/:id', (req, res) => res.json({ id: req.params.id }));
users.post('/', (req, res) => res.status(201).json(req.body));
app.use('/api/users', users);
app.get('/old', (req, res) => res.send(404));
const server = app.listen(0, '127.0.0.1', () => {
  const names = app._router.stack.map((layer) => layer.name);
  console.log(JSON.stringify({ port: server.address().port, names, tracing: typeof instrument }));
});
process.on('SIGTERM', () => server.close());
`;

/** Bundles APP for `format`, to a folder with no node_modules above it. */
function bundle(format: 'cjs' | 'esm'): string {
  const entry = join(project, 'app.mjs');
  writeFileSync(entry, APP);
  const outfile = join(deployed, format === 'esm' ? 'server.mjs' : 'server.cjs');
  buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format,
    outfile,
    logLevel: 'silent',
    // What esbuild's documentation gives ES module bundles for packages that call require.
    banner:
      format === 'esm'
        ? { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" }
        : undefined,
  });
  return outfile;
}

interface Started {
  port: number;
  names: string[];
  tracing: string;
  stderr: () => string;
  stop: () => void;
}

async function start(file: string): Promise<Started> {
  const app = await startDeployed<{ port: number; names: string[]; tracing: string }>(file, deployed);
  return { ...app.printed, stderr: app.stderr, stop: app.stop };
}

describe('an app bundled into one file', () => {
  for (const format of ['cjs', 'esm'] as const) {
    it(`runs as ${format === 'esm' ? 'an ES module' : 'CommonJS'} where no node_modules can be reached`, async () => {
      const server = await start(bundle(format));
      try {
        const base = `http://127.0.0.1:${server.port}`;
        const read = await fetch(`${base}/api/users/7`);
        assert.equal(read.status, 200);
        assert.deepEqual(await read.json(), { id: '7' });
        const created = await fetch(`${base}/api/users`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"name":"ada"}',
        });
        assert.equal(created.status, 201);
        assert.deepEqual(await created.json(), { name: 'ada' });
        // A deprecated call still names a line, of the bundle: the caller cannot be told apart.
        assert.equal((await fetch(`${base}/old`)).status, 404);
        assert.match(server.stderr(), / webapp deprecated res\.send\(status\): .* at \S*server\.[cm]?js:\d+:\d+\n/);
        // As Express's: tools such as express-list-endpoints find sub-routers by this name.
        assert.deepEqual(server.names, ['query', 'expressInit', 'jsonParser', 'router', 'bound dispatch']);
        assert.equal(server.tracing, 'function');
      } finally {
        server.stop();
      }
    });
  }
});

/**
 * What TypeScript emits for ES module output without esModuleInterop (webpack with
 * ts-loader): a namespace import of each callable entry, called. webpack resolved
 * `import` to the ES module entries, whose namespace no call can reach (a TypeError at
 * start), where Express's CommonJS module is called.
 */
const NAMESPACE_APP = `
import * as webapp from 'webapp';
import * as bodyParser from 'webapp/body-parser';
import * as v3 from 'webapp/v3';
import mw from 'webapp/middleware';
const legacy = v3();
legacy.get('/', (req, res) => res.send('v3'));
const app = webapp();
app.use(bodyParser.json());
app.use(mw.responseTime());
app.post('/echo', (req, res) => res.json(req.body));
app.use('/legacy', legacy);
const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.on('SIGTERM', () => server.close());
`;

/**
 * Bundles `source` with webpack for Node into `folder`/`name`; `__dirname` in the app is
 * the bundle's folder, where it runs.
 */
function bundleWithWebpack(source: string, folder: string, name: string): Promise<string> {
  const entry = join(project, name);
  writeFileSync(entry, source);
  const compiler = webpack({
    mode: 'none',
    target: 'node',
    context: project,
    entry,
    node: { __dirname: false },
    output: { path: folder, filename: name },
    infrastructureLogging: { level: 'error' },
  });
  return new Promise((resolve, reject) => {
    compiler.run((error, stats) => {
      compiler.close(() => {});
      if (error || !stats || stats.hasErrors()) reject(error ?? new Error(stats?.toString('errors-only')));
      else resolve(join(folder, name));
    });
  });
}

describe('an app bundled by webpack', () => {
  it('calls the namespace of webapp, webapp/body-parser and webapp/v3, as of express', async () => {
    const server = await startDeployed<{ port: number }>(
      await bundleWithWebpack(NAMESPACE_APP, deployed, 'webpacked.js'),
      deployed,
    );
    try {
      const base = `http://127.0.0.1:${server.printed.port}`;
      const echoed = await fetch(`${base}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"name":"ada"}',
      });
      assert.deepEqual([echoed.status, await echoed.json()], [200, { name: 'ada' }]);
      assert.match(echoed.headers.get('x-response-time') ?? '', /ms$/);
      assert.equal(await (await fetch(`${base}/legacy/`)).text(), 'v3');
    } finally {
      server.stop();
    }
  });
});

/** An app whose view engine is named by its setting only, loaded at the first render. */
const VIEWS_APP = `
const webapp = require('webapp');
const app = webapp();
app.set('views', __dirname);
app.set('view engine', 'ejs');
app.get('/', (req, res) => res.render('page', { name: 'ada' }));
app.get('/pug', (req, res) => res.render('page.pug', { name: 'ada' }));
const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.on('SIGTERM', () => server.close());
`;

describe('an app bundled by webpack, its view engines installed beside the bundle', () => {
  it('loads an engine named by extension from node_modules at the first render (express@4 cannot)', async () => {
    // webpack (and ncc, which is webpack) turns a `require` of a name known at run time
    // into a lookup among the bundled modules, which fails: with Express, always; webapp
    // asks the process's own require there. The folder has the engines, nothing else.
    const folder = mkdtempSync(join(tmpdir(), 'webapp-webpacked-views-'));
    try {
      const bundled = await bundleWithWebpack(VIEWS_APP, folder, 'views.js');
      writeFileSync(join(folder, 'page.ejs'), '<p>Hello <%= name %></p>');
      writeFileSync(join(folder, 'page.pug'), 'p Hello #{name}');
      mkdirSync(join(folder, 'node_modules'));
      for (const engine of ['ejs', 'pug']) {
        symlinkSync(join(__dirname, '..', '..', 'node_modules', engine), join(folder, 'node_modules', engine), 'dir');
      }
      const server = await startDeployed<{ port: number }>(bundled, folder);
      try {
        const base = `http://127.0.0.1:${server.printed.port}`;
        for (const path of ['/', '/pug']) {
          const page = await fetch(base + path);
          assert.deepEqual([page.status, await page.text()], [200, '<p>Hello ada</p>'], path);
        }
      } finally {
        server.stop();
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

/** Prints the name of every layer function the middleware bundle, static and 3.x locals make. */
const NAMES = `
const mw = require('webapp/middleware');
const webapp = require('webapp');
const v3 = require('webapp/v3');
const make = {
  basicAuth: () => mw.basicAuth('u', 'p'), bodyParser: () => mw.bodyParser(), compress: () => mw.compress(),
  cookieParser: () => mw.cookieParser(), cookieSession: () => mw.cookieSession({ secret: 's' }),
  csrf: () => mw.csrf(), directory: () => mw.directory(__dirname), errorHandler: () => mw.errorHandler(),
  favicon: () => mw.favicon(), limit: () => mw.limit('1kb'), logger: () => mw.logger({ stream: { write() {} } }),
  methodOverride: () => mw.methodOverride(), multipart: () => mw.multipart(), query: () => mw.query(),
  responseTime: () => mw.responseTime(), session: () => mw.session({ secret: 's' }),
  staticCache: () => mw.staticCache(), timeout: () => mw.timeout(), vhost: () => mw.vhost('a', () => {}),
  static: () => webapp.static(__dirname), locals: () => v3().locals,
};
const names = {};
for (const [key, create] of Object.entries(make)) names[key] = create().name;
// The layers an app makes itself: tools find sub-routers and mounted apps by these names.
const app = webapp();
app.use('/r', webapp.Router());
app.use('/sub', webapp());
names.app = app._router.stack.map((layer) => layer.name);
const legacy = v3();
legacy.use(legacy.router);
names.v3 = legacy.stack.map((layer) => layer.handle.name);
console.log(JSON.stringify(names));
process.exit();
`;

describe('layer names in a bundle', () => {
  for (const minify of [false, true]) {
    it(`are the names Connect and Express give, as without a bundler${minify ? ', minified too' : ''}`, () => {
      const entry = join(project, 'names.js');
      writeFileSync(entry, NAMES);
      const outfile = join(deployed, minify ? 'names.min.cjs' : 'names.cjs');
      buildSync({ entryPoints: [entry], bundle: true, platform: 'node', outfile, minify, logLevel: 'silent' });
      const run = (file: string, cwd: string) =>
        JSON.parse(execFileSync(process.execPath, [file], { cwd, encoding: 'utf8', env: withoutCoverage() }));
      const bundled = run(outfile, deployed);
      assert.deepEqual(bundled, run(entry, project));
      // A function named as its factory was renamed by esbuild (`cookieParser2`), and
      // minified, any function lost its name (webapp/otel tells a mounted app by its name).
      for (const key of ['basicAuth', 'compress', 'cookieParser', 'logger', 'multipart', 'csrf', 'session', 'vhost'])
        assert.equal(bundled[key], key);
      assert.equal(bundled.locals, 'locals');
      assert.equal(bundled.static, 'serveStatic');
      assert.deepEqual(bundled.app, ['query', 'expressInit', 'router', 'mounted_app']);
      assert.deepEqual(bundled.v3, ['query', 'expressInit', 'router']);
    });
  }
});

describe('ES module entries', () => {
  it('each has the CommonJS object as its default export, as Node gives a CommonJS module', () => {
    const file = join(project, 'defaults.mjs');
    writeFileSync(
      file,
      `import { createRequire } from 'node:module';
       const require = createRequire(import.meta.url);
       const same = {};
       for (const entry of ['webapp', 'webapp/body-parser', 'webapp/v3', 'webapp/middleware', 'webapp/otel'])
         same[entry] = (await import(entry)).default === require(entry);
       console.log(JSON.stringify(same));`,
    );
    const out = execFileSync(process.execPath, [file], { cwd: project, encoding: 'utf8', env: withoutCoverage() });
    assert.deepEqual(JSON.parse(out), {
      webapp: true,
      'webapp/body-parser': true,
      'webapp/v3': true,
      'webapp/middleware': true,
      'webapp/otel': true,
    });
  });
});
