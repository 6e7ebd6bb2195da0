/**
 * `webapp/v3/as-express`: Express 3 plugins that reach the framework by
 * `require('express')` (express-resource, express-namespace) get webapp/v3, and their
 * routes answer as on express@3.21 given the same plugins. Each run is a child process:
 * the hook is the process's.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { itWithLiveOracle } from '../support/oracle-recording';
import { withoutCoverage } from '../support/without-coverage';

const fixture = join(__dirname, 'fixtures/plugins-app.js');

/** The answers the fixture's app gives on `framework`, one [method, path, status, type, body] per request. */
function answers(framework: 'webapp' | 'express3'): unknown[] {
  const output = execFileSync(process.execPath, ['--no-deprecation', fixture, framework], {
    cwd: join(__dirname, '../..'),
    encoding: 'utf8',
    env: withoutCoverage(),
  });
  return output
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
}

const html = 'text/html; charset=utf-8';

describe('webapp/v3/as-express', () => {
  it('gives express-resource and express-namespace webapp/v3: app.resource and app.namespace route', () => {
    assert.deepEqual(answers('webapp'), [
      ['GET', '/users', 200, html, 'users'],
      ['GET', '/users/new', 200, html, 'new user form'],
      ['POST', '/users', 201, html, 'created ada'],
      ['GET', '/users/7', 200, html, 'user 7 as html'],
      ['GET', '/users/7.json', 200, 'application/json; charset=utf-8', 'user 7 as json'],
      ['POST', '/users/7', 200, html, 'updated 7'],
      ['POST', '/users/7', 200, html, 'destroyed 7'],
      ['GET', '/api/ping', 200, html, 'pong'],
      ['GET', '/api/v1/items/3', 200, html, 'v1 item 3'],
      ['GET', '/nothing', 404, html, 'Cannot GET /nothing\n'],
    ]);
  });

  itWithLiveOracle('answers as express@3.21 with the same plugins', 'express-resource on express@3.21', async () => {
    assert.deepEqual(answers('webapp'), answers('express3'));
  });

  it('hooks once, however often it is required; other names resolve as before', () => {
    const script = [
      "const Module = require('node:module');",
      "require('webapp/v3/as-express');",
      'const hook = Module._resolveFilename;',
      "delete require.cache[require.resolve('webapp/v3/as-express')];",
      "require('webapp/v3/as-express');",
      "if (Module._resolveFilename !== hook) throw new Error('hooked twice');",
      "if (require('express') !== require('webapp/v3')) throw new Error('express is not webapp/v3');",
      "if (require('express3') === require('webapp/v3')) throw new Error('express3 was redirected');",
      "process.stdout.write('ok');",
    ].join('\n');
    const output = execFileSync(process.execPath, ['-e', script], {
      cwd: join(__dirname, '../..'),
      encoding: 'utf8',
      env: withoutCoverage(),
    });
    assert.equal(output, 'ok');
  });
});
