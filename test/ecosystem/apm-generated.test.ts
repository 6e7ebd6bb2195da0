/**
 * What Datadog's tracer (dd-trace), New Relic's agent (newrelic) and Elastic's
 * (elastic-apm-node) record of each request, over generated apps: the differential of
 * apm-agents.test.ts and elastic-apm.test.ts, on many shapes instead of one. A seeded
 * description (mounted apps and nested routers up to three levels, string, array,
 * RegExp and parameter paths, `app.route()`, middleware at mounts that pass on, answer,
 * throw or pass an error, a middleware that runs an app or router itself, error handlers,
 * async handlers, 404s) is built by fixtures/apm-generated-app.ts on express@4 under the
 * agent and on webapp under docs/tracing.md's recipe, one process per agent and framework.
 * Per request, the answers and what the agent recorded must be the same:
 *
 * - Datadog: the server span's resource, `http.route`, status and error flag (its name
 *   is not reproduced: docs/tracing.md, "Datadog");
 * - New Relic: the transaction's name and status, the errors noticed in it;
 * - Elastic: the transaction's name and result, and the errors reported.
 *
 * Sentry 11 is left out: sentry11.test.ts covers its recipe, and another agent's
 * processes would double this file's time. WEBAPP_TEST_SEED draws other apps.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import { after, describe, it } from 'node:test';
import { withoutStackFrames, type RawResponse } from '../support/differential';
import { runInstrumentedApp, startCollector } from '../support/instrumented-app';
import { chance, pick, prng, testSeed, type Random } from '../support/prng';
import { scratchProject } from '../support/scratch-project';
import type { Act, Description, Fn, LayerSpec, Method, NodeSpec, PathSpec } from './fixtures/apm-generated-app';
import { newRelicOracle } from '../support/apm-oracles';

const project = scratchProject('webapp-apm-generated-');
after(() => rmSync(project, { recursive: true, force: true }));

// ---------------------------------------------------------------------------
// The description: plain data, built by the fixture on each framework.

const MOUNT_PATHS: readonly (PathSpec | undefined)[] = [
  undefined,
  '/',
  '/a',
  '/api',
  '/x/',
  '/:tenant',
  '/t/:tenant',
  ['/m', '/n/:id'],
  { re: '^\\/r(eg)?', flags: '' },
  { re: '^\\/v\\d+', flags: 'i' },
];
const ROUTE_PATHS: readonly PathSpec[] = [
  '/',
  '/a',
  '/s/',
  '/:id',
  '/:id?',
  '/b/:id',
  '/:name/:id',
  '/files/*',
  ['/p', '/q/:id'],
  { re: '^\\/z(\\d+)$', flags: '' },
  { re: '^\\/k\\/(\\w+)$', flags: '' },
];
const MIDDLEWARE_ACTS: readonly Act[] = ['next', 'next', 'next', 'async-next', 'send', 'throw', 'error', 'async-error'];
const HANDLER_ACTS: readonly Act[] = ['send', 'send', 'async-send', 'next', 'throw', 'error', 'async-error', 'route'];
const FIRST_HANDLER_ACTS: readonly Act[] = ['next', 'async-next', 'route', 'error'];
const STATUSES = [undefined, undefined, 418, 502, 503];

function fnSpec(random: Random, id: string, acts: readonly Act[]): Fn {
  const act = pick(random, acts);
  const status = act.endsWith('error') || act === 'throw' ? pick(random, STATUSES) : undefined;
  return status === undefined ? { id, act } : { id, act, status };
}

function handlers(random: Random, prefix: string): Fn[] {
  const count = 1 + Math.floor(random() * 2.2);
  return Array.from({ length: count }, (_, i) =>
    fnSpec(random, `${prefix}_${i}`, i === count - 1 ? HANDLER_ACTS : FIRST_HANDLER_ACTS),
  );
}

function generateTree(random: Random): NodeSpec[] {
  const nodes: NodeSpec[] = [];
  const maxDepth = 1 + Math.floor(random() * 3);
  function node(kind: 'app' | 'router', depth: number): number {
    const index = nodes.length;
    const spec: NodeSpec = { id: `${kind === 'app' ? 'A' : 'R'}${index}`, kind, layers: [] };
    nodes.push(spec);
    const count = 3 + Math.floor(random() * 4);
    for (let i = 0; i < count; i++) {
      const prefix = `${spec.id}_${i}`;
      const roll = random();
      let layer: LayerSpec;
      if (roll < 0.2) {
        layer = {
          type: 'use',
          path: chance(random, 0.6) ? pick(random, MOUNT_PATHS) : undefined,
          fn: fnSpec(random, prefix, MIDDLEWARE_ACTS),
        };
      } else if (roll < 0.45) {
        const method = pick(random, ['get', 'get', 'all'] as const);
        layer = { type: 'method', method, path: pick(random, ROUTE_PATHS), fns: handlers(random, prefix) };
      } else if (roll < 0.55) {
        const methods: Array<[Method, Fn[]]> = [];
        for (const method of ['get', 'all'] as const)
          if (chance(random, 0.5)) methods.push([method, handlers(random, `${prefix}${method}`)]);
        if (methods.length === 0) methods.push(['get', handlers(random, prefix)]);
        layer = { type: 'route', path: pick(random, ROUTE_PATHS), methods };
      } else if (roll < 0.82 && depth < maxDepth) {
        const child = node(chance(random, 0.35) ? 'app' : 'router', depth + 1);
        const path = chance(random, 0.85) ? pick(random, MOUNT_PATHS) : undefined;
        layer = chance(random, 0.2) ? { type: 'run', path, child } : { type: 'mount', path, child };
      } else {
        layer = {
          type: 'error',
          path: chance(random, 0.3) ? pick(random, MOUNT_PATHS) : undefined,
          fn: fnSpec(random, `${prefix}_e`, ['send', 'send', 'error', 'next']),
        };
      }
      spec.layers.push(layer);
    }
    return index;
  }
  node(chance(random, 0.7) ? 'app' : 'router', 0);
  return nodes;
}

// ---------------------------------------------------------------------------
// Requests: paths down a tree's mount and route paths, variants of them, misses.

const VALUES = ['1', '42', 'Ab', 'caf%C3%A9'];

function concrete(random: Random, path: PathSpec | undefined): string {
  if (path === undefined) return '';
  if (Array.isArray(path)) return concrete(random, pick(random, path));
  if (typeof path !== 'string') {
    if (path.re.includes('z')) return '/z' + pick(random, ['1', '12', 'x']);
    if (path.re.includes('k')) return '/k/' + pick(random, ['w', 'w/x']);
    if (path.re.includes('v')) return pick(random, ['/v1', '/V2', '/v']);
    return pick(random, ['/r', '/reg', '/rx']);
  }
  const out = path
    .replace(/\/:(\w+)\?/g, () => (chance(random, 0.5) ? '' : '/' + pick(random, VALUES)))
    .replace(/:(\w+)/g, () => pick(random, VALUES))
    .replace('*', pick(random, ['q', 'q/r', '']));
  return out === '/' ? '' : out;
}

function pathThrough(random: Random, nodes: NodeSpec[]): string {
  let spec = nodes[0]!;
  let url = '';
  for (;;) {
    const mounts = spec.layers.filter((layer) => layer.type === 'mount' || layer.type === 'run');
    if (mounts.length > 0 && chance(random, 0.7)) {
      const mount = pick(random, mounts);
      url += concrete(random, mount.path);
      spec = nodes[mount.child]!;
      continue;
    }
    const ends = spec.layers.filter(
      (layer) => layer.type === 'method' || layer.type === 'route' || layer.type === 'use',
    );
    return url + (ends.length > 0 ? concrete(random, pick(random, ends).path) : '/nothing');
  }
}

function variant(random: Random, path: string): string {
  switch (Math.floor(random() * 8)) {
    case 0:
      return path.endsWith('/') ? path.slice(0, -1) : path + '/';
    case 1:
      return path.toUpperCase();
    case 2:
      return path + '/' + pick(random, ['x', 'caf%C3%A9']);
    case 3:
      return '/nowhere' + path;
    default:
      return path;
  }
}

const APPS = 4;
const REQUESTS_PER_APP = 14;

function generate(seed: number): { description: Description; paths: string[] } {
  const random = prng(seed);
  const description = Array.from({ length: APPS }, () => generateTree(random));
  const paths: string[] = [];
  description.forEach((nodes, n) => {
    for (let i = 0; i < REQUESTS_PER_APP; i++) {
      let path = pathThrough(random, nodes);
      if (chance(random, 0.3)) path = variant(random, path);
      if (chance(random, 0.15)) path += pick(random, ['?q=1', '?x=%2F']);
      paths.push(`/g${n}${path.startsWith('/') || path === '' ? path : '/' + path}`);
    }
  });
  paths.push('/missing');
  // A fixed tree, last: a route whose error reaches the final handler (the elastic regression case).
  // Regression cases, in a fixed tree, requested first (New Relic keeps 20 errors a harvest):
  // an error an error handler recovers from (New Relic records it only when the answer is an
  // error, 4xx or 5xx), and a route whose error reaches the final handler (Elastic: the page's
  // stack, below).
  const fixed: LayerSpec[] = [
    { type: 'method', method: 'get', path: '/recover', fns: [{ id: 'FIXED_1', act: 'error' }] },
    { type: 'error', path: '/recover', fn: { id: 'FIXED_2_e', act: 'next' } },
    { type: 'method', method: 'get', path: '/recover', fns: [{ id: 'FIXED_3', act: 'send' }] },
    { type: 'method', method: 'get', path: '/fail', fns: [{ id: 'FIXED_0', act: 'throw' }] },
  ];
  description.push([{ id: 'FIXED', kind: 'router', layers: fixed }]);
  paths.unshift(`/g${APPS}/recover`, `/g${APPS}/fail`);
  return { description, paths };
}

/** The tree, one line per layer, for a failure message. */
function describeTree(description: Description): string {
  const show = (path: PathSpec | undefined): string =>
    path === undefined
      ? '(none)'
      : typeof path === 'string'
        ? path
        : Array.isArray(path)
          ? `[${path.map(show).join(', ')}]`
          : `/${path.re}/${path.flags}`;
  const fn = (f: Fn) => `${f.id}:${f.act}${f.status ? `(${f.status})` : ''}`;
  const lines: string[] = [];
  description.forEach((nodes, n) => {
    const walk = (index: number, indent: string) => {
      const spec = nodes[index]!;
      lines.push(`${indent}${spec.kind} ${spec.id}`);
      for (const layer of spec.layers) {
        const at = `${indent}  `;
        switch (layer.type) {
          case 'use':
            lines.push(`${at}use ${show(layer.path)} ${fn(layer.fn)}`);
            break;
          case 'method':
            lines.push(`${at}${layer.method} ${show(layer.path)} ${layer.fns.map(fn).join(' ')}`);
            break;
          case 'route': {
            const methods = layer.methods.map(([method, fns]) => `${method}: ${fns.map(fn).join(' ')}`);
            lines.push(`${at}route ${show(layer.path)} ${methods.join('; ')}`);
            break;
          }
          case 'mount':
          case 'run':
            lines.push(`${at}${layer.type} ${show(layer.path)}`);
            walk(layer.child, `${at}  `);
            break;
          case 'error':
            lines.push(`${at}error ${show(layer.path)} ${fn(layer.fn)}`);
            break;
        }
      }
    };
    lines.push(`/g${n}:`);
    walk(0, '  ');
  });
  return lines.join('\n');
}

// ---------------------------------------------------------------------------
// What each agent recorded, per request.

type Agent = 'datadog' | 'newrelic' | 'elastic';
type Side = 'express' | 'webapp';

interface Observed {
  responses: RawResponse[];
  /** One per request, in order: what the agent recorded of it. */
  records: string[];
  /** Recorded apart from the requests (Elastic's errors), sorted. */
  extra: string[];
}

interface DatadogSpan {
  resource: string;
  error: number;
  meta: Record<string, string | undefined>;
}

/** As apm-agents.test.ts: the server span's resource, route, status and error; not the span's name. */
function datadogRecords(printed: string): string[] {
  const found: string[] = [];
  // Whole lines only: a trace line longer than a pipe's atomic write may be read in parts.
  for (const line of printed.split('\n').slice(0, -1)) {
    if (!line.startsWith('{"traces":')) continue;
    const { traces } = JSON.parse(line) as { traces: DatadogSpan[][] };
    for (const { resource, error, meta } of traces.flat()) {
      if (meta['span.kind'] !== 'server') continue;
      const url = meta['http.url']?.replace(/^http:\/\/[^/]+/, '');
      // http.route is the resource's route (compared there) or, with no route, undefined.
      const route = resource === `GET ${meta['http.route']}` ? "(the resource's)" : meta['http.route'];
      found.push(`${url} -> ${resource} (route ${route}, ${meta['http.status_code']}, error ${error})`);
    }
  }
  return found;
}

function newRelicRecords(printed: string): string[] {
  return [...printed.matchAll(/^transaction (.*)\n/gm)].map((line) => {
    const { name, status, errors } = JSON.parse(line[1]) as { name: string; status: number; errors: string[] };
    return `${name} (${status}) errors ${JSON.stringify(errors)}`;
  });
}

interface ElasticEvent {
  transaction?: { name: string; result: string; context?: { request?: { url?: { raw?: string } } } };
  error?: { culprit?: string; exception?: { message?: string; handled?: boolean }; transaction?: { name?: string } };
}

async function observe(agent: Agent, side: Side, description: Description, paths: string[]): Promise<Observed> {
  const script = join(__dirname, 'fixtures/apm-generated-app.ts');
  // From the repository: the project's folder, the working directory, has no tsx.
  const args = [
    '--import',
    pathToFileURL(require.resolve('tsx')).href,
    script,
    agent,
    side,
    JSON.stringify(description),
  ];
  if (agent !== 'elastic') {
    let records: string[] = [];
    const parse = agent === 'datadog' ? datadogRecords : newRelicRecords;
    const responses = await runInstrumentedApp({
      args,
      cwd: project,
      paths,
      arrived: (printed) => (records = parse(printed)).length >= paths.length,
    });
    return { responses: responses.map(withoutStackFrames), records, extra: [] };
  }
  const transactions: string[] = [];
  const errors: string[] = [];
  let settled = { count: 0, since: Date.now() };
  const intake = await startCollector(
    (body: Buffer, req: IncomingMessage) => {
      if (req.method !== 'POST' || req.url !== '/intake/v2/events') return [];
      for (const line of body.toString('utf8').split('\n').filter(Boolean)) {
        const event = JSON.parse(line) as ElasticEvent;
        if (event.transaction) {
          const { name, result, context } = event.transaction;
          transactions.push(`${context?.request?.url?.raw} -> ${name} (${result})`);
        } else if (event.error) {
          const { culprit, exception, transaction } = event.error;
          // Not the transaction's name: the transactions' are compared request by request, as kept above.
          void transaction;
          errors.push(`${exception?.message} at ${culprit}, handled: ${exception?.handled}`);
        }
      }
      return [];
    },
    (req, res) => {
      if (req.method === 'POST') {
        res.statusCode = 202;
        res.end();
        return;
      }
      // The agent asks the server's version (GET /) before it sends.
      res.setHeader('Content-Type', 'application/json');
      res.end('{"version":"8.15.0"}');
    },
  );
  try {
    const responses = await runInstrumentedApp({
      args: [...args, String(intake.port)],
      cwd: project,
      paths,
      // One transaction per request; an error is sent once its stack is read, maybe after its
      // transaction: then until no more came for 300 ms (the agent's intake requests end every 100 ms).
      arrived: () => {
        if (errors.length !== settled.count) settled = { count: errors.length, since: Date.now() };
        return transactions.length >= paths.length && Date.now() - settled.since >= 300;
      },
    });
    return { responses: responses.map(withoutStackFrames), records: transactions, extra: errors.sort() };
  } finally {
    intake.close();
  }
}

// ---------------------------------------------------------------------------
// What may differ, as docs/tracing.md says.

/** How the channels write a description's RegExp and array paths (docs/tracing.md, `webapp:layer`'s `route`). */
function oddPaths(description: Description): { regexps: string[]; arrays: string[]; mounts: string[] } {
  const regexps = new Set<string>();
  const arrays = new Set<string>();
  const visit = (path: PathSpec | undefined): void => {
    if (path === undefined || typeof path === 'string') return;
    if (Array.isArray(path)) {
      arrays.add(path.map((each) => (typeof each === 'string' ? each : String(each))).join(','));
      path.forEach(visit);
    } else regexps.add(String(new RegExp(path.re, path.flags)));
  };
  const mounts = new Set<string>();
  for (const layer of description.flat().flatMap((node) => node.layers)) {
    if (!('path' in layer)) continue;
    visit(layer.path);
    const { path } = layer;
    if (layer.type === 'method' || layer.type === 'route' || path === undefined || typeof path === 'string') continue;
    // Without a RegExp's closing `/` (see `template`).
    const written = Array.isArray(path) ? path.map(String).join(',') : String(new RegExp(path.re, path.flags));
    mounts.add(Array.isArray(path) ? written : written.slice(0, written.lastIndexOf('/')));
  }
  return { regexps: [...regexps], arrays: [...arrays], mounts: [...mounts] };
}

/** The route templates of the description's routes, as `template` writes them. */
function routeTemplates(description: Description): string[] {
  const found = new Set<string>();
  const add = (path: PathSpec): void => {
    if (typeof path === 'string') found.add(path.replace(/\/$/, ''));
    else if (Array.isArray(path)) found.add(path.map(String).join(','));
    else found.add(String(new RegExp(path.re, path.flags)));
  };
  for (const layer of description.flat().flatMap((node) => node.layers))
    if (layer.type === 'method' || layer.type === 'route') add(layer.path);
  return [...found].filter((each) => each !== '');
}

/**
 * A route template, written as the channels write it ("webapp:layer", `route`): a string
 * path loses a trailing `/` (`/x/` is `/x`) and one slash joins the parts; a RegExp is
 * written as JavaScript prints it, where Datadog's plugin wraps it in parentheses
 * (`/g1(/^\/v\d+/)/:id`). docs/tracing.md, "Elastic APM, Datadog and New Relic".
 */
function template(route: string, regexps: readonly string[]): string {
  for (const re of regexps) {
    // New Relic writes a RegExp without its flags (`/^\/v\d+` for `/^\/v\d+/i`): none on either side.
    const bare = re.slice(0, re.lastIndexOf('/') + 1);
    route = route.split(`(${re})`).join(bare).split(re).join(bare);
  }
  route = route.replace(/\/{2,}/g, '/');
  // With the closing `/` of a RegExp at the end: New Relic's name drops it as it drops a string path's.
  return route.length > 1 && route.endsWith('/') ? route.slice(0, -1) : route;
}

interface NamedRecord {
  /** The route part of the name (resource, transaction name), then the rest. */
  route: string;
  rest: string;
}

const splitRecord = (agent: Agent, record: string | undefined): NamedRecord => {
  const match =
    agent === 'newrelic'
      ? /^(WebTransaction\/Expressjs\/GET\/)(\S*)(.*)$/.exec(record ?? '')
      : /^(.* -> GET ?)(unknown route|\S*)(.*)$/.exec(record ?? '');
  if (!match) return { route: '', rest: record ?? '(none)' };
  return { route: match[2], rest: match[1] + '<route>' + match[3] };
};

/**
 * Whether webapp's route may differ from express@4's, because the agent's name on
 * express@4 does not match the route that answered (docs/tracing.md, the agent's
 * section): the reason, or undefined. `ours` is webapp's route, `theirs` express@4's.
 */
function keptOnPurpose(
  agent: Agent,
  ours: string,
  theirs: string,
  status: number,
  description: Description,
  odd: { regexps: string[]; arrays: string[]; mounts: string[] },
): string | undefined {
  // The RegExps as `template` leaves them, without the closing `/` (which it drops at the end).
  const bare = odd.regexps.map((re) => re.slice(0, re.lastIndexOf('/')));
  const special = (route: string) => bare.some((re) => route.includes(re)) || /\*/.test(route);
  // Datadog names an array path after the member that matched; the channel writes the array.
  if (agent === 'datadog') {
    for (const array of odd.arrays)
      for (const member of array.split(','))
        if (ours.includes(array) && template(ours.split(array).join(member), odd.regexps) === theirs)
          return 'Datadog names an array path after the member that matched';
    // Which makes it shorter than the channel's: another template entered may be the longest.
    if (odd.arrays.some((array) => ours.includes(array))) return 'Datadog measures the member of an array path';
  }
  // After an error handler recovers (calls next()), New Relic keeps the paths the error came through.
  const recovers = description
    .flat()
    .some((node) => node.layers.some((l) => l.type === 'error' && l.fn.act === 'next'));
  if (agent === 'newrelic' && recovers && theirs.startsWith(`${ours}/`))
    return 'New Relic keeps the paths an error came through after an error handler recovers';
  // New Relic repeats a RegExp route's path at the end of the name.
  if (agent === 'newrelic' && bare.some((re) => ours.endsWith(re) && theirs === `${ours}${re}`))
    return 'New Relic repeats a RegExp route';
  if (agent === 'datadog' && special(ours) && !special(theirs))
    return 'Datadog prefers a template without `*` or RegExp, whatever answered';
  if (agent === 'elastic') {
    const withoutOdd = (route: string) =>
      template(
        odd.mounts.reduce((each, part) => each.split(part).join('/'), route),
        [],
      ) || '/';
    if (withoutOdd(ours) === theirs) return 'Elastic leaves out RegExp and array mount paths';
    if (ours === 'unknown route' && status === 404) return 'Elastic names a 404 after a route or mount it entered';
    for (const route of routeTemplates(description)) {
      if (!theirs.endsWith(route)) continue;
      const mounts = theirs.slice(0, theirs.length - route.length);
      if (ours === 'unknown route' || [ours, withoutOdd(ours)].includes(mounts))
        return 'Elastic names a request after the last route it entered, answered or not';
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------

const SEED = 0x5eed_a9a;

/** What webapp answered under Elastic, for the regression case below. */
let elasticPages: RawResponse[] | undefined;

describe('APM agents on generated apps: express@4 under the agent, webapp with the docs/tracing.md recipe', () => {
  const { description, paths } = generate(SEED);
  const odd = oddPaths(description);

  const agents = ['datadog', 'newrelic', 'elastic'] as const;
  // All six processes at once, started when the first case runs: the file's time is the slowest agent's.
  let runs: Promise<Array<[Observed, Observed]>> | undefined;
  const observed = (agent: Agent) => {
    runs ??= Promise.all(
      agents.map((each) =>
        Promise.all([observe(each, 'express', description, paths), observe(each, 'webapp', description, paths)]),
      ),
    );
    return runs.then((all) => all[agents.indexOf(agent as (typeof agents)[number])]!);
  };

  for (const agent of agents) {
    const skip = agent === 'newrelic' ? newRelicOracle : false;
    it(`${agent}: the same answers and records (WEBAPP_TEST_SEED=${testSeed()})`, { skip }, async () => {
      const [theirs, ours] = await observed(agent);
      if (agent === 'elastic') elasticPages = ours.responses;
      const differences: string[] = [];
      const kept = new Map<string, number>();
      for (const [i, path] of paths.entries()) {
        const want = { response: theirs.responses[i], record: splitRecord(agent, theirs.records[i]) };
        const got = { response: ours.responses[i], record: splitRecord(agent, ours.records[i]) };
        want.record.route = template(want.record.route, odd.regexps);
        got.record.route = template(got.record.route, odd.regexps);
        if (want.record.route !== got.record.route) {
          const reason = keptOnPurpose(
            agent,
            got.record.route,
            want.record.route,
            got.response!.status,
            description,
            odd,
          );
          if (reason !== undefined) {
            kept.set(reason, (kept.get(reason) ?? 0) + 1);
            // webapp's is the route of the request's own layers: under its prefix, or none.
            assert.match(got.record.route, new RegExp(`^(/g\\d+\\b|unknown route$)`), `#${i} ${path}`);
            want.record.route = got.record.route;
          }
        }
        const show = (side: typeof want) => inspect(side, { breakLength: Infinity });
        if (!isSame(want, got))
          differences.push(`#${i} GET ${path}\n  express: ${show(want)}\n  webapp:  ${show(got)}`);
      }
      if (!isSame(theirs.extra, ours.extra))
        differences.push(`errors\n  express: ${inspect(theirs.extra)}\n  webapp:  ${inspect(ours.extra)}`);
      // APM_GENERATED_SHOWN=n shows n differences (8), and how many of each kept difference there were.
      const shown = differences.slice(0, Number(process.env.APM_GENERATED_SHOWN ?? 8));
      assert.equal(
        differences.length,
        0,
        [
          `${differences.length} differences (WEBAPP_TEST_SEED=${testSeed()}):`,
          ...shown,
          describeTree(description),
        ].join('\n'),
      );
      if (process.env.APM_GENERATED_SHOWN) console.log(agent, Object.fromEntries(kept));
    });
  }

  // Elastic's agent loads error-callsites, whose Error.prepareStackTrace webapp once left its
  // own function in (src/response/node-own.ts): every stack became a list of call sites.
  it("elastic: webapp's error pages keep the error's own stack", () => {
    const page = elasticPages?.[paths.indexOf(`/g${APPS}/fail`)];
    assert.match(page?.body ?? '', /<pre>Error: failed at FIXED_0/);
  });
});

function isSame(a: unknown, b: unknown): boolean {
  try {
    assert.deepStrictEqual(a, b);
    return true;
  } catch {
    return false;
  }
}
