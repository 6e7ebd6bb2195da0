/**
 * Node's hardening flags: an app runs under each as it runs without it. Express 4
 * cannot start under `--frozen-intrinsics` or `--disallow-code-generation-from-strings`
 * (depd compiles its wrappers with `new Function` and changes Error); webapp neither
 * generates code nor needs to change a frozen built-in, and at most works without what a
 * frozen `Error` denies it (the stack walk that checks whether a response method is
 * Node's own: a method is then taken as patched, which is slower and answers the same).
 * Under the permission model it reads nothing beyond the package and the app's files.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ensureBuilt } from '../support/scratch-project';

/** The app and its requests, loading webapp from `entry` and webapp/v3 from `legacyEntry`. */
const appSource = (entry: string, legacyEntry: string) => `
const express = require(${JSON.stringify(entry)});
const express3 = require(${JSON.stringify(legacyEntry)});
const app = express();
app.use(express.json());
app.use(express.urlencoded({ extended: true }));
app.use('/files', express.static(${JSON.stringify(__dirname)}));
const users = express.Router();
users.param('id', (req, res, next, id) => ((req.user = { id }), next()));
users.get('/:id', (req, res) => res.json({ user: req.user, query: req.query }));
app.use('/users', users);
app.post('/echo', (req, res) => res.send(req.body));
app.get('/file', (req, res) => res.sendFile(${JSON.stringify(__filename)}));
app.get('/old', (req, res) => res.send(201, 'old'));
app.get('/fail', () => { throw new Error('boom'); });
app.use((err, req, res, next) => res.status(err.status || 500).send('error: ' + (err.type || err.message)));
const legacy = express3();
legacy.use(express3.bodyParser());
legacy.post('/echo', (req, res) => res.send(req.body));
async function answers(handler, requests) {
  const server = require('node:http').createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = 'http://127.0.0.1:' + server.address().port;
  const out = [];
  for (const [path, init] of requests) {
    const res = await fetch(base + path, init);
    const body = await res.text();
    // Files by their length: their text is this test.
    const isFile = path === '/file' || path.startsWith('/files/');
    out.push([res.status, res.headers.get('content-type'), isFile ? body.length : body]);
  }
  server.close();
  return out;
}
const json = (body) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body });
(async () => {
  const modern = await answers(app, [
    ['/users/7?a[b]=1&__proto__[x]=1'],
    ['/echo', json('{"a":[1,2],"__proto__":{"x":1}}')],
    ['/echo', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a[b]=1&c=2' }],
    ['/echo', json('{"broken"')],
    ['/files/hardened-node.test.ts'],
    ['/file'],
    ['/old'],
    ['/fail'],
    ['/missing'],
  ]);
  const legacyAnswers = await answers(legacy, [['/echo', json('{"a":1}')]]);
  console.log(JSON.stringify({ modern, legacy: legacyAnswers }));
})();
`;

const size = statSync(__filename).size;

type Answer = [status: number, type: string | null, body: string | number];

const SOURCES = appSource(require.resolve('../../src/index'), require.resolve('../../src/v3/index'));

/** The answers of the app, under `flags`, from the sources (through tsx) or as `source` says. */
function runUnder(
  flags: string[],
  source = SOURCES,
  loader = ['--require', 'tsx/cjs'],
): { modern: Answer[]; legacy: Answer[] } {
  const child = spawnSync(process.execPath, [...flags, ...loader, '-e', source], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, NODE_ENV: 'test', NO_DEPRECATION: 'webapp' },
  });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout);
}

describe('under Node hardening flags', () => {
  const expected = runUnder([]);

  it('the app answers without flags: the answers compared under each flag', () => {
    const html = 'text/html; charset=utf-8';
    const json = 'application/json; charset=utf-8';
    assert.deepEqual(expected.modern, [
      [200, json, '{"user":{"id":"7"},"query":{"a":{"b":"1"}}}'],
      [200, json, '{"a":[1,2],"__proto__":{"x":1}}'],
      [200, json, '{"a":{"b":"1"},"c":"2"}'],
      [400, html, 'error: entity.parse.failed'],
      [200, 'video/mp2t', size],
      [200, 'video/mp2t', size],
      [201, html, 'old'],
      [500, html, 'error: boom'],
      [404, html, expected.modern[8]![2]],
    ]);
    assert.deepEqual(expected.legacy, [[200, json, '{"a":1}']]);
  });

  for (const flags of [
    ['--frozen-intrinsics'],
    ['--disable-proto=throw'],
    ['--disable-proto=delete'],
    ['--disallow-code-generation-from-strings'],
  ]) {
    it(`answers the same under ${flags.join(' ')}`, () => {
      assert.deepEqual(runUnder(flags), expected);
    });
  }

  it('answers the same under the permission model, reading the package and the app only', () => {
    // The built package (the loader would write its cache), with reads allowed in the
    // repository alone: a file outside it is denied to res.sendFile as to any code.
    ensureBuilt();
    const root = join(__dirname, '../..');
    // `--permission` from Node 22.13; the experimental flag before.
    const permission = process.allowedNodeEnvironmentFlags.has('--permission')
      ? '--permission'
      : '--experimental-permission';
    const flags = [permission, `--allow-fs-read=${root}`];
    if (process.allowedNodeEnvironmentFlags.has('--allow-net')) flags.push('--allow-net');
    const built = appSource(join(root, 'dist/cjs/index.js'), join(root, 'dist/cjs/v3/index.js'));
    assert.deepEqual(runUnder(flags, built, []), expected);
    const denied = runUnder(
      flags,
      built.replace('sendFile(' + JSON.stringify(__filename), 'sendFile("/etc/hostname"'),
      [],
    );
    assert.equal(denied.modern[5]![0], 500);
    assert.deepEqual(denied.modern.slice(0, 5), expected.modern.slice(0, 5));
  });
});
