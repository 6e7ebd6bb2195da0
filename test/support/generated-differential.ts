/**
 * Generated differential tests: thousands of cases, each a request to the same app
 * built on express@4 and on webapp, one server per framework, answers compared
 * whole (status, every header line in order, body). The cases live in the test
 * process: a request names its case by number (`/c/<n>`), so a case's arguments
 * can be anything JavaScript holds (Dates, NaN, functions, objects with
 * prototype keys), not only what a URL can carry.
 */
import type http from 'node:http';
import { inspect } from 'node:util';
import express from 'express';
import webapp = require('../../src/index');
import { answersOf, assertNoDifferences, isDeepStrictEqual, type Answer } from './generated-answers';
import { pick, type Random } from './prng';
import type { RequestSpec } from './raw-http';

export type Framework = typeof express;

export interface GeneratedOptions<Case> {
  /** Describes a case in a failure message (default: util.inspect of the case). */
  describe?: (item: Case, index: number) => string;
  /** The request for a case (default: GET /c/<n>). */
  request?: (item: Case, index: number) => RequestSpec;
  /** Applied to both answers of a case before comparing. */
  normalize?: (answer: Answer, item: Case) => Answer;
  /** How many differences to show (the count is always given). */
  shown?: number;
}

/**
 * Builds the app with `define` on express@4 and on webapp, sends one request per
 * case to each, and asserts equal answers; a failure lists the first differing
 * cases with their arguments. Returns webapp's answers.
 */
export async function assertSameGenerated<Case>(
  define: (framework: Framework, cases: readonly Case[]) => http.RequestListener,
  cases: readonly Case[],
  options: GeneratedOptions<Case> = {},
): Promise<Answer[]> {
  const request = options.request ?? ((_item: Case, index: number): RequestSpec => ({ path: `/c/${index}` }));
  const requests = cases.map(request);
  const expected = await answersOf(define(express, cases), requests, { raw: true });
  const actual = await answersOf(define(webapp as unknown as Framework, cases), requests, { raw: true });
  const normalize = options.normalize ?? ((answer: Answer) => answer);
  const describe =
    options.describe ?? ((item: Case) => inspect(item, { depth: 4, breakLength: Infinity, maxStringLength: 120 }));
  const differences: string[] = [];
  for (let i = 0; i < cases.length; i++) {
    const want = normalize(expected[i], cases[i]);
    const got = normalize(actual[i], cases[i]);
    if (!isDeepStrictEqual(got, want)) {
      differences.push(
        `#${i} ${describe(cases[i], i)} ${inspect(requests[i].headers ?? {}, { breakLength: Infinity })}\n` +
          `  express: ${inspect(want, { breakLength: Infinity, maxStringLength: 300 })}\n` +
          `  webapp:  ${inspect(got, { breakLength: Infinity, maxStringLength: 300 })}`,
      );
    }
  }
  assertNoDifferences(differences, cases.length, 'generated cases differ from express@4', options.shown);
  return actual;
}

/** Strings a caller may pass by mistake or by malice: empty, odd, control, non-ASCII, long, numeric. */
export const ODD_STRINGS: readonly string[] = [
  '',
  ' ',
  'a',
  'foo',
  'Foo-Bar',
  '0',
  '1',
  '-1',
  '1e3',
  ' 42 ',
  'NaN',
  'Infinity',
  'null',
  'undefined',
  'true',
  'é',
  'café',
  '☃',
  '😀',
  '\ud800',
  'a\u2028b',
  '\x00',
  'a\tb',
  'a\r\nX-Injected: 1',
  '\n',
  '\x7f',
  'a;b',
  'a,b',
  'a=b',
  '"quoted"',
  "it's",
  'a b',
  '%',
  '%zz',
  '%41',
  '%E2%82%AC',
  'a/b',
  'a\\b',
  '../x',
  '<script>',
  '&amp;',
  '__proto__',
  'constructor',
  'toString',
  'x'.repeat(300),
  'é'.repeat(2000),
];

/** Values of every type, strings among them. */
export function oddValue(random: Random, depth = 0): unknown {
  const roll = Math.floor(random() * 22);
  switch (roll) {
    case 0:
      return undefined;
    case 1:
      return null;
    case 2:
      return NaN;
    case 3:
      return pick(random, [0, 1, -1, 1.5, -0, 200, 404, 999, 1e21, 2 ** 53, Infinity, -Infinity]);
    case 4:
      return random() < 0.5;
    case 5:
      return new Date(pick(random, [0, 1, 1e12, -1, 8.64e15, NaN]));
    case 6:
      return depth > 1 ? [] : [oddValue(random, depth + 1), oddValue(random, depth + 1)];
    case 7:
      return depth > 1 ? {} : { a: oddValue(random, depth + 1) };
    case 8:
      return JSON.parse('{"__proto__": {"x": 1}, "constructor": "c"}');
    case 9:
      return Object.create({ inherited: 'yes' });
    case 10:
      return Buffer.from('buf');
    case 11:
      return () => 'fn';
    case 12:
      return Symbol.for('s');
    case 13:
      return 10n;
    default:
      return pick(random, ODD_STRINGS);
  }
}

/** A string of up to `max` pieces drawn from `alphabet` (characters or short runs). */
export function randomText(random: Random, alphabet: readonly string[], max: number): string {
  let text = '';
  const length = Math.floor(random() * (max + 1));
  for (let i = 0; i < length; i++) text += pick(random, alphabet);
  return text;
}
