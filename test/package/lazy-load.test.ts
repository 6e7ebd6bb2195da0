/**
 * Cold start: `require('webapp')` and a first request load neither the static
 * server, the body parsers, the query-string parser nor the MIME database and
 * negotiation packages; the export's members for them load on first read and are
 * then the very functions of their modules. Tested on the built output, in a
 * fresh process, because module caches are per process.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { before, describe, it } from 'node:test';

const root = resolve(__dirname, '../..');
const entry = resolve(root, 'dist/cjs/index.js');

/** Runs `source` in a new Node process; its last line of output is JSON. */
function runScript(source: string): Record<string, unknown> {
  const out = execFileSync(process.execPath, ['-e', source], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  return JSON.parse(out.trim().split('\n').pop()!);
}

const NOT_BEFORE_USE = [
  '/body-parser/',
  '/static/',
  '/querystring/',
  '/mime-db/',
  '/mime-types/',
  '/negotiator/',
  '/proxy-addr/',
  '/node_modules/cookie/',
];

before(() => {
  if (!existsSync(entry)) execFileSync(process.execPath, [resolve(root, 'scripts/build.mjs')], { stdio: 'inherit' });
});

describe('lazy loading', () => {
  it('serves a first request without loading what it does not need', () => {
    const result = runScript(`
      const http = require('node:http');
      const webapp = require(${JSON.stringify(entry)});
      const app = webapp();
      app.get('/', (req, res) => res.send('hello'));
      const server = app.listen(0, '127.0.0.1', () => {
        http.get({ host: '127.0.0.1', port: server.address().port, path: '/' }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => {
            server.close();
            console.log(JSON.stringify({
              status: res.statusCode, body, etag: res.headers.etag, loaded: Object.keys(require.cache),
            }));
          });
        });
      });
    `);
    assert.equal(result.status, 200);
    assert.equal(result.body, 'hello');
    assert.match(String(result.etag), /^W\/"5-/);
    const loaded = result.loaded as string[];
    for (const part of NOT_BEFORE_USE) {
      assert.deepEqual(
        loaded.filter((file) => file.includes(part)),
        [],
        part + ' was loaded before it was used',
      );
    }
  });

  it("loads json, urlencoded, static and query on first read, as the modules' own functions", () => {
    const result = runScript(`
      const webapp = require(${JSON.stringify(entry)});
      const before = Object.getOwnPropertyDescriptor(webapp, 'json');
      const json = webapp.json;
      const after = Object.getOwnPropertyDescriptor(webapp, 'json');
      const bodyParser = require(${JSON.stringify(resolve(root, 'dist/cjs/body-parser/index.js'))});
      const serveStatic = require(${JSON.stringify(resolve(root, 'dist/cjs/static/index.js'))}).serveStatic;
      webapp.text = 'replaced';
      console.log(JSON.stringify({
        lazyBefore: typeof before.get === 'function',
        plainAfter: 'value' in after && after.writable && after.enumerable,
        sameJson: json === bodyParser.json,
        sameUrlencoded: webapp.urlencoded === bodyParser.urlencoded,
        sameStatic: webapp.static === serveStatic,
        query: typeof webapp.query,
        keys: Object.keys(webapp)
          .filter((k) => ['json', 'raw', 'text', 'urlencoded', 'static', 'query'].includes(k))
          .sort(),
        assigned: webapp.text,
      }));
    `);
    assert.deepEqual(result, {
      lazyBefore: true,
      plainAfter: true,
      sameJson: true,
      sameUrlencoded: true,
      sameStatic: true,
      query: 'function',
      keys: ['json', 'query', 'raw', 'static', 'text', 'urlencoded'],
      assigned: 'replaced',
    });
  });
});
