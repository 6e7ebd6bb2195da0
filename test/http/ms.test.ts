import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMs } from '../../src/http/ms';

// ms 2.1 (installed with send) is the oracle.
const ms = require('send/node_modules/ms') as (value: string) => number | undefined;

describe('parseMs', () => {
  it('reads the common duration strings', () => {
    assert.equal(parseMs('1d'), 86_400_000);
    assert.equal(parseMs('2h'), 7_200_000);
    assert.equal(parseMs('10 minutes'), 600_000);
    assert.equal(parseMs('1.5s'), 1500);
    assert.equal(parseMs('100'), 100);
    assert.equal(parseMs('1y'), 31_557_600_000);
    assert.equal(parseMs('-1h'), -3_600_000);
    assert.equal(parseMs('.5m'), 30_000);
    assert.equal(parseMs('2 WEEKS'), 1_209_600_000);
  });

  it('is undefined for what is not a duration', () => {
    for (const value of [
      '',
      'abc',
      '1 fortnight',
      '1d2h',
      'd',
      '1..2d',
      ' 1d',
      '1d ',
      'x'.repeat(101),
      '1'.repeat(101),
    ]) {
      assert.equal(parseMs(value), undefined, JSON.stringify(value));
    }
    assert.equal(parseMs(5 as unknown as string), undefined);
    assert.equal(parseMs('1 constructor'), undefined);
    assert.equal(parseMs('1 __proto__'), undefined);
  });

  it('agrees with ms on a table of strings', () => {
    const units = [
      '',
      'ms',
      'msec',
      'msecs',
      'millisecond',
      'milliseconds',
      's',
      'sec',
      'secs',
      'second',
      'seconds',
      'm',
      'min',
      'mins',
      'minute',
      'minutes',
      'h',
      'hr',
      'hrs',
      'hour',
      'hours',
      'd',
      'day',
      'days',
      'w',
      'week',
      'weeks',
      'y',
      'yr',
      'yrs',
      'year',
      'years',
      'Ms',
      'D',
      'months',
      'sx',
    ];
    for (const number of ['0', '1', '-1', '1.5', '.5', '-.5', '10', '007', '1.', '-']) {
      for (const unit of units) {
        for (const space of ['', ' ', '  ']) {
          const value = number + space + unit;
          assert.equal(parseMs(value), ms(value), JSON.stringify(value));
        }
      }
    }
  });
});
