import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { appendVary } from '../../src/http/vary';

const reference: { append(header: string, field: string | string[]): string } = require('vary');

describe('appendVary', () => {
  const cases: Array<[string, string | string[]]> = [
    ['', 'Accept'],
    ['Accept', 'accept'],
    ['Accept', 'Accept-Encoding'],
    ['Accept, Origin', ['origin', 'Cookie']],
    ['*', 'Accept'],
    ['Accept', '*'],
    ['', 'Accept,  Origin'],
    ['accept', ['Accept', 'ACCEPT']],
    ['X', 'Y, *'],
  ];
  it("gives the vary package's results", () => {
    for (const [header, field] of cases)
      assert.equal(appendVary(header, field), reference.append(header, field), `${header} + ${field}`);
  });
  it('rejects invalid header names and missing arguments', () => {
    assert.throws(() => appendVary('', 'bad header'), /invalid header name/);
    assert.throws(() => appendVary('', 'a:b'), /invalid header name/);
    assert.throws(() => appendVary('', ''), /field argument is required/);
  });
});
