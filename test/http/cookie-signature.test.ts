import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sign, unsign } from '../../src/http/cookie-signature';

const reference: {
  sign(v: string, s: string): string;
  unsign(v: string, s: string): string | false;
} = require('cookie-signature');

describe('cookie signatures', () => {
  it('signs exactly as cookie-signature does', () => {
    for (const value of ['', 'hello', 'a.b.c', 'ünïcode', 'j:{"a":1}'])
      assert.equal(sign(value, 'secret'), reference.sign(value, 'secret'));
  });
  it('unsigns valid values and rejects tampering', () => {
    const signed = sign('user=1', 'k');
    assert.equal(unsign(signed, 'k'), 'user=1');
    assert.equal(unsign(signed, 'other'), false);
    assert.equal(unsign(signed.slice(0, -1) + 'x', 'k'), false);
    assert.equal(unsign('user=2' + signed.slice(6), 'k'), false);
    assert.equal(unsign('nodot', 'k'), false);
    for (const input of [signed, 'nodot', 'a.b', '.']) assert.equal(unsign(input, 'k'), reference.unsign(input, 'k'));
  });
  it('requires a secret', () => {
    assert.throws(() => sign('x', undefined as never), /Secret key must be provided/);
  });
});
