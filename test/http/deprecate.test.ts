/**
 * Deprecation notices name the caller's line as depd does for Express: the file
 * relative to the working directory, its line and column.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { relative } from 'node:path';
import { describe, it } from 'node:test';
import { deprecate } from '../../src/http/deprecate';
import { captureStderr } from '../support/capture-stderr';
import webapp = require('../../src/index');

const express = require('express');

describe('deprecation notices', () => {
  it('name the calling file relative to the working directory, as depd names it', () => {
    const here = relative(process.cwd(), __filename);
    const [ours] = captureStderr(() => deprecate('something old: use something new'));
    assert.match(ours, / webapp deprecated something old: use something new at (\S+):\d+:\d+\n$/);
    assert.equal(/ at (\S+):\d+:\d+\n$/.exec(ours)![1], here);

    // express@4 (depd) for a deprecated call made from this file: the same form of site.
    const app = express();
    const [theirs] = captureStderr(() => app.del('/old', () => undefined));
    assert.equal(/ at (\S+):\d+:\d+\n$/.exec(theirs)![1], here);
  });

  it('res.status with values a client chose prints once per caller, as Express does, not once per value', () => {
    const statusOnce = (response: { status(code: unknown): unknown }) =>
      captureStderr(() => {
        for (const code of ['200.5', '0200', '404.0', '00000000000000000301.7'])
          response.status.call({ statusCode: 0 }, code);
      });
    const ours = statusOnce(webapp.response);
    assert.equal(ours.length, statusOnce(express.response).length);
    assert.equal(ours.length, 1);
    assert.match(ours[0]!, /deprecated res.status\("200.5"\): use res.status\(200\) instead at /);
  });

  it("are silenced by NO_DEPRECATION as depd reads it, and by `express` for webapp's own", () => {
    // Each call a message of its own: a notice prints once per message and call site.
    const notices = (value: string, namespace?: string) =>
      captureStderr(() => {
        process.env.NO_DEPRECATION = value;
        deprecate(`notice under ${value} for ${namespace}`, namespace);
      });
    for (const value of ['webapp', 'express', 'EXPRESS', 'other, Webapp', 'a b express', '*'])
      assert.deepEqual(notices(value), [], value);
    assert.equal(notices('body-parser').length, 1);
    assert.equal(notices('expressive').length, 1);
    assert.deepEqual(notices('Body-Parser', 'body-parser'), []);
    assert.equal(notices('express', 'body-parser').length, 1);
  });
  it('go to process deprecation listeners as a DeprecationError instead of stderr, as depd does', () => {
    const received: Error[] = [];
    const listener = (err: Error) => received.push(err);
    process.on('deprecation', listener);
    try {
      const printed = captureStderr(() => {
        deprecate('an old way: use the new one');
        // Express's own (depd): the same shape of error, for a call made from this file.
        express().del('/gone', () => undefined);
      });
      assert.deepEqual(printed, []);
    } finally {
      process.removeListener('deprecation', listener);
    }
    const [ours, theirs] = received as (Error & { namespace: string })[];
    for (const err of [ours, theirs]) {
      assert.equal(err.name, 'DeprecationError');
      assert.ok(err instanceof Error);
      assert.deepEqual(Object.keys(err), []);
      // The stack begins with the caller's own line: this file.
      assert.match(
        err.stack!.split('\n')[1]!,
        new RegExp(`^    at .*${__filename.replace(/[.\\/]/g, '\\$&')}:\\d+:\\d+\\)?$`),
      );
    }
    assert.equal(ours!.namespace, 'webapp');
    assert.equal(theirs!.namespace, 'express');
    assert.equal(ours!.message, 'an old way: use the new one');
    assert.match(ours!.stack!, /^DeprecationError: webapp deprecated an old way: use the new one\n {4}at /);
    assert.match(theirs!.stack!, /^DeprecationError: express deprecated app\.del: Use app\.delete instead\n {4}at /);
  });

  it('print the caller stack instead of its line under TRACE_DEPRECATION and --trace-deprecation', () => {
    const previous = process.env.TRACE_DEPRECATION;
    process.env.TRACE_DEPRECATION = 'webapp';
    try {
      const [traced] = captureStderr(() => deprecate('traced through the environment'));
      const lines = traced!.trimEnd().split('\n');
      assert.match(lines[0]!, / webapp deprecated traced through the environment$/);
      assert.ok(lines.length > 1);
      assert.ok(lines.slice(1).every((line) => line.startsWith('    at ')));
      assert.ok(lines[1]!.includes(__filename));
    } finally {
      if (previous === undefined) delete process.env.TRACE_DEPRECATION;
      else process.env.TRACE_DEPRECATION = previous;
    }
    const flagged = spawnSync(
      process.execPath,
      [
        '--trace-deprecation',
        '--require',
        'tsx/cjs',
        '-e',
        `require(${JSON.stringify(require.resolve('../../src/http/deprecate'))}).deprecate('flagged')`,
      ],
      { encoding: 'utf8', env: { ...process.env, NO_DEPRECATION: '' } },
    );
    assert.match(flagged.stderr, / webapp deprecated flagged\n {4}at /);
  });
});
