import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasBody, matchMediaType, typeIs } from '../../src/http/type-is';

const reference = require('type-is');

const ACTUALS = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'text/html',
  'text/plain; charset="utf-8"',
  'application/vnd.api+json',
  'application/ld+json; profile=x',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'image/svg+xml',
  'text/',
  '/json',
  'json',
  '',
  'application/json;',
  'application/json; foo',
  'application/json ; a=b',
  'text/plain; charset=utf-8; charset=latin1',
  'a/b/c',
  'text/plain\u0000',
  'application/+json',
  'x/y+',
  'application/octet-stream',
  'a/b+c+d',
  'a/b++',
  'a/b+c!',
  'a/.b',
  ' text/html ',
  'text/html;charset=utf-8',
];
const TYPE_LISTS: unknown[][] = [
  [],
  ['json'],
  ['application/json'],
  ['html'],
  ['text/*'],
  ['*/json'],
  ['*/*'],
  ['+json'],
  ['*/*+json'],
  ['application/*'],
  ['urlencoded'],
  ['multipart'],
  ['multipart/*'],
  ['json', 'urlencoded'],
  ['html', 'json'],
  ['nope'],
  ['svg'],
  ['xml', '+xml'],
  ['text/html', 'text/plain'],
  [null],
  [1],
  ['application/vnd.api+json'],
  ['bin'],
  ['*/*', 'json'],
  ['json', '*/*'],
  ['TEXT/*'],
];

describe('matchMediaType', () => {
  it('matches as type-is does (extensions, wildcards, +suffix, urlencoded, multipart)', () => {
    for (const actual of ACTUALS) {
      for (const types of TYPE_LISTS) {
        assert.deepEqual(
          matchMediaType(actual, types),
          reference.is(actual, types),
          `${JSON.stringify(actual)} ${JSON.stringify(types)}`,
        );
      }
    }
  });

  it('is false for a missing value', () => {
    assert.equal(matchMediaType(undefined, ['json']), false);
    assert.equal(reference.is(undefined, ['json']), false);
  });
});

describe('typeIs / hasBody', () => {
  const requests = [
    { headers: {} },
    { headers: { 'content-type': 'application/json' } },
    { headers: { 'content-type': 'application/json', 'content-length': '0' } },
    { headers: { 'content-type': 'application/json', 'content-length': '12' } },
    { headers: { 'content-type': 'text/html; charset=utf-8', 'transfer-encoding': 'chunked' } },
    { headers: { 'transfer-encoding': 'chunked' } },
    { headers: { 'content-type': 'application/json', 'content-length': 'abc' } },
    { headers: { 'content-type': 'bogus', 'content-length': '3' } },
  ];

  it('returns null without a body, the match or false otherwise, as type-is does', () => {
    for (const req of requests) {
      assert.equal(hasBody(req), reference.hasBody(req), JSON.stringify(req));
      for (const types of TYPE_LISTS) {
        assert.deepEqual(typeIs(req, types), reference(req, types), `${JSON.stringify(req)} ${JSON.stringify(types)}`);
      }
    }
  });
});
