import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatBytes, parseBytes } from '../../src/http/bytes';

const reference = require('bytes');

describe('parseBytes', () => {
  it('parses as the bytes package does', () => {
    for (const value of [
      1024,
      '100kb',
      '1MB',
      '1.5mb',
      '10 kb',
      '2gb',
      '1tb',
      '1pb',
      '512',
      '512b',
      '-1kb',
      '+2kb',
      'abc',
      '',
      '1xb',
      NaN,
      null,
      undefined,
      {},
      '0.5kb',
      ' 7kb',
      '1.9b',
      'kb',
      Infinity,
      '1e3',
    ]) {
      assert.deepEqual(parseBytes(value), reference.parse(value), String(value));
    }
  });
});

describe('formatBytes', () => {
  it('formats as the bytes package does', () => {
    const values = [
      0,
      1,
      1023,
      1024,
      1536,
      1048576,
      1.5 * 1048576,
      3 * 1073741824,
      1099511627776,
      1125899906842624,
      -2048,
      123456789,
      1000,
      10.5,
      1001.3,
    ];
    const optionSets = [
      {},
      { decimalPlaces: 0 },
      { decimalPlaces: 4 },
      { fixedDecimals: true },
      { thousandsSeparator: ',' },
      { unit: 'kb' },
      { unit: 'B', thousandsSeparator: ' ' },
      { unitSeparator: ' ' },
      { unit: 'nope' },
      { unit: 'MB', fixedDecimals: true, decimalPlaces: 3 },
    ];
    for (const value of values) {
      for (const options of optionSets) {
        assert.equal(
          formatBytes(value, options),
          reference.format(value, options),
          `${value} ${JSON.stringify(options)}`,
        );
      }
    }
    for (const value of [NaN, Infinity, -Infinity]) assert.equal(formatBytes(value), null);
  });
});
