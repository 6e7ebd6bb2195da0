import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { vhost } from '../../src/middleware/vhost';
import { itWithLiveOracle } from '../support/oracle-recording';
import { pick, prng } from '../support/prng';
import { assertSameAsConnect, echo, requestAll } from './support';

const connect = require('connect');

const show = echo((req) => ({ vhost: req.vhost ? { ...req.vhost } : null }));
const fallback = echo(() => 'fallback');

const hosts = [
  'foo.example.com',
  'FOO.example.com:8080',
  'bar.example.com',
  'example.com',
  'a.b.example.com',
  '[::1]:3000',
  'foo-example.com',
];
const requests = hosts.map((host) => ({ path: '/', headers: { host } }));

describe('vhost', () => {
  it('string patterns with * match Connect 2.30', async () => {
    for (const pattern of ['*.example.com', 'foo.example.com', 'example.com', '*']) {
      await assertSameAsConnect([connect.vhost(pattern, show), fallback], [vhost(pattern, show), fallback], requests);
    }
  });

  // webapp matches string patterns piece by piece, Connect with an expression: the
  // two must agree on every pattern and host, case, dots, overlaps and empty runs included.
  itWithLiveOracle('string patterns match Connect 2.30 on tricky and random hosts', 'random patterns', async () => {
    const tricky = ['a*a*a', 'a*a', '*a*a*', 'ab*ba', '*.*.*', 'A*b', '**', 'a**b'];
    const trickyHosts = ['a', 'aa', 'aaa', 'aba', 'abba', 'ababa', 'AB.BA', '..', '...', 'ab', 'Ab', 'b'];
    for (const pattern of tricky) {
      const requests = trickyHosts.map((host) => ({ path: '/', headers: { host } }));
      await assertSameAsConnect([connect.vhost(pattern, show), fallback], [vhost(pattern, show), fallback], requests);
    }
    const random = prng(0x7a05);
    const word = (from: string[], count: number) => Array.from({ length: count }, () => pick(random, from)).join('');
    for (let i = 0; i < 60; i++) {
      const pattern = word(['*', '*', 'a', 'b', 'A', '.', 'ab'], 1 + Math.floor(random() * 6));
      const requests = Array.from({ length: 16 }, () => ({
        path: '/',
        headers: { host: word(['a', 'b', 'A', '.', 'ab', 'ba'], 1 + Math.floor(random() * 6)) },
      }));
      await assertSameAsConnect([connect.vhost(pattern, show), fallback], [vhost(pattern, show), fallback], requests);
    }
  });

  it('RegExp patterns match Connect 2.30', async () => {
    for (const pattern of [/(\w+)\.example\.com/, /^foo/, /com$/]) {
      await assertSameAsConnect([connect.vhost(pattern, show), fallback], [vhost(pattern, show), fallback], requests);
    }
  });

  it('hands the request to an http.Server', async () => {
    const server = http.createServer((_req, res) => res.end('from server'));
    const [hit, miss] = await requestAll(
      [vhost('*.test', server), fallback],
      [
        { path: '/', headers: { host: 'a.test' } },
        { path: '/', headers: { host: 'a.other' } },
      ],
    );
    assert.equal(hit.body, 'from server');
    assert.equal(miss.body, '"fallback"');
  });

  it('validates its arguments', () => {
    assert.throws(() => vhost('', show as any), /hostname is required/);
    assert.throws(() => vhost('a', undefined as any), /handle is required/);
    assert.throws(() => vhost('a', {} as any), /handle must be a function/);
  });
});
