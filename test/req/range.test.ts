/** req.range. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeRequest } from './fake';

const range = (header: string | undefined, size: number, options?: { combine?: boolean }) =>
  fakeRequest({ headers: header === undefined ? {} : { range: header } }).range(size, options);

describe('req.range', () => {
  it('is undefined without a Range header', () => {
    assert.equal(range(undefined, 100), undefined);
  });

  it('returns the ranges with their type, capped to the size', () => {
    const result = range('bytes=0-49,90-', 100);
    assert.equal(result.type, 'bytes');
    assert.deepEqual(
      [...result],
      [
        { start: 0, end: 49 },
        { start: 90, end: 99 },
      ],
    );
    assert.deepEqual([...range('bytes=-10', 100)], [{ start: 90, end: 99 }]);
    assert.equal(range('items=0-5', 100).type, 'items');
  });

  it('combines overlapping and adjacent ranges on request', () => {
    assert.deepEqual(
      [...range('bytes=0-9,5-19,20-29,50-59', 100, { combine: true })],
      [
        { start: 0, end: 29 },
        { start: 50, end: 59 },
      ],
    );
    assert.equal(range('bytes=0-9,5-19', 100).length, 2);
  });

  it('-1 when unsatisfiable, -2 when malformed', () => {
    assert.equal(range('bytes=200-300', 100), -1);
    assert.equal(range('garbage', 100), -2);
    assert.equal(range('bytes=x-y', 100), -1); // range-parser reads non-numbers as an empty set
  });
});
