/**
 * Datadog's tracer (dd-trace) and New Relic's agent (newrelic) on an unmodified Express
 * app. Both instrument the `express` package only, so webapp runs with the recipe of
 * docs/tracing.md's section for each. The same app runs on express@4 and on webapp,
 * each in its own process under the agent; the responses, and what the agent recorded
 * of each request (the route it is named after, its status, the errors reported), must
 * be the same. What the page says is not reproduced (Datadog's span name and its
 * per-middleware spans) is left out of the comparison.
 *
 * webapp is loaded as an app loads it, from a project's node_modules (built). New
 * Relic's hook finds it by its path: once linked there (`npm link`, a workspace: the
 * real path has no node_modules in it) and once as npm installs it (run with
 * --preserve-symlinks, so the path Node loads it from goes through node_modules).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { withoutStackFrames, type RawResponse } from '../support/differential';
import { runInstrumentedApp } from '../support/instrumented-app';
import { scratchProject } from '../support/scratch-project';
import { newRelicOracle } from '../support/apm-oracles';

const project = scratchProject('webapp-apm-');
after(() => rmSync(project, { recursive: true, force: true }));

const PATHS = [
  '/api/users/42',
  '/items/7',
  '/items/bad',
  '/api/throw',
  '/api/teapot',
  '/mw/anything',
  '/login',
  '/unhandled',
  '/missing',
];

/** Runs the fixture under `agent` on `framework`, until `parse` has found a record per request in what it printed. */
async function observe<T>(
  agent: 'datadog' | 'newrelic',
  framework: 'express' | 'webapp',
  parse: (printed: string) => T[],
  installed = false,
): Promise<{ responses: RawResponse[]; records: T[] }> {
  let records: T[] = [];
  const responses = await runInstrumentedApp({
    args: [
      ...(installed ? ['--preserve-symlinks'] : []),
      // From the repository: the project's folder, the working directory, has no tsx.
      '--import',
      pathToFileURL(require.resolve('tsx')).href,
      join(__dirname, 'fixtures/apm-agent-app.ts'),
      agent,
      framework,
    ],
    cwd: project,
    paths: PATHS,
    // One record per request.
    arrived: (printed) => (records = parse(printed)).length >= PATHS.length,
  });
  // The final handler's pages show a stack, whose frames differ (and the agent's wrappers are in express@4's).
  return { responses: responses.map(withoutStackFrames), records };
}

interface DatadogSpan {
  name: string;
  resource: string;
  error: number;
  meta: Record<string, string | undefined>;
}

/** The server spans of the traces the tracer's log exporter printed (`{"traces":[[span, ...]]}` lines). */
function serverSpans(printed: string): DatadogSpan[] {
  const spans: DatadogSpan[] = [];
  // Whole lines only: a trace line longer than a pipe's atomic write may be read in parts.
  for (const line of printed.split('\n').slice(0, -1)) {
    if (!line.startsWith('{"traces":')) continue;
    const { traces } = JSON.parse(line) as { traces: DatadogSpan[][] };
    for (const span of traces.flat()) if (span.meta['span.kind'] === 'server') spans.push(span);
  }
  return spans;
}

/** What the recipe gives a request's span: Datadog's resource, route, status and error; not the span's name. */
function datadogRecord(span: DatadogSpan): string {
  const { resource, error, meta } = span;
  const failure = error ? `, error: ${meta['error.type']}: ${meta['error.message']}` : '';
  return `${meta['http.url']?.replace(/^http:\/\/[^/]+/, '')} -> ${resource} (route ${meta['http.route']}, ${meta['http.status_code']}${failure})`;
}

interface NewRelicTransaction {
  name: string;
  status: number;
  errors: string[];
}

function newRelicTransactions(printed: string): NewRelicTransaction[] {
  return [...printed.matchAll(/^transaction (.*)\n/gm)].map((line) => JSON.parse(line[1]) as NewRelicTransaction);
}

describe('APM agents with the docs/tracing.md recipes on webapp', () => {
  it("Datadog (dd-trace): the same answers; request spans get express@4's resource, route and errors", async () => {
    const theirs = await observe('datadog', 'express', serverSpans);
    const ours = await observe('datadog', 'webapp', serverSpans);
    for (const [i, path] of PATHS.entries()) assert.deepEqual(ours.responses[i], theirs.responses[i], path);
    // On express@4 the plugin names the span express.request; on webapp it stays the http plugin's web.request.
    assert.deepEqual(
      theirs.records.map((span) => span.name),
      PATHS.map(() => 'express.request'),
    );
    assert.deepEqual(
      ours.records.map((span) => span.name),
      PATHS.map(() => 'web.request'),
    );
    const expected = (paramError: string) => [
      '/api/users/42 -> GET /api/users/:id (route /api/users/:id, 200)',
      '/items/7 -> GET /items/:id (route /items/:id, 200)',
      // A param callback's error comes before the route's handler: no route yet, on either.
      `/items/bad -> GET (route undefined, 500, error: ${paramError})`,
      '/api/throw -> GET /api/throw (route /api/throw, 500, error: Error: sync boom)',
      '/api/teapot -> GET /api/teapot (route /api/teapot, 418)',
      '/mw/anything -> GET /mw (route /mw, 404)',
      '/login -> GET /login (route /login, 302)',
      '/unhandled -> GET /unhandled (route /unhandled, 500, error: Error: nobody answers)',
      '/missing -> GET (route undefined, 404)',
    ];
    // express@4's plugin marks that span failed by its status alone; the recipe has the error itself.
    assert.deepEqual(theirs.records.map(datadogRecord), expected('undefined: undefined'));
    assert.deepEqual(ours.records.map(datadogRecord), expected('Error: bad id'));
  });

  for (const installed of [false, true]) {
    const how = installed ? 'installed' : 'linked';
    it(
      `New Relic (newrelic), webapp ${how}: the same answers, express@4's transaction names and errors`,
      {
        skip: newRelicOracle,
      },
      async () => {
        const theirs = await observe('newrelic', 'express', newRelicTransactions);
        const ours = await observe('newrelic', 'webapp', newRelicTransactions, installed);
        for (const [i, path] of PATHS.entries()) assert.deepEqual(ours.responses[i], theirs.responses[i], path);
        // Both notice the same errors, transaction by transaction.
        assert.deepEqual(
          ours.records.map(({ status, errors }) => ({ status, errors })),
          theirs.records.map(({ status, errors }) => ({ status, errors })),
        );
        const names = (paramFailure: string) => [
          'WebTransaction/Expressjs/GET//api/users/:id',
          'WebTransaction/Expressjs/GET//items/:id',
          paramFailure,
          'WebTransaction/Expressjs/GET//api/throw',
          'WebTransaction/Expressjs/GET//api/teapot',
          'WebTransaction/Expressjs/GET/(not found)',
          'WebTransaction/Expressjs/GET//login',
          'WebTransaction/Expressjs/GET//unhandled',
          'WebTransaction/Expressjs/GET/(not found)',
        ];
        // A failed param callback: New Relic names it after the callback on express@4; webapp's
        // channels have no trace of param callbacks, so the agent's fallback name (docs/tracing.md).
        assert.deepEqual(
          theirs.records.map(({ name }) => name),
          names('WebTransaction/Expressjs/GET//[param handler :id]'),
        );
        assert.deepEqual(
          ours.records.map(({ name }) => name),
          names('WebTransaction/NormalizedUri/*'),
        );
        // The errors noticed so far, as each transaction ends: those raised, once each.
        assert.deepEqual(ours.records.at(-1)!.errors, ['bad id', 'sync boom', 'teapot', 'nobody answers']);
      },
    );
  }
});
