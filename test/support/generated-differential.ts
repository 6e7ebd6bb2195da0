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
