/**
 * Generated query strings and form bodies over real HTTP: Connect 2.30's `query()` and
 * `urlencoded()` against webapp/middleware's, an express@3.21 app against a webapp/v3
 * app. Cases come from test/querystring/qs4-generator.ts, without the ones where webapp
 * keeps a safe answer (asserted in test/querystring/qs4-dialect.test.ts). They need
 * Connect running: skipped where it cannot run, and never recorded.
 */
import { describe } from 'node:test';
import { assertSameResponses } from '../support/differential';
import { express3Pair } from '../support/legacy-oracles';
import { itWithLiveOracle } from '../support/oracle-recording';
import { prng } from '../support/prng';
import { query } from '../../src/middleware/query';
import { urlencoded } from '../../src/middleware/urlencoded';
import {
  CONNECT_QUERY_OPTIONS,
  bodyParserOptions,
  formBody,
  nestsDeeperThan,
  qs4,
  queryString,
  shadowsWithValue,
  withoutPrototypeKeys,
} from '../querystring/qs4-generator';
import { assertSameAsConnect, echo } from './support';

const connect = require('connect');

type Any = any;

const CASES = 60;

/** Generated inputs that `keep` accepts, `CASES` of them at most (from a bounded number of tries). */
function inputs(seed: number, make: (random: () => number) => string, keep: (input: string) => boolean): string[] {
  const random = prng(seed);
  const out: string[] = [];
  for (let tries = 0; tries < CASES * 10 && out.length < CASES; tries++) {
    const input = make(random);
    if (keep(input)) out.push(input);
  }
  return out;
}

const comparedQuery = (input: string): boolean =>
  !shadowsWithValue(input, qs4.parse(input, { ...CONNECT_QUERY_OPTIONS }));

describe('generated query strings and form bodies against Connect 2.30 (qs 4)', () => {
  itWithLiveOracle('query(): req.query as Connect gives it', 'generated query strings', async () => {
    // Keys naming Object.prototype members are dropped by webapp (a security fix): left out.
    const cases = inputs(0x51, queryString, (input) => withoutPrototypeKeys(input) === input && comparedQuery(input));
    const show = echo((req) => req.query);
    await assertSameAsConnect(
      [connect.query(), show],
      [query(), show],
      cases.map((input) => ({ path: '/?' + input })),
    );
  });

  itWithLiveOracle('webapp/v3 req.query as express@3.21 gives it', 'generated query strings', async () => {
    const cases = inputs(0x52, queryString, comparedQuery);
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.get('/', (req: Any, res: Any) => res.json(req.query));
        return app;
      },
      cases.map((input) => ({ path: '/?' + input })),
      express3Pair,
    );
  });

  itWithLiveOracle('urlencoded(): extended bodies as Connect parses them', 'generated form bodies', async () => {
    const cases = inputs(
      0x53,
      formBody,
      (body) => !nestsDeeperThan(body, 32) && !shadowsWithValue(body, qs4.parse(body, bodyParserOptions(body))),
    );
    const show = echo((req) => req.body ?? null);
    await assertSameAsConnect(
      [connect.urlencoded(), show],
      [urlencoded(), show],
      cases.map((body) => ({
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      })),
    );
  });
});
