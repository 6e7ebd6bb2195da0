/**
 * Request targets that go to Node's legacy URL parser (absolute-form, a `#`, spaces)
 * parse as parseurl parses them for Express, without Node's `url.parse` deprecation
 * notice: from Node 24 on it prints DEP0169 (and under `--throw-deprecation` ends the
 * process) when called from outside a node_modules folder, which webapp is when linked
 * or in a workspace; parseurl, inside node_modules, never prints it for Express.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { parseRequestTarget, resolveLegacyUrl } from '../../src/http/parse-url';

// Loaded from the repository (outside node_modules), as a linked webapp is.
const SERVER = `
const url = require('node:url');
const calls = [];
for (const name of ['parse', 'resolve']) {
  const original = url[name];
  url[name] = function (...args) {
    calls.push(name);
    return original.apply(this, args);
  };
}
const warnings = [];
process.on('warning', (warning) => warnings.push(warning.code || warning.name));
const net = require('node:net');
const webapp = require(${JSON.stringify(require.resolve('../../src/index'))});
const webapp3 = require(${JSON.stringify(require.resolve('../../src/v3/index'))});
const app = webapp();
app.get('*', (req, res) => res.json({ url: req.url, path: req.path, host: req.hostname }));
const legacy = webapp3();
legacy.get('*', (req, res) => res.location('./next').end());
const targets = ['http://other.example/a?b=1', '/a#b', '/x', '/dir/./y'];
async function ask(handler, target) {
  const server = require('node:http').createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const head = await new Promise((resolve, reject) => {
    const socket = net.connect(server.address().port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
    socket.write('GET ' + target + ' HTTP/1.1\\r\\nHost: here.example\\r\\nConnection: close\\r\\n\\r\\n');
  });
  server.close();
  return head.split('\\r\\n')[0];
}
(async () => {
  const statuses = [];
  for (const target of targets) statuses.push(await ask(app, target), await ask(legacy, target));
  setImmediate(() => console.log(JSON.stringify({ statuses, calls, warnings })));
})();
`;

describe('legacy request-target parsing', () => {
  it("parses with Node's Url objects, and no deprecation notice is printed, linked or not", () => {
    const child = spawnSync(process.execPath, ['--throw-deprecation', '--require', 'tsx/cjs', '-e', SERVER], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(child.status, 0, child.stderr);
    const { statuses, calls, warnings } = JSON.parse(child.stdout) as Record<string, string[]>;
    assert.deepEqual(statuses, Array(8).fill('HTTP/1.1 200 OK'));
    assert.deepEqual(calls, [], 'url.parse / url.resolve called');
    assert.deepEqual(warnings, []);
    assert.doesNotMatch(child.stderr, /DEP0169/);
  });

  it('gives the fields url.parse gives, for the targets it parses', () => {
    const { parse } = require('node:url') as typeof import('node:url');
    for (const target of ['http://other.example:8080/a/b?c=1#d', '/a#b', '/a b?c', '//x/y', '*', '/\u00a0x']) {
      const expected = { ...parse(target) };
      const actual: Record<string, unknown> = { ...parseRequestTarget(target) };
      delete actual._raw;
      assert.deepEqual(actual, expected, target);
    }
  });

  it('resolves a relative location as url.resolve does (webapp/v3 res.location)', () => {
    const { resolve } = require('node:url') as typeof import('node:url');
    const bases = ['/', '/a/b/', '/a/b', '/a/./b/../c/'];
    const targets = ['./x', '../x', '../../../x', './', '.', './x?y=1#z', './/evil.example/x', './\\evil.example/x'];
    for (const base of bases) {
      for (const target of targets)
        assert.equal(resolveLegacyUrl(base, target), resolve(base, target), base + ' ' + target);
    }
  });
});
