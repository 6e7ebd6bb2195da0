/**
 * Apps deployed by tools other than esbuild (bundled.test.ts): Vercel's file tracer, nft,
 * which decides what Vercel, Next.js's standalone output and ncc ship (only the files
 * it finds, copied to a folder of their own), and rollup with its CommonJS plugin, whose
 * default output is an ES module. webapp loads much of itself on first use: a module
 * the tool misses fails only when that feature is first used, in production.
 */
import assert from 'node:assert/strict';
import {
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import commonjs from '@rollup/plugin-commonjs';
import json from '@rollup/plugin-json';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { nodeFileTrace } from '@vercel/nft';
import { rollup } from 'rollup';
import { packageRoot, scratchProject } from '../support/scratch-project';
import { startDeployed } from '../support/deployed-app';

let project: string;
let deployed: string;

before(() => {
  project = scratchProject('webapp-traced-');
  deployed = mkdtempSync(join(tmpdir(), 'webapp-traced-deployed-'));
});

after(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(deployed, { recursive: true, force: true });
});

/** An app of the 4.x API alone, each of whose routes reaches code webapp loads on first use. */
const APP = `
const webapp = require('webapp');
const app = webapp();
app.use(webapp.json());
app.use(webapp.urlencoded({ extended: true }));
app.get('/users/:id', (req, res) => res.json({ id: req.params.id, q: req.query }));
app.post('/echo', (req, res) => res.status(201).json(req.body));
app.get('/old', (req, res) => res.send(req.param('id') || 'none'));
app.get('/fail', () => { throw new Error('boom'); });
app.get('/format', (req, res) => res.format({ html: () => res.send('<p>hi</p>'), json: () => res.json({ hi: 1 }) }));
app.get('/back', (req, res) => res.redirect('back'));
const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.on('SIGTERM', () => server.close());
`;

/** The middleware bundle and the 3.x layer, as an app of either loads them. */
const BUNDLE_APP = `
import webapp from 'webapp';
import { cookieParser, compress } from 'webapp/middleware';
import v3 from 'webapp/v3';
const app = webapp();
app.use(compress());
app.use(cookieParser('secret'));
app.get('/cookies', (req, res) => res.json(req.cookies));
const legacy = v3();
legacy.use(v3.bodyParser());
legacy.post('/', (req, res) => res.json({ v3: req.body }));
app.use('/v3', legacy);
const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.on('SIGTERM', () => server.close());
`;

/** Writes an app's source into the scratch project; returns its path. */
function writeEntry(name: string, source: string): string {
  const entry = join(project, name);
  writeFileSync(entry, source);
  return entry;
}

/** Starts the app in `file` from `cwd`, runs `check` against its address, then stops it. */
async function serving(
  file: string,
  cwd: string,
  check: (base: string, stderr: () => string) => Promise<void>,
): Promise<void> {
  const app = await startDeployed<{ port: number }>(file, cwd, { NODE_ENV: 'development' });
  try {
    await check(`http://127.0.0.1:${app.printed.port}`, app.stderr);
  } finally {
    app.stop();
  }
}

interface Deployed {
  entry: string;
  own: string[];
  warnings: string[];
}

/**
 * Copies what nft traced from `entry` under `root`, keeping the paths, as a deployment
 * does; the package's link in node_modules is made again to the copy, so nothing of the
 * repository can be reached from there. Returns the copied entry and the traced files of
 * the package, relative to it.
 */
async function deployTraced(entry: string, root: string): Promise<Deployed> {
  const { fileList, warnings } = await nodeFileTrace([entry], { base: '/' });
  const realRoot = realpathSync(packageRoot);
  const own: string[] = [];
  for (const file of fileList) {
    const from = '/' + file;
    const to = join(root, file);
    mkdirSync(dirname(to), { recursive: true });
    if (lstatSync(from).isSymbolicLink()) {
      const target = resolve(dirname(from), readlinkSync(from));
      symlinkSync(join(root, relative('/', realpathSync(target))), to, 'dir');
    } else {
      cpSync(from, to);
      if (from.startsWith(realRoot + sep)) own.push(relative(realRoot, from));
    }
  }
  return { entry: join(root, relative('/', entry)), own: own.sort(), warnings: [...warnings].map(String) };
}

async function text(response: Promise<Response>): Promise<[number, string]> {
  const answer = await response;
  return [answer.status, await answer.text()];
}

describe('an app deployed with only the files nft traced', () => {
  it('serves every route, its lazily loaded parts shipped, and ships nothing it cannot load', async () => {
    const root = join(deployed, 'nft');
    const traced = await deployTraced(writeEntry('app.js', APP), root);
    assert.deepEqual(traced.warnings, []);
    // Not the ES module entries, nor the parts an app of the 4.x API never loads.
    const unused = traced.own.filter((file) => /^dist[\\/](esm|cjs[\\/](v3|middleware|otel))[\\/]/.test(file));
    assert.deepEqual(unused, []);
    assert.ok(traced.own.includes(join('dist', 'cjs', 'core.js')), traced.own.join(', '));

    await serving(traced.entry, root, async (base, stderr) => {
      assert.deepEqual(await text(fetch(`${base}/users/7?a[b]=c`)), [200, '{"id":"7","q":{"a":{"b":"c"}}}']);
      const posted = fetch(`${base}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'a[b]=1',
      });
      assert.deepEqual(await text(posted), [201, '{"a":{"b":"1"}}']);
      const bad = fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
      const [badStatus, badPage] = await text(bad);
      assert.equal(badStatus, 400);
      assert.match(badPage, /SyntaxError/);
      assert.deepEqual(await text(fetch(`${base}/old?id=3`)), [200, '3']);
      assert.match(stderr(), /webapp deprecated req\.param\(name\): Use req\.params, req\.body, or req\.query/);
      const [failStatus, failPage] = await text(fetch(`${base}/fail`));
      assert.equal(failStatus, 500);
      assert.match(failPage, /<pre>Error: boom<br>/);
      const html = fetch(`${base}/format`, { headers: { accept: 'text/html' } });
      assert.deepEqual(await text(html), [200, '<p>hi</p>']);
      const none = fetch(`${base}/format`, { headers: { accept: 'image/png' } });
      assert.equal((await none).status, 406);
      const back = await fetch(`${base}/back`, { redirect: 'manual', headers: { referer: '/users/1' } });
      assert.deepEqual([back.status, back.headers.get('location')], [302, '/users/1']);
      assert.deepEqual(await text(fetch(`${base}/missing`)), [404, notFoundPage('/missing')]);
    });
  });

  it('ships the middleware bundle and the 3.x layer to an app that imports them', async () => {
    const root = join(deployed, 'nft-bundle');
    const traced = await deployTraced(writeEntry('bundle-app.mjs', BUNDLE_APP), root);
    assert.deepEqual(traced.warnings, []);
    await serving(traced.entry, root, checkBundleApp);
  });
});

describe('an app bundled by rollup', () => {
  for (const format of ['es', 'cjs'] as const) {
    const output = format === 'es' ? 'an ES module (the default output)' : 'CommonJS';
    it(`runs as ${output} with the middleware bundle and the 3.x layer`, async () => {
      const bundle = await rollup({
        input: writeEntry('bundle-app.mjs', BUNDLE_APP),
        plugins: [nodeResolve({ preferBuiltins: true }), commonjs(), json()],
        onwarn: () => {},
      });
      const outfile = join(deployed, format === 'es' ? 'rollup.mjs' : 'rollup.cjs');
      try {
        await bundle.write({ file: outfile, format, inlineDynamicImports: true });
      } finally {
        await bundle.close();
      }
      await serving(outfile, deployed, checkBundleApp);
    });
  }
});

async function checkBundleApp(base: string): Promise<void> {
  const cookies = await fetch(`${base}/cookies`, { headers: { cookie: 'a=1; b=j%3A%7B%22c%22%3A2%7D' } });
  assert.equal(cookies.status, 200);
  assert.deepEqual(await cookies.json(), { a: '1', b: { c: 2 } });
  const legacy = await fetch(`${base}/v3`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"x":1}',
  });
  assert.equal(legacy.status, 200);
  assert.deepEqual(await legacy.json(), { v3: { x: 1 } });
}

function notFoundPage(path: string): string {
  return (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n' +
    `<body>\n<pre>Cannot GET ${path}</pre>\n</body>\n</html>\n`
  );
}
