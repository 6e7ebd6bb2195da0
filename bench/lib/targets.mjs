// The targets webapp is held to (the performance plan in bench/README.md, "Targets check"), checked
// on one Node line's results: each row says what was compared and pass / fail
// (or n/a when a number it needs was not measured in this run).
import { rateOf } from './report.mjs';

const SUBJECT = 'webapp';
const CEILING_SHARE = 0.95;
const ROUTES_SHARE = 0.95;
const P99_FACTOR = 1.1;
const RSS_MARGIN_BYTES = 3 * 1024 * 1024;
const START_MARGIN_MS = 10;

const verdict = (passed) => (passed ? 'pass' : 'FAIL');
const fixed = (value, digits = 2) => value.toFixed(digits);

function scenarioTarget(scenario, byFramework, stat) {
  const own = rateOf(byFramework[SUBJECT], stat);
  const ceiling = rateOf(byFramework['node-http'], stat);
  const fastify = rateOf(byFramework.fastify, stat);
  const target = `${scenario.id}: ≥ ${CEILING_SHARE}× node:http and ≥ fastify`;
  if (own === null || ceiling === null || ceiling <= 0)
    return { target, measured: 'webapp or node:http not measured', result: 'n/a' };
  const ratio = own / ceiling;
  let passed = ratio >= CEILING_SHARE;
  let measured = `${fixed(ratio)}× node:http`;
  if (fastify !== null) {
    measured += `, fastify ${fixed(fastify / ceiling)}×`;
    passed = passed && own >= fastify;
  } else measured += ', fastify n/a';
  return { target, measured, result: verdict(passed) };
}

function routesTarget(results, stat) {
  const target = `routes: last of 1,000 within ${Math.round((1 - ROUTES_SHARE) * 100)}% of last of 10`;
  const few = rateOf(results.routes10?.[SUBJECT], stat);
  const many = rateOf(results.routes1000?.[SUBJECT], stat);
  if (few === null || many === null || few <= 0)
    return { target, measured: 'routes10 and routes1000 needed', result: 'n/a' };
  return {
    target,
    measured: `${fixed(many / few)}× (${Math.round(many)} vs ${Math.round(few)} req/s)`,
    result: verdict(many >= ROUTES_SHARE * few),
  };
}

/** Microseconds each middleware adds to a request: (1/rate(mwN) - 1/rate(hello)) / N. */
function perMiddleware(rate, helloRate, count) {
  return ((1 / rate - 1 / helloRate) / count) * 1e6;
}

function middlewareTarget(results, stat) {
  const target = 'middlewares: cost per middleware with 100 ≤ with 5';
  const hello = rateOf(results.hello?.[SUBJECT], stat);
  const five = rateOf(results.mw5?.[SUBJECT], stat);
  const hundred = rateOf(results.mw100?.[SUBJECT], stat);
  if (!hello || !five || !hundred) return { target, measured: 'hello, mw5 and mw100 needed', result: 'n/a' };
  const costFive = perMiddleware(five, hello, 5);
  const costHundred = perMiddleware(hundred, hello, 100);
  // With 5 middlewares the cost can vanish in the noise (≤ 0): then 100 must not cost more than noise either.
  return {
    target,
    measured: `${fixed(costHundred, 3)} µs with 100, ${fixed(costFive, 3)} µs with 5`,
    result: verdict(costHundred <= Math.max(costFive, 0)),
  };
}

function extraTarget(extras, key, target, compare, describe) {
  const own = extras?.[SUBJECT]?.[key];
  const base = extras?.['node-http']?.[key];
  if (own === null || own === undefined || base === null || base === undefined)
    return { target, measured: 'not measured', result: 'n/a' };
  return { target, measured: describe(own, base), result: verdict(compare(own, base)) };
}

/** The rows of the targets check for one Node line. */
export function checkTargets({ scenarios, results, extras, stat }) {
  const mb = (bytes) => `${fixed(bytes / 1024 / 1024, 1)} MB`;
  return [
    ...scenarios.map((scenario) => scenarioTarget(scenario, results[scenario.id] || {}, stat)),
    routesTarget(results, stat),
    middlewareTarget(results, stat),
    extraTarget(
      extras,
      'p99',
      `p99 latency at 64 connections ≤ ${P99_FACTOR}× node:http`,
      (own, base) => own <= P99_FACTOR * base,
      (own, base) => `${fixed(own)} ms vs ${fixed(base)} ms`,
    ),
    extraTarget(
      extras,
      'rss',
      'RSS after 10,000 requests ≤ node:http + 3 MB',
      (own, base) => own <= base + RSS_MARGIN_BYTES,
      (own, base) => `${mb(own)} vs ${mb(base)}`,
    ),
    extraTarget(
      extras,
      'start',
      `cold start ≤ node:http + ${START_MARGIN_MS} ms`,
      (own, base) => own <= base + START_MARGIN_MS,
      (own, base) => `${fixed(own, 0)} ms vs ${fixed(base, 0)} ms`,
    ),
  ];
}
