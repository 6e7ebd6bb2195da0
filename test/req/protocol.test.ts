/** req.protocol and req.secure. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeRequest } from './fake';

const probe = (
  headers: Record<string, string>,
  trust: unknown = false,
  encrypted = false,
  remoteAddress = '127.0.0.1',
) => {
  const req = fakeRequest({ headers, encrypted, remoteAddress, settings: { 'trust proxy': trust } });
  return [req.protocol, req.secure];
};

describe('req.protocol and req.secure', () => {
  it('http on a plain socket, https over TLS', () => {
    assert.deepEqual(probe({}), ['http', false]);
    assert.deepEqual(probe({}, false, true), ['https', true]);
  });

  it('ignores X-Forwarded-Proto unless trusted', () => {
    assert.deepEqual(probe({ 'x-forwarded-proto': 'https' }), ['http', false]);
    assert.deepEqual(probe({ 'x-forwarded-proto': 'https' }, 'loopback', false, '203.0.113.1'), ['http', false]);
    assert.deepEqual(probe({ 'x-forwarded-proto': 'https' }, true), ['https', true]);
    assert.deepEqual(probe({ 'x-forwarded-proto': 'https' }, 1), ['https', true]);
    assert.deepEqual(
      probe({ 'x-forwarded-proto': 'https' }, () => true),
      ['https', true],
    );
  });

  it('takes the first comma-separated value, trimmed, case kept', () => {
    assert.deepEqual(probe({ 'x-forwarded-proto': ' https , http' }, true), ['https', true]);
    assert.deepEqual(probe({ 'x-forwarded-proto': 'HTTPS' }, true), ['HTTPS', false]);
  });

  it('keeps the socket protocol when the trusted header is missing', () => {
    assert.deepEqual(probe({}, true, true), ['https', true]);
  });
});
