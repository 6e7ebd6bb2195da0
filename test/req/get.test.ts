/** req.get / req.header. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeRequest } from './fake';

describe('req.get and req.header', () => {
  it('reads headers case-insensitively', () => {
    const req = fakeRequest({ headers: { 'content-type': 'text/plain' } });
    assert.equal(req.get('Content-Type'), 'text/plain');
    assert.equal(req.header('CONTENT-TYPE'), 'text/plain');
    assert.equal(req.get('X-Missing'), undefined);
    assert.equal(req.header, req.get);
  });

  it('treats Referer and Referrer as one header', () => {
    assert.equal(fakeRequest({ headers: { referer: '/a' } }).get('Referrer'), '/a');
    assert.equal(fakeRequest({ headers: { referrer: '/b' } }).get('referer'), '/b');
  });

  it('returns set-cookie as the array Node keeps', () => {
    assert.deepEqual(fakeRequest({ headers: { 'set-cookie': ['a=1', 'b=2'] } }).get('Set-Cookie'), ['a=1', 'b=2']);
  });

  it('throws for a missing or non-string name', () => {
    const req = fakeRequest();
    assert.throws(() => req.get(), { name: 'TypeError', message: 'name argument is required to req.get' });
    assert.throws(() => req.get(''), { message: 'name argument is required to req.get' });
    assert.throws(() => req.get(5), { message: 'name must be a string to req.get' });
  });
});
