import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBytes } from '../../src/http/bytes';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const reference = require('bytes');

describe('parseBytes', () => {
  it('parses as the bytes package does', () => {
    for (const value of [1024, '100kb', '1MB', '1.5mb', '10 kb', '2gb', '1tb', '1pb', '512', '512b', '-1kb', '+2kb', 'abc', '', '1xb', NaN, null, undefined, {}, '0.5kb', ' 7kb']) {
      assert.deepEqual(parseBytes(value), reference.parse(value), String(value));
    }
  });
});
