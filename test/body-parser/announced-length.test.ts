/**
 * The length a request announces, as the body reader reads its Content-Length
 * (src/body-parser/read.ts, `announcedLength`): what raw-body 2 (body-parser@1.20's
 * reader) expects for the same header, asked of raw-body itself. A header of digits
 * alone is read in one pass; anything else (what a middleware or an HTTP/2 client
 * may put there) takes raw-body's reading.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { announcedLength } from '../../src/body-parser/read';
import { prng } from '../support/prng';

const getRawBody = require('raw-body') as (
  stream: Readable,
  options: { length?: unknown },
  callback: (err: (Error & { expected?: number }) | null) => void,
) => void;

/** Five bytes, read by raw-body with `length` as announced: what it expects, or null when it checks nothing. */
function rawBodyExpects(length: unknown): Promise<number | null> {
  return new Promise((resolve) => {
    getRawBody(Readable.from([Buffer.from('12345')]), { length }, (err) => {
      if (err === null) resolve(length === undefined || Number.isNaN(Number(length)) ? null : 5);
      else resolve(err.expected ?? Number.NaN);
    });
  });
}

const HEADERS = [
  '0',
  '5',
  '007',
  '990',
  '123456789012345',
  '1234567890123456',
  '99999999999999999999',
  '',
  ' ',
  ' 12',
  '12 ',
  '1e3',
  '0x10',
  '0b11',
  '12abc',
  'abc',
  '-5',
  '+5',
  '1.5',
  '.5',
  'Infinity',
  '\t7',
  '7\n',
  '\u0660',
  '５',
];

describe('the announced length of a body', () => {
  it('is what raw-body expects for the same Content-Length, digits or not', async () => {
    for (const header of HEADERS) {
      assert.equal(announcedLength(header), await rawBodyExpects(header), JSON.stringify(header));
    }
    assert.equal(announcedLength(undefined), null);
  });

  it('is what raw-body expects for generated headers of digits, signs, dots, spaces and letters', async () => {
    const random = prng(0x5eed);
    const alphabet = '0123456789012345678901234567890123456789 .+-exX\t';
    for (let n = 0; n < 2_000; n++) {
      let header = '';
      const length = Math.floor(random() * 20);
      for (let i = 0; i < length; i++) header += alphabet[Math.floor(random() * alphabet.length)];
      assert.equal(announcedLength(header), await rawBodyExpects(header), JSON.stringify(header));
    }
  });
});
