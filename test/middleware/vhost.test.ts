import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { vhost } from '../../src/middleware/vhost';
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
