/**
 * The bundled middleware Connect 2.30 marked deprecated print its notice when
 * created, once per call site, under webapp's namespace.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { limit } from '../../src/middleware/limit';
import { methodOverride } from '../../src/middleware/method-override';
import { json } from '../../src/middleware/json';
import { captureStderr, deprecationMessages } from '../support/capture-stderr';

describe('bundled middleware deprecations', () => {
  it('limit() and methodOverride() name what replaces them', () => {
    const lines = captureStderr(() => {
      limit('1kb');
      methodOverride();
    });
    assert.deepEqual(deprecationMessages(lines), [
      'limit: Restrict request size at location of read',
      'methodOverride: use method-override npm module instead',
    ]);
    assert.match(lines[0], /deprecations\.test\.ts:\d+:\d+\n$/, 'the notice points at the caller');
  });

  it('prints once per call site', () => {
    const lines = captureStderr(() => {
      for (let i = 0; i < 3; i++) limit(10);
    });
    assert.equal(lines.length, 1);
  });

  it('json() without verify prints nothing', () => {
    assert.deepEqual(
      captureStderr(() => json()),
      [],
    );
  });
});
