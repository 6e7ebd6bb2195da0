/** req.hostname and the deprecated req.host. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeRequest } from './fake';

const hostname = (headers: Record<string, string>, trust: unknown = false, remoteAddress = '127.0.0.1') =>
  fakeRequest({ headers, remoteAddress, settings: { 'trust proxy': trust } }).hostname;

describe('req.hostname', () => {
  it('is the Host header without its port', () => {
    assert.equal(hostname({ host: 'example.com:3000' }), 'example.com');
    assert.equal(hostname({ host: 'example.com' }), 'example.com');
  });

  it('keeps IPv6 literals whole, with or without a port', () => {
    assert.equal(hostname({ host: '[::1]:3000' }), '[::1]');
    assert.equal(hostname({ host: '[::1]' }), '[::1]');
    assert.equal(hostname({ host: '[2001:db8::1]:443' }), '[2001:db8::1]');
  });

  it('is undefined without a Host header', () => {
    assert.equal(hostname({}), undefined);
  });

  it('ignores X-Forwarded-Host unless the socket address is trusted', () => {
    assert.equal(hostname({ host: 'a.com', 'x-forwarded-host': 'b.com' }), 'a.com');
    assert.equal(hostname({ host: 'a.com', 'x-forwarded-host': 'b.com' }, true), 'b.com');
    assert.equal(hostname({ host: 'a.com', 'x-forwarded-host': 'b.com' }, 'loopback'), 'b.com');
    assert.equal(hostname({ host: 'a.com', 'x-forwarded-host': 'b.com' }, 'loopback', '203.0.113.1'), 'a.com');
    assert.equal(hostname({ host: 'a.com', 'x-forwarded-host': 'b.com' }, 1), 'b.com');
    assert.equal(hostname({ host: 'a.com', 'x-forwarded-host': 'b.com' }, 0), 'a.com');
    assert.equal(
      hostname({ host: 'a.com', 'x-forwarded-host': 'b.com' }, (addr: string) => addr === '127.0.0.1'),
      'b.com',
    );
  });

  it('takes the first of comma-separated (repeated) X-Forwarded-Host values, trimmed', () => {
    assert.equal(hostname({ host: 'a.com', 'x-forwarded-host': 'b.com , c.com' }, true), 'b.com');
    assert.equal(hostname({ host: 'a.com', 'x-forwarded-host': 'b.com:8080, c.com' }, true), 'b.com');
    assert.equal(hostname({ host: 'a.com', 'x-forwarded-host': '[::1]:8080, c.com' }, true), '[::1]');
  });

  it('falls back to Host when X-Forwarded-Host is empty', () => {
    assert.equal(hostname({ host: 'a.com', 'x-forwarded-host': '' }, true), 'a.com');
  });
});

describe('req.host (deprecated)', () => {
  it('is req.hostname, as Express 4.22 keeps it', () => {
    const req = fakeRequest({ headers: { host: 'example.com:3000' } });
    assert.equal(req.host, 'example.com');
  });
});
