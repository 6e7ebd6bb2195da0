import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentDisposition } from '../../src/http/content-disposition';

// content-disposition 0.5 (installed with express@4) is the oracle for the differential cases.
const oracle = require('content-disposition') as (filename?: string, options?: object) => string;

describe('contentDisposition', () => {
  it('is a bare "attachment" without a file name', () => {
    assert.equal(contentDisposition(), 'attachment');
  });

  it('quotes ASCII names and keeps only the base name', () => {
    assert.equal(contentDisposition('plans.pdf'), 'attachment; filename="plans.pdf"');
    assert.equal(contentDisposition('/path/to/plans.pdf'), 'attachment; filename="plans.pdf"');
    assert.equal(contentDisposition('the "best" \\ file.txt'), 'attachment; filename="the \\"best\\" \\\\ file.txt"');
  });

  it('adds the RFC 5987 form with an ISO-8859-1 fallback for other names', () => {
    assert.equal(
      contentDisposition('€ rates.pdf'),
      'attachment; filename="? rates.pdf"; filename*=UTF-8\'\'%E2%82%AC%20rates.pdf',
    );
    assert.equal(
      contentDisposition('日本語.txt'),
      'attachment; filename="???.txt"; filename*=UTF-8\'\'%E6%97%A5%E6%9C%AC%E8%AA%9E.txt',
    );
    assert.equal(
      contentDisposition('«plans».pdf'),
      'attachment; filename="«plans».pdf"',
      'ISO-8859-1 names stay quoted',
    );
  });

  it('adds filename* when the name looks percent-encoded', () => {
    assert.equal(
      contentDisposition('the%20plans.pdf'),
      'attachment; filename="the%20plans.pdf"; filename*=UTF-8\'\'the%2520plans.pdf',
    );
  });

  it('honours the type and fallback options', () => {
    assert.equal(contentDisposition('plans.pdf', { type: 'INLINE' }), 'inline; filename="plans.pdf"');
    assert.equal(contentDisposition('€.pdf', { fallback: false }), "attachment; filename*=UTF-8''%E2%82%AC.pdf");
    assert.equal(
      contentDisposition('€.pdf', { fallback: 'EUR.pdf' }),
      'attachment; filename="EUR.pdf"; filename*=UTF-8\'\'%E2%82%AC.pdf',
    );
    assert.equal(contentDisposition('plans.pdf', { fallback: 'plans.pdf' }), 'attachment; filename="plans.pdf"');
  });

  it('rejects bad arguments with TypeErrors', () => {
    assert.throws(() => contentDisposition('x', { type: 'bad type' }), { name: 'TypeError', message: 'invalid type' });
    assert.throws(() => contentDisposition(42 as unknown as string), {
      name: 'TypeError',
      message: 'filename must be a string',
    });
    assert.throws(() => contentDisposition('x', { fallback: 42 as unknown as boolean }), {
      message: 'fallback must be a string or boolean',
    });
    assert.throws(() => contentDisposition('x', { fallback: '€' }), { message: 'fallback must be ISO-8859-1 string' });
  });

  it('gives the same header as content-disposition for a table of names', () => {
    const names = [
      'a',
      'a.txt',
      '/x/y/z.txt',
      'dir/',
      '/',
      '',
      ' ',
      'with space.txt',
      'tab\there',
      'new\nline',
      'semi;colon',
      "quote'd",
      'paren(1).txt',
      'star*.txt',
      'comma,a',
      'x=y',
      '100%.txt',
      '%41',
      '%zz',
      'ümlaut.txt',
      'ÿ',
      '\u0100',
      '€uro',
      '😀.png',
      'a\\b.txt',
      'a"b',
      '\x7f',
      '\x00',
      'C:\\windows\\file.txt',
      '..',
      '.hidden',
      'a/b/../c.txt',
    ];
    for (const name of names) {
      assert.equal(contentDisposition(name), oracle(name), JSON.stringify(name));
      for (const fallback of [true, false, 'fallback.txt', 'dir/f.txt']) {
        assert.equal(
          contentDisposition(name, { fallback }),
          oracle(name, { fallback }),
          JSON.stringify([name, fallback]),
        );
      }
    }
  });
});
