import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRange, RANGE_MALFORMED, RANGE_UNSATISFIABLE, type Ranges } from '../../src/http/range-parser';

// range-parser 1.2 (installed with express@4) is the oracle for the differential cases.
const oracle = require('range-parser') as (size: number, str: string, options?: { combine?: boolean }) => unknown;

function plain(result: unknown): unknown {
  if (!Array.isArray(result)) return result;
  return {
    type: (result as unknown as { type: string }).type,
    ranges: result.map((r) => ({ start: r.start, end: r.end })),
  };
}

describe('parseRange', () => {
  it('parses single ranges with their unit as type', () => {
    const ranges = parseRange(1000, 'bytes=0-499');
    assert.ok(Array.isArray(ranges));
    assert.equal(ranges.type, 'bytes');
    assert.deepEqual([...ranges], [{ start: 0, end: 499 }]);
  });

  it('understands open and suffix ranges and clips the end to the last byte', () => {
    assert.deepEqual([...(parseRange(1000, 'bytes=400-') as Ranges)], [{ start: 400, end: 999 }]);
    assert.deepEqual([...(parseRange(1000, 'bytes=-400') as Ranges)], [{ start: 600, end: 999 }]);
    assert.deepEqual([...(parseRange(200, 'bytes=0-499') as Ranges)], [{ start: 0, end: 199 }]);
    assert.equal(parseRange(200, 'bytes=-400'), -1, 'a suffix longer than the resource starts below 0');
  });

  it('returns -2 for a header without "=" and -1 when nothing is satisfiable', () => {
    assert.equal(parseRange(200, 'malformed'), RANGE_MALFORMED);
    assert.equal(RANGE_MALFORMED, -2);
    assert.equal(parseRange(200, 'bytes=500-20'), RANGE_UNSATISFIABLE);
    assert.equal(parseRange(200, 'bytes=500-999'), -1);
    assert.equal(parseRange(0, 'bytes=0-'), -1);
    assert.equal(parseRange(200, 'bytes=x-y'), -1);
    assert.equal(parseRange(200, 'bytes='), -1);
  });

  it('keeps several ranges in header order, skipping the unusable ones', () => {
    const ranges = parseRange(1000, 'bytes=40-80,x-y,81-90,-1');
    assert.deepEqual(
      [...(ranges as Ranges)],
      [
        { start: 40, end: 80 },
        { start: 81, end: 90 },
        { start: 999, end: 999 },
      ],
    );
  });

  it('combines overlapping and adjacent ranges when asked, keeping first-appearance order', () => {
    const ranges = parseRange(150, 'bytes=0-4,90-99,5-75,100-199,101-102', { combine: true });
    assert.ok(Array.isArray(ranges));
    assert.equal(ranges.type, 'bytes');
    assert.deepEqual(
      [...ranges],
      [
        { start: 0, end: 75 },
        { start: 90, end: 149 },
      ],
    );
    assert.deepEqual(
      [...(parseRange(150, 'bytes=-1,20-100,0-1,101-120', { combine: true }) as Ranges)],
      [
        { start: 149, end: 149 },
        { start: 20, end: 120 },
        { start: 0, end: 1 },
      ],
    );
  });

  it('throws a TypeError when the header is not a string', () => {
    assert.throws(() => parseRange(10, undefined as unknown as string), {
      name: 'TypeError',
      message: 'argument str must be a string',
    });
  });

  it('gives the same results as range-parser on a table of odd headers', () => {
    const headers = [
      'bytes=0-0',
      'bytes=0-',
      'bytes=-0',
      'bytes=-1',
      'bytes= 1-2',
      'bytes=1 -2',
      'bytes=1- 2',
      'bytes=+1-2',
      'bytes=1-2-3',
      'bytes=5',
      'bytes=-',
      'bytes=,',
      'bytes=1-2,',
      'items=0-5',
      '=0-5',
      'bytes==0-5',
      'bytes=0x10-20',
      'bytes=1e2-300',
      'bytes=10-5',
      'bytes=0-1,0-1',
      'bytes=99999999999999999999-',
      'bytes=0-99999999999999999999',
      'bytes=-99999999999999999999',
      'bytes=1.5-3.5',
      'BYTES=0-1',
      'bytes=0-1;x',
    ];
    for (const size of [0, 1, 10, 1000]) {
      for (const header of headers) {
        for (const combine of [false, true]) {
          assert.deepEqual(
            plain(parseRange(size, header, { combine })),
            plain(oracle(size, header, { combine })),
            `${size} ${header} ${combine}`,
          );
        }
      }
    }
  });

  it('gives the same results as range-parser on 5000 generated headers', () => {
    // A deterministic generator (no Math.random) keeps the test reproducible.
    let seed = 12345;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const pieces = ['0', '1', '5', '9', '10', '42', '99', '100', '', ' ', '-', ',', 'x', '+'];
    for (let i = 0; i < 5000; i++) {
      let spec = '';
      const parts = 1 + next(4);
      for (let p = 0; p < parts; p++) {
        if (p) spec += ',';
        spec += pieces[next(pieces.length)] + (next(4) ? '-' : '') + pieces[next(pieces.length)];
      }
      const header = 'bytes=' + spec;
      const size = next(120);
      const combine = next(2) === 1;
      assert.deepEqual(
        plain(parseRange(size, header, { combine })),
        plain(oracle(size, header, { combine })),
        `${size} ${header}`,
      );
    }
  });
});
