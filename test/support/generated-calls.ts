/**
 * Function-level differentials: one of webapp's functions and the package (or older
 * module) it stands in for, called with the same seeded inputs; each answer, or the
 * message each throws, must be the same. Used by test/http/generated-parsers.test.ts
 * and test/v3/generated-helpers.test.ts.
 */
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { pick, prng, type Random } from './prng';

/** What a call did: its value, or the message it threw. */
export function outcome(call: () => unknown): unknown {
  try {
    return { value: call() };
  } catch (error) {
    return { threw: (error as Error).message };
  }
}

/** A string of `count` pieces drawn from `pieces`. */
export function made(random: Random, pieces: readonly string[], count = 1 + Math.floor(random() * 8)): string {
  let text = '';
  for (let i = 0; i < count; i++) text += pick(random, pieces);
  return text;
}

export interface CallPair<T> {
  /** Labels the two sides in a failure message. */
  names: [ours: string, theirs: string];
  /** How an outcome is written for comparing: two outcomes are the same when these are. */
  render: (outcome: unknown) => string;
  ours: (input: T) => unknown;
  theirs: (input: T) => unknown;
}

/** Calls both sides with `cases` inputs drawn with `seed`; fails listing the first differences. */
export function assertSameCalls<T>(seed: number, cases: number, input: (random: Random) => T, pair: CallPair<T>): void {
  const random = prng(seed);
  const differences: string[] = [];
  const [ourName, theirName] = pair.names.map((name) => (name + ':').padEnd(10));
  for (let i = 0; i < cases; i++) {
    const value = input(random);
    const mine = pair.render(outcome(() => pair.ours(value)));
    const expected = pair.render(outcome(() => pair.theirs(value)));
    if (mine !== expected) differences.push(`${inspect(value)}\n    ${ourName}${mine}\n    ${theirName}${expected}`);
  }
  assert.equal(
    differences.length,
    0,
    `${differences.length} of ${cases} differ:\n  ${differences.slice(0, 5).join('\n  ')}`,
  );
}
