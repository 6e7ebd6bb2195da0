/**
 * Generated differentials of webapp/middleware against Connect 2.30: the same
 * middleware chain built on Connect and on the chain runner of ./support, one
 * server per side, thousands of generated requests sent to both over kept-alive
 * connections on 127.0.0.1, and the answers compared whole (status, every header
 * but the volatile ones, body). A failure lists the first differing cases.
 *
 * The requests are random (seeded), so these tests run only where Connect 2.30
 * runs (`itWithLiveOracle`): nothing is recorded for them.
 */
import { inspect } from 'node:util';
import { chain, connectApp, sendError, type Handler, type RequestSpec } from './support';
import {
  answersOf,
  assertNoDifferences,
  headerRecord,
  isDeepStrictEqual,
  type Answer as GeneratedAnswer,
  type HeaderRecord,
} from '../support/generated-answers';
import type { Random } from '../support/prng';

export { pick, prng, chance, type Random } from '../support/prng';

/** An answer as compared: headers as Node's client joins them, lower-cased, the volatile ones left out. */
export type Answer = GeneratedAnswer<HeaderRecord>;

/** Which side a chain is built for, or an answer came from. */
export type Side = 'connect' | 'webapp';

export interface GeneratedOptions<Case> {
  /** The request for a case. */
  request: (item: Case, index: number) => RequestSpec;
  /** Applied to both answers of a case before comparing (masks values random on both sides). */
  normalize?: (answer: Answer, item: Case, side: Side) => Answer;
  /**
   * Differences kept on purpose (where Connect 2.30's answer is a security defect):
   * true when the pair is such a case and webapp's answer is the safe one asserted there.
   */
  accepted?: (connect: Answer, webapp: Answer, item: Case) => boolean;
  /** Describes a case in a failure message (default: util.inspect of the case). */
  describe?: (item: Case, index: number) => string;
  /** Requests in flight at once per side (1 for cases that depend on order). */
  parallel?: number;
  /** How many differences to show (the count is always given). */
  shown?: number;
}

/**
 * Builds the chain with `handlers` (called once per side: Connect 2.30's middleware,
 * then webapp's), sends one request per case to each, and asserts equal answers.
 * Connect's side ends an unhandled error as ./support's `sendError` does on ours.
 * Returns webapp's answers.
 */
export async function assertSameGenerated<Case>(
  handlers: (side: Side) => Handler[],
  cases: readonly Case[],
  options: GeneratedOptions<Case>,
): Promise<Answer[]> {
  const requests = cases.map(options.request);
  const parallel = options.parallel ?? 8;
  const sending = { parallel, headers: headerRecord() };
  const expected = await answersOf(connectApp(handlers('connect')), requests, sending);
  const actual = await answersOf(chain([...handlers('webapp'), sendError]), requests, sending);
  const normalize = options.normalize ?? ((answer: Answer) => answer);
  const describe =
    options.describe ?? ((item: Case) => inspect(item, { depth: 4, breakLength: Infinity, maxStringLength: 160 }));
  const differences: string[] = [];
  for (let i = 0; i < cases.length; i++) {
    const want = normalize(expected[i], cases[i], 'connect');
    const got = normalize(actual[i], cases[i], 'webapp');
    if (!isDeepStrictEqual(got, want) && !options.accepted?.(want, got, cases[i])) {
      const request = requests[i];
      differences.push(
        `#${i} ${describe(cases[i], i)}\n` +
          `  request: ${inspect(request, { breakLength: Infinity, maxStringLength: 200 })}\n` +
          `  connect: ${inspect(want, { breakLength: Infinity, maxStringLength: 400 })}\n` +
          `  webapp:  ${inspect(got, { breakLength: Infinity, maxStringLength: 400 })}`,
      );
    }
  }
  assertNoDifferences(differences, cases.length, 'generated cases differ from Connect 2.30', options.shown ?? 6);
  return actual;
}

/** Replaces, in a header of `answer` (every value of a list), what `pattern` matches. */
export function maskHeader(answer: Answer, name: string, pattern: RegExp, replacement: string): Answer {
  const value = answer.headers[name];
  if (value === undefined) return answer;
  const masked = Array.isArray(value)
    ? value.map((item) => item.replace(pattern, replacement))
    : value.replace(pattern, replacement);
  return { ...answer, headers: { ...answer.headers, [name]: masked } };
}

/** A whole number from `min` to `max` included. */
export function between(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** `count` items made by `make`, joined with `separator`. */
export function repeat(count: number, make: () => string, separator = ''): string {
  return Array.from({ length: count }, make).join(separator);
}

/**
 * Text a client may put in a header value (Node's client refuses control
 * characters but tab, and anything above 0xff): odd ASCII, latin1 and nothing.
 */
export const HEADER_TEXT: readonly string[] = [
  '',
  ' ',
  '  ',
  '\t',
  'a',
  'tj',
  'tobi',
  'Foo',
  '0',
  '=',
  '==',
  ':',
  '::',
  ';',
  ',',
  '"',
  '%',
  '%zz',
  '%41',
  '%E2%82%AC',
  '%C3',
  '\xe9',
  '\xa0',
  'caf\xe9',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'j:',
  's:',
  'j:{"a":1}',
  'j:[1,2]',
  'j:"x"',
  'j:1',
  'j:null',
  'j:{',
  '+',
  '/',
  '\\',
  '.',
  'x'.repeat(300),
];
