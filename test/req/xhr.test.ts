/** req.xhr. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeRequest } from './fake';

describe('req.xhr', () => {
  it('is true for X-Requested-With: XMLHttpRequest in any case', () => {
    assert.equal(fakeRequest({ headers: { 'x-requested-with': 'XMLHttpRequest' } }).xhr, true);
    assert.equal(fakeRequest({ headers: { 'x-requested-with': 'xmlhttprequest' } }).xhr, true);
  });

  it('is false otherwise', () => {
    assert.equal(fakeRequest({ headers: { 'x-requested-with': 'fetch' } }).xhr, false);
    assert.equal(fakeRequest().xhr, false);
  });
});
