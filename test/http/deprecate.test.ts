/**
 * Deprecation notices name the caller's line as depd does for Express: the file
 * relative to the working directory, its line and column.
 */
import assert from 'node:assert/strict';
import { relative } from 'node:path';
import { describe, it } from 'node:test';
import { deprecate } from '../../src/http/deprecate';
import { captureStderr } from '../support/capture-stderr';

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
});
