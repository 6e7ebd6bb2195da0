/** req.ip and req.ips under every form of `trust proxy`. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeRequest } from './fake';

const XFF = { 'x-forwarded-for': '203.0.113.7, 10.0.0.2, 192.168.0.3' };
const probe = (trust: unknown, remoteAddress = '127.0.0.1', headers: Record<string, string> = XFF) => {
  const req = fakeRequest({ headers, remoteAddress, settings: { 'trust proxy': trust } });
  return { ip: req.ip, ips: req.ips };
};

describe('req.ip and req.ips', () => {
  it('without trust: the socket address and no ips', () => {
    assert.deepEqual(probe(false), { ip: '127.0.0.1', ips: [] });
  });

  it('trust true: the furthest X-Forwarded-For address, all addresses client first', () => {
    assert.deepEqual(probe(true), { ip: '203.0.113.7', ips: ['203.0.113.7', '10.0.0.2', '192.168.0.3'] });
  });

  it('a hop count trusts that many proxies', () => {
    assert.deepEqual(probe(1), { ip: '192.168.0.3', ips: ['192.168.0.3'] });
    assert.deepEqual(probe(2), { ip: '10.0.0.2', ips: ['10.0.0.2', '192.168.0.3'] });
    assert.deepEqual(probe(0), { ip: '127.0.0.1', ips: [] });
  });

  it('named ranges: loopback, linklocal, uniquelocal', () => {
    assert.deepEqual(probe('loopback'), { ip: '192.168.0.3', ips: ['192.168.0.3'] });
    assert.deepEqual(probe('loopback, uniquelocal'), {
      ip: '203.0.113.7',
      ips: ['203.0.113.7', '10.0.0.2', '192.168.0.3'],
    });
    assert.deepEqual(probe(['loopback', 'uniquelocal']), {
      ip: '203.0.113.7',
      ips: ['203.0.113.7', '10.0.0.2', '192.168.0.3'],
    });
    assert.deepEqual(probe('linklocal', '169.254.1.1'), { ip: '192.168.0.3', ips: ['192.168.0.3'] });
    assert.deepEqual(probe('linklocal'), { ip: '127.0.0.1', ips: [] });
  });

  it('addresses and subnets as a string, a comma list or an array', () => {
    assert.deepEqual(probe('127.0.0.1'), { ip: '192.168.0.3', ips: ['192.168.0.3'] });
    assert.deepEqual(probe('127.0.0.1, 192.168.0.0/16'), { ip: '10.0.0.2', ips: ['10.0.0.2', '192.168.0.3'] });
    assert.deepEqual(probe(['127.0.0.0/8', '192.168.0.3', '10.0.0.0/255.0.0.0']).ip, '203.0.113.7');
  });

  it('a function (addr, i) decides each hop', () => {
    const seen: Array<[string, number]> = [];
    const result = probe((addr: string, i: number) => {
      seen.push([addr, i]);
      return i < 2;
    });
    assert.deepEqual(result.ip, '10.0.0.2');
    assert.deepEqual(seen.slice(0, 3), [
      ['127.0.0.1', 0],
      ['192.168.0.3', 1],
      ['10.0.0.2', 2],
    ]);
  });

  it('IPv6 sockets and IPv4-mapped addresses', () => {
    assert.deepEqual(probe('loopback', '::1', { 'x-forwarded-for': '2001:db8::5' }), {
      ip: '2001:db8::5',
      ips: ['2001:db8::5'],
    });
    assert.deepEqual(probe('loopback', '::ffff:127.0.0.1', { 'x-forwarded-for': '203.0.113.9' }).ip, '203.0.113.9');
  });

  it('without X-Forwarded-For: the socket address even when trusted', () => {
    assert.deepEqual(probe(true, '127.0.0.1', {}), { ip: '127.0.0.1', ips: [] });
  });
});
