/**
 * The response methods whose modules load on first call (`lazyMethods`): each
 * stand-in on `webapp.response` has the name and arity of the method it loads,
 * the stand-ins cover their groups exactly, and a stand-in forwards `this`, every
 * argument and the return value, loading its group once. Whether those modules
 * are loaded before use is test/package/lazy-load.test.ts's (a fresh process).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express from 'express';
import webapp = require('../../src/index');
import { lazyMethods } from '../../src/define-prototype';
import { cookieMethods } from '../../src/response/cookies';
import { fileMethods } from '../../src/response/files';
import { formatMethods } from '../../src/response/format';
import { redirectMethods } from '../../src/response/redirect';

type AnyMethod = (...args: unknown[]) => unknown;

const GROUPS: Array<[string, Record<string, unknown>]> = [
  ['cookies', cookieMethods],
  ['files', fileMethods],
  ['format', formatMethods],
  ['redirect', redirectMethods],
];

describe('response methods loaded on first call', () => {
  for (const [group, methods] of GROUPS) {
    it(`webapp.response has a stand-in for every ${group} method, with its name and arity`, () => {
      const response = webapp.response as unknown as Record<string, AnyMethod>;
      const oracle = express.response as unknown as Record<string, AnyMethod>;
      for (const [name, method] of Object.entries(methods)) {
        const standIn = response[name]!;
        assert.equal(typeof standIn, 'function', name);
        assert.equal(standIn.name, name);
        assert.equal(standIn.length, (method as AnyMethod).length, `${name}.length`);
        assert.equal(standIn.length, oracle[name]!.length, `${name}.length in Express`);
      }
    });
  }

  it('forwards this, every argument and the result, and loads the group once', () => {
    let loads = 0;
    const group = {
      pair(this: { tag: string }, a: unknown, b: unknown) {
        return [this.tag, a, b, arguments.length];
      },
    };
    const standIns = lazyMethods<typeof group>({ pair: 2 }, () => {
      loads++;
      return group;
    });
    assert.equal(loads, 0);
    const target = { tag: 't', pair: standIns.pair };
    assert.deepEqual(target.pair('a', 'b'), ['t', 'a', 'b', 2]);
    assert.deepEqual((target.pair as AnyMethod)('only'), ['t', 'only', undefined, 1]);
    assert.deepEqual((target.pair as AnyMethod)(1, 2, 3), ['t', 1, 2, 3]);
    assert.equal(loads, 1);
    assert.equal(standIns.pair.name, 'pair');
    assert.equal(standIns.pair.length, 2);
  });

  it('passes an error thrown by the loaded method to the caller', () => {
    const standIns = lazyMethods({ fail: 0 }, () => ({
      fail() {
        throw new TypeError('from the group');
      },
    }));
    assert.throws(() => (standIns.fail as AnyMethod)(), { name: 'TypeError', message: 'from the group' });
  });
});
