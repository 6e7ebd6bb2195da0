/**
 * The bench harness's own logic (bench/lib, scripts/node-lines.mjs): reading wrk's
 * latency report, the options (Node lines, measurements), and the targets check
 * computed from a run's numbers. No load is generated here.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
// @ts-expect-error plain ESM without types
import { parseWrk } from '../../bench/lib/loaders.mjs';
// @ts-expect-error plain ESM without types
import { parseOptions } from '../../bench/lib/options.mjs';
// @ts-expect-error plain ESM without types
import { SCENARIOS } from '../../bench/lib/scenarios.mjs';
// @ts-expect-error plain ESM without types
import { checkTargets } from '../../bench/lib/targets.mjs';
// @ts-expect-error plain ESM without types
import { parseLine, takeNodeOption } from '../../scripts/node-lines.mjs';

const WRK_LATENCY = `Running 2s test @ http://127.0.0.1:1234/
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     3.10ms    1.20ms  40.00ms   90.00%
  Latency Distribution
     50%    2.90ms
     75%    3.20ms
     90%    4.10ms
     99%  850.00us
  40000 requests in 2.00s, 5.00MB read
  Non-2xx or 3xx responses: 3
Requests/sec:  20000.50
Transfer/sec:      2.50MB
`;

describe('bench harness', () => {
  it('reads req/s, bad answers and the p99 (in ms, whatever unit wrk prints)', () => {
    assert.deepEqual(parseWrk(WRK_LATENCY), { rps: 20000.5, bad: 3, p99: 0.85 });
    assert.equal(parseWrk(WRK_LATENCY.replace('850.00us', '1.50s')).p99, 1500);
    assert.equal(parseWrk(WRK_LATENCY.replace(/ {5}99%.*\n/, '')).p99, null);
    assert.throws(() => parseWrk('wrk: connection refused'), /unexpected wrk output/);
  });

  it('takes --node lists for the bench and the tests, and rejects what is not a Node line', () => {
    assert.deepEqual(parseOptions(['--node', '20,26']).nodeLines, ['20', '26']);
    assert.equal(parseOptions([]).nodeLines, null);
    assert.deepEqual(parseOptions(['--extras=none']).extras, []);
    assert.deepEqual(parseOptions(['--extras=rss,start']).extras, ['rss', 'start']);
    assert.throws(() => parseOptions(['--extras=speed']), /unknown measurement: speed/);
    assert.throws(() => parseOptions(['--node=latest']), /not a Node line/);
    assert.deepEqual(takeNodeOption(['--node', '22,24', 'test/compat', '--node=v26.1']), {
      lines: ['22', '24', '26.1'],
      rest: ['test/compat'],
    });
    assert.deepEqual(takeNodeOption(['test/x']), { lines: null, rest: ['test/x'] });
    assert.throws(() => takeNodeOption(['--node']), /needs a list of Node lines/);
    assert.equal(parseLine(' 26.10.0 '), '26.10.0');
    assert.throws(() => parseLine('26; rm -rf /'), /not a Node line/);
  });

  it('names every scenario of the speed plan once', () => {
    const ids = SCENARIOS.map((scenario: { id: string }) => scenario.id);
    assert.deepEqual(ids, [
      'hello',
      'json',
      'routes10',
      'routes100',
      'routes1000',
      'mw5',
      'mw100',
      'routers3',
      'body-1kb',
      'body-100kb',
      'form',
      'query',
      'static-4kb',
      'static-1mb',
      'sendfile',
      'ejs',
      'gzip',
      'cookies',
    ]);
  });

  it('checks the targets: ratios to node:http and fastify, routes, per-middleware cost, p99, RSS, cold start', () => {
    const rounds = (rps: number) => ({ rounds: [rps], bad: 0 });
    const scenarios = SCENARIOS.filter((scenario: { id: string }) =>
      ['hello', 'routes10', 'routes1000', 'mw5', 'mw100', 'ejs'].includes(scenario.id),
    );
    const results = {
      hello: { 'node-http': rounds(10000), fastify: rounds(9000), webapp: rounds(9600) },
      routes10: { 'node-http': rounds(10000), fastify: rounds(9800), webapp: rounds(9700) },
      routes1000: { 'node-http': rounds(10000), fastify: rounds(9500), webapp: rounds(9000) },
      // 5 middlewares: 1/9000 - 1/9600 s over 5 = 1.389 µs each; 100: 1/6000 - 1/9600 over 100 = 0.625 µs each.
      mw5: { 'node-http': rounds(10000), fastify: rounds(9000), webapp: rounds(9000) },
      mw100: { 'node-http': rounds(10000), fastify: rounds(5000), webapp: rounds(6000) },
      ejs: { 'node-http': rounds(3000), fastify: { skipped: 'n/a' }, webapp: rounds(2900) },
    };
    const MB = 1024 * 1024;
    const extras = {
      'node-http': { p99: 10, rss: 50 * MB, start: 40 },
      webapp: { p99: 11.5, rss: 52 * MB, start: 49 },
    };
    const rows = checkTargets({ scenarios, results, extras, stat: 'best' });
    const byTarget = Object.fromEntries(
      rows.map((row: { target: string; result: string }) => [row.target.split(':')[0], row.result]),
    );
    assert.deepEqual(byTarget, {
      hello: 'pass', // 0.96 of node:http, ahead of fastify
      routes10: 'FAIL', // 0.97 of node:http, behind fastify
      routes1000: 'FAIL', // 0.90 of node:http
      mw5: 'FAIL', // level with fastify is fine, 0.90 of node:http is not
      mw100: 'FAIL',
      ejs: 'pass', // fastify n/a: node:http alone decides
      routes: 'FAIL', // 9000 < 0.95 × 9700
      middlewares: 'pass', // 0.625 µs ≤ 1.389 µs
      'p99 latency at 64 connections ≤ 1.1× node': 'FAIL', // 11.5 > 11
      'RSS after 10,000 requests ≤ node': 'pass',
      'cold start ≤ node': 'pass',
    });
    const missing = checkTargets({ scenarios: [], results: {}, extras: null, stat: 'best' });
    assert.ok(missing.every((row: { result: string }) => row.result === 'n/a'));
  });
});
