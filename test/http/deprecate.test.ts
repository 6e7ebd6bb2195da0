/**
 * Deprecation notices name the caller's line as depd does for Express: the file
 * relative to the working directory, its line and column.
 */
import assert from 'node:assert/strict';
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
});
