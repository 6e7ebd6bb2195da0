/** req.fresh and req.stale. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeRequest } from './fake';

const ETAG = { ETag: '"abc"' };
const probe = (
  method: string,
  headers: Record<string, string>,
  statusCode = 200,
  resHeaders: Record<string, string> = ETAG,
) => {
  const req = fakeRequest({ method, headers, res: { statusCode, headers: resHeaders } });
  return [req.fresh, req.stale];
};

describe('req.fresh and req.stale', () => {
  it('fresh when If-None-Match matches the ETag', () => {
    assert.deepEqual(probe('GET', { 'if-none-match': '"abc"' }), [true, false]);
    assert.deepEqual(probe('GET', { 'if-none-match': 'W/"abc"' }), [true, false]);
    assert.deepEqual(probe('GET', { 'if-none-match': '"x", "abc"' }), [true, false]);
    assert.deepEqual(probe('GET', { 'if-none-match': '"x"' }), [false, true]);
  });

  it('fresh when not modified since', () => {
    const lastModified = { 'Last-Modified': 'Tue, 01 Jan 2030 00:00:00 GMT' };
    assert.deepEqual(probe('GET', { 'if-modified-since': 'Wed, 01 Jan 2031 00:00:00 GMT' }, 200, lastModified), [
      true,
      false,
    ]);
    assert.deepEqual(probe('GET', { 'if-modified-since': 'Mon, 01 Jan 2029 00:00:00 GMT' }, 200, lastModified), [
      false,
      true,
    ]);
  });

  it('only for GET, HEAD (and QUERY, as 4.22)', () => {
    assert.deepEqual(probe('HEAD', { 'if-none-match': '"abc"' }), [true, false]);
    assert.deepEqual(probe('QUERY', { 'if-none-match': '"abc"' }), [true, false]);
    assert.deepEqual(probe('POST', { 'if-none-match': '"abc"' }), [false, true]);
    assert.deepEqual(probe('PUT', { 'if-none-match': '"abc"' }), [false, true]);
  });

  it('only for 2xx and 304 statuses', () => {
    assert.deepEqual(probe('GET', { 'if-none-match': '"abc"' }, 304), [true, false]);
    assert.deepEqual(probe('GET', { 'if-none-match': '"abc"' }, 299), [true, false]);
    assert.deepEqual(probe('GET', { 'if-none-match': '"abc"' }, 404), [false, true]);
    assert.deepEqual(probe('GET', { 'if-none-match': '"abc"' }, 301), [false, true]);
  });

  it('stale with Cache-Control: no-cache or without conditional headers', () => {
    assert.deepEqual(probe('GET', { 'if-none-match': '"abc"', 'cache-control': 'no-cache' }), [false, true]);
    assert.deepEqual(probe('GET', {}), [false, true]);
  });
});
