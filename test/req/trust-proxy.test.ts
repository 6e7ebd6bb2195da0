/**
 * `trust proxy` in every form, through a real app and HTTP: the core compiles the
 * setting, the request properties read it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import webapp = require('../../src/index');

type Any = any;

function probe(trust: unknown) {
  const app: Any = webapp();
  if (trust !== undefined) app.set('trust proxy', trust);
  app.get('/', (req: Any, res: Any) =>
    res.json({ ip: req.ip, ips: req.ips, protocol: req.protocol, secure: req.secure, hostname: req.hostname }),
  );
  return app;
}

const FORWARDED = {
  'X-Forwarded-For': '203.0.113.7, 10.0.0.2',
  'X-Forwarded-Proto': 'https',
  'X-Forwarded-Host': 'public.example.com',
  Host: 'internal:8080',
};

async function get(trust: unknown) {
  const res = await request(probe(trust)).get('/').set(FORWARDED).expect(200);
  return res.body;
}

const socketAddress = (ip: string) => ip.replace(/^::ffff:/, '');

describe('trust proxy', () => {
  it('unset or false: nothing forwarded is believed', async () => {
    for (const trust of [undefined, false]) {
      const body = await get(trust);
      assert.equal(socketAddress(body.ip), '127.0.0.1');
      assert.deepEqual(body.ips, []);
      assert.equal(body.protocol, 'http');
      assert.equal(body.secure, false);
      assert.equal(body.hostname, 'internal');
    }
  });

  it('true: every hop is trusted', async () => {
    assert.deepEqual(await get(true), {
      ip: '203.0.113.7',
      ips: ['203.0.113.7', '10.0.0.2'],
      protocol: 'https',
      secure: true,
      hostname: 'public.example.com',
    });
  });

  it('a hop count', async () => {
    assert.deepEqual(await get(1), {
      ip: '10.0.0.2',
      ips: ['10.0.0.2'],
      protocol: 'https',
      secure: true,
      hostname: 'public.example.com',
    });
    assert.equal((await get(2)).ip, '203.0.113.7');
  });

  it('names, subnets, comma lists and arrays', async () => {
    assert.equal((await get('loopback')).ip, '10.0.0.2');
    assert.equal((await get('loopback, uniquelocal')).ip, '203.0.113.7');
    assert.equal((await get(['loopback', '10.0.0.0/8'])).ip, '203.0.113.7');
    assert.equal((await get('127.0.0.1/32')).hostname, 'public.example.com');
    const untrusted = await get('linklocal');
    assert.equal(untrusted.hostname, 'internal');
    assert.equal(untrusted.protocol, 'http');
  });

  it('a function of (addr, i)', async () => {
    assert.equal((await get((_addr: string, i: number) => i < 1)).ip, '10.0.0.2');
    assert.equal((await get(() => false)).hostname, 'internal');
  });

  it('a bad value throws when set, as proxy-addr compile does', () => {
    const app: Any = webapp();
    assert.throws(() => app.set('trust proxy', 'not-an-ip'), TypeError);
  });
});
