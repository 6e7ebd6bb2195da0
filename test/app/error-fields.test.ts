/**
 * Loading webapp leaves `Error` as V8 holds it. The probes that tell Node's response
 * methods from patches (src/response/node-own.ts) and the deprecation notices
 * (src/http/deprecate.ts) raise `Error.stackTraceLimit` for a moment and put back
 * what was there. What they set must be an integer V8 keeps as a small integer: one
 * double (`Infinity`), even put back at once, changes how V8 holds that field, and from
 * then on every optimized `instanceof Error` of the process is a generic call, ten
 * times slower (Node's HTTP parser makes one per request; bench/README.md,
 * "`instanceof Error` after a probe"). Checked in a fresh process whose
 * `Error.stackTraceLimit` records what is stored in it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const SMALL_INTEGER_MAX = 2 ** 30 - 1;

const script = `
const stored = [];
let limit = Error.stackTraceLimit;
Object.defineProperty(Error, 'stackTraceLimit', {
  configurable: true,
  enumerable: true,
  get: () => limit,
  set: (value) => { stored.push(value); limit = value; },
});
const webapp = require(${JSON.stringify(join(__dirname, '../../src/index'))});
const { deprecate } = require(${JSON.stringify(join(__dirname, '../../src/http/deprecate'))});
webapp().get('/', (req, res) => res.send('ok'));
deprecate('a notice, to run its stack capture');
console.log(JSON.stringify(stored.map(String)));
`;

describe('Error.stackTraceLimit while webapp loads and warns', () => {
  it('is only ever set to small integers, so V8 keeps its fast instanceof Error', () => {
    // The notice goes to the child's stderr, kept out of the test's output.
    const out = execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stored: string[] = JSON.parse(out.trim().split('\n').pop()!);
    // The load's probes set it (and put it back): the check looks at something.
    assert.ok(stored.length >= 2, `set ${stored.length} times`);
    for (const value of stored) {
      const number = Number(value);
      assert.ok(Number.isInteger(number) && Math.abs(number) <= SMALL_INTEGER_MAX, `stored ${value}`);
    }
  });
});
