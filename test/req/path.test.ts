/** req.path. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeRequest } from './fake';

describe('req.path', () => {
  it('is the pathname of req.url, without the query string', () => {
    assert.equal(fakeRequest({ url: '/users/1?sort=desc' }).path, '/users/1');
    assert.equal(fakeRequest({ url: '/' }).path, '/');
    assert.equal(fakeRequest({ url: '/a%20b?x' }).path, '/a%20b');
  });
});
