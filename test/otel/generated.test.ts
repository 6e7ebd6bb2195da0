/**
 * Generated apps (seeded, so a failure reproduces; WEBAPP_TEST_SEED draws others), traced
 * two ways: express@4 under @opentelemetry/instrumentation-express, and webapp under
 * webapp/otel, each with @opentelemetry/instrumentation-http making the server span. A
 * tree of mounted apps and nested routers (string, array, RegExp and parameter paths;
 * strict, caseSensitive and mergeParams routers; routes, `app.route()`, middleware that
 * passes, answers, throws, fails, skips with next('route') / next('router'), param
 * callbacks, error handlers, async handlers, handlers that start a span of their own) is
 * built on both from one description, the same requests go to both, and per request the
 * answer, the server span (name, `http.route`, status code), the layer spans (in start
 * order: name, type, status, parent) and the parents of the spans the app starts itself
 * must be the same, once the differences docs/tracing.md documents are normalised away.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { SpanKind, trace } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { chance, pick, prng, testSeed, type Random } from '../support/prng';
import { makePath, type PathSpec } from '../support/path-spec';

/** Spans started and not yet ended, and the order they started in. */
const open = new Set<object>();
const startOrder = new WeakMap<object, number>();
let started = 0;
const tracker: SpanProcessor = {
  onStart(span) {
    open.add(span);
    startOrder.set(span, started++);
  },
  onEnd(span) {
    open.delete(span);
  },
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [tracker, new SimpleSpanProcessor(exporter)] });
provider.register();
const unregister = registerInstrumentations({
  instrumentations: [new HttpInstrumentation(), new ExpressInstrumentation()],
});

// Loaded after the instrumentations, as an application would be: `express` is patched as it loads.

const express = require('express') as typeof import('express');

const webapp = require('../../src/index') as typeof import('../../src/index');

const { instrument } = require('../../src/otel/index') as typeof import('../../src/otel/index');

const { rawRequest, withServer } = require('../support/raw-http') as typeof import('../support/raw-http');

type Framework = typeof express;
type Any = any;

const tracer = trace.getTracer('app');

// ---------------------------------------------------------------------------
// The description of an app: plain data, built once per framework.

type Act = 'next' | 'send' | 'throw' | 'error' | 'route' | 'router' | 'async-next' | 'async-send' | 'async-error';
/** A function of the app: what it does, and whether it starts a span of its own first. */
interface Fn {
  id: string;
  act: Act;
  span: boolean;
}
type Method = 'get' | 'post' | 'all' | 'head' | 'options';
type LayerSpec =
  | { type: 'use'; path?: PathSpec; fns: Fn[] }
  | { type: 'method'; method: Method; path: PathSpec; fns: Fn[] }
  | { type: 'route'; path: PathSpec; methods: Array<[Method, Fn[]]> }
  | { type: 'mount'; path?: PathSpec; child: number }
  | { type: 'error'; path?: PathSpec; fn: Fn }
  | { type: 'param'; name: string; fn: Fn };
interface NodeSpec {
  id: string;
  kind: 'app' | 'router';
  options: { strict?: boolean; caseSensitive?: boolean; mergeParams?: boolean };
  layers: LayerSpec[];
}

const MOUNT_PATHS: readonly (PathSpec | undefined)[] = [
  undefined,
  '/',
  '/a',
  '/b',
  '/api',
  '/A',
  '/x/',
  '/:tenant',
  '/t/:tenant',
  ['/m', '/n/:id'],
  { re: '^\\/r(eg)?', flags: '' },
  { re: '^\\/(v\\d+)', flags: 'i' },
];
const ROUTE_PATHS: readonly PathSpec[] = [
  '/',
  '/a',
  '/A',
  '/s/',
  '/:id',
  '/:id?',
  '/b/:id',
  '/a/:id?',
  '/:name/:id',
  '/files/*',
  '*',
  ['/p', '/q/:id'],
  { re: '^\\/z(\\d+)$', flags: '' },
  { re: 'ab|cd', flags: '' },
];
const PARAM_NAMES = ['id', 'tenant', 'name'];

function fnSpec(random: Random, id: string, acts: readonly Act[]): Fn {
  return { id, act: pick(random, acts), span: chance(random, 0.3) };
}

const MIDDLEWARE_ACTS: readonly Act[] = [
  'next',
  'next',
  'next',
  'async-next',
  'send',
  'async-send',
  'throw',
  'error',
  'async-error',
  'router',
  'route',
];
const HANDLER_ACTS: readonly Act[] = ['send', 'send', 'async-send', 'next', 'throw', 'error', 'route', 'router'];
const FIRST_HANDLER_ACTS: readonly Act[] = ['next', 'async-next', 'route', 'error', 'send'];

function handlers(random: Random, prefix: string): Fn[] {
  const count = 1 + Math.floor(random() * 2.5);
  return Array.from({ length: count }, (_, i) =>
    fnSpec(random, `${prefix}_${i}`, i === count - 1 ? HANDLER_ACTS : FIRST_HANDLER_ACTS),
  );
}

function generate(seed: number): NodeSpec[] {
  const random = prng(seed);
  const nodes: NodeSpec[] = [];
  const maxDepth = 1 + Math.floor(random() * 3);
  function node(kind: 'app' | 'router', depth: number): number {
    const index = nodes.length;
    const spec: NodeSpec = { id: `${kind === 'app' ? 'A' : 'R'}${index}`, kind, options: {}, layers: [] };
    nodes.push(spec);
    if (kind === 'router') {
      if (chance(random, 0.4)) spec.options.mergeParams = true;
      if (chance(random, 0.25)) spec.options.caseSensitive = true;
      if (chance(random, 0.25)) spec.options.strict = true;
    }
    const count = 3 + Math.floor(random() * 4);
    for (let i = 0; i < count; i++) {
      const prefix = `${spec.id}_${i}`;
      const roll = random();
      if (roll < 0.22) {
        // Several functions in one `use` only on apps: see the Router.use case below.
        const fns = kind === 'app' && chance(random, 0.3) ? 2 : 1;
        spec.layers.push({
          type: 'use',
          path: chance(random, 0.6) ? pick(random, MOUNT_PATHS) : undefined,
          fns: Array.from({ length: fns }, (_, n) => fnSpec(random, `${prefix}_${n}`, MIDDLEWARE_ACTS)),
        });
      } else if (roll < 0.47) {
        spec.layers.push({
          type: 'method',
          method: pick(random, ['get', 'get', 'get', 'post', 'all', 'head', 'options'] as const),
          path: pick(random, ROUTE_PATHS),
          fns: handlers(random, prefix),
        });
      } else if (roll < 0.57) {
        const methods: Array<[Method, Fn[]]> = [];
        for (const method of ['get', 'post', 'all'] as const)
          if (chance(random, 0.45)) methods.push([method, handlers(random, `${prefix}${method}`)]);
        if (methods.length === 0) methods.push(['get', handlers(random, prefix)]);
        spec.layers.push({ type: 'route', path: pick(random, ROUTE_PATHS), methods });
      } else if (roll < 0.8 && depth < maxDepth) {
        const child = node(chance(random, 0.35) ? 'app' : 'router', depth + 1);
        spec.layers.push({ type: 'mount', path: chance(random, 0.85) ? pick(random, MOUNT_PATHS) : undefined, child });
      } else if (roll < 0.88) {
        spec.layers.push({
          type: 'param',
          name: pick(random, PARAM_NAMES),
          fn: fnSpec(random, `${prefix}_p`, ['next']),
        });
      } else {
        spec.layers.push({
          type: 'error',
          path: chance(random, 0.3) ? pick(random, MOUNT_PATHS) : undefined,
          fn: fnSpec(random, `${prefix}_e`, ['send', 'send', 'error', 'next']),
        });
      }
    }
    return index;
  }
  node('app', 0);
  return nodes;
}

// ---------------------------------------------------------------------------
// Building the description on one framework.

/** Which route each span a route's handler ran in belongs to, by span id (see `normalised`). */
const routeOfSpan = new Map<string, string>();

const named = <T extends (...args: Any[]) => unknown>(name: string, fn: T): T =>
  Object.defineProperty(fn, 'name', { value: name });

const answer = (req: Any, id: string) =>
  JSON.stringify({ h: id, trail: req.trail, url: req.url, base: req.baseUrl, params: req.params });

/** Starts and ends a span of the app's own, as a database query would, if the function does. */
const ownSpan = (fn: Fn) => {
  if (fn.span) tracer.startSpan('app ' + fn.id).end();
};

function handler(fn: Fn, route: string | undefined) {
  return named(fn.id, (req: Any, res: Any, next: Any) => {
    const active = trace.getActiveSpan();
    if (route !== undefined && active !== undefined) routeOfSpan.set(active.spanContext().spanId, route);
    (req.trail ??= []).push(fn.id);
    const fail = () => Object.assign(new Error('failed at ' + fn.id), { status: 502 });
    switch (fn.act) {
      case 'async-next':
        return void setImmediate(() => {
          ownSpan(fn);
          next();
        });
      case 'async-send':
        return (async () => {
          await new Promise(setImmediate);
          ownSpan(fn);
          res.send(answer(req, fn.id));
        })();
      case 'async-error':
        return (async () => {
          await Promise.resolve();
          ownSpan(fn);
          next(fail());
        })();
    }
    ownSpan(fn);
    switch (fn.act) {
      case 'next':
        return next();
      case 'send':
        return res.send(answer(req, fn.id));
      case 'throw':
        throw new Error('thrown at ' + fn.id);
      case 'error':
        return next(fail());
      case 'route':
        return next('route');
      case 'router':
        return next('router');
    }
  });
}

function errorHandler(fn: Fn) {
  return named(fn.id, (err: Any, req: Any, res: Any, next: Any) => {
    (req.trail ??= []).push(fn.id);
    ownSpan(fn);
    if (fn.act === 'error') return next(err);
    if (fn.act === 'next') {
      recoveredAt = Math.min(recoveredAt, started);
      return next();
    }
    res.status(err.status ?? 500).send(answer(req, fn.id) + ' ' + err.message);
  });
}

function paramCallback(fn: Fn) {
  return named(fn.id, (req: Any, _res: Any, next: Any, value: unknown) => {
    (req.trail ??= []).push(`${fn.id}=${String(value)}`);
    ownSpan(fn);
    if (value === 'err') return next(new Error('param failed at ' + fn.id));
    if (value === 'skip') return next('route');
    next();
  });
}

function build(framework: Framework, nodes: NodeSpec[]): http.RequestListener {
  function make(index: number): Any {
    const spec = nodes[index]!;
    const target: Any = spec.kind === 'app' ? framework() : framework.Router(spec.options);
    // The final handler logs nothing in 'test' (its page's stack is cut in `send`).
    if (index === 0) target.set('env', 'test');
    const use = (path: PathSpec | undefined, ...fns: unknown[]) =>
      path === undefined ? target.use(...fns) : target.use(makePath(path), ...fns);
    spec.layers.forEach((layer, i) => {
      const key = `${spec.id}_${i}`;
      switch (layer.type) {
        case 'use':
          use(layer.path, ...layer.fns.map((fn) => handler(fn, undefined)));
          break;
        case 'method':
          target[layer.method](makePath(layer.path), ...layer.fns.map((fn) => handler(fn, key)));
          break;
        case 'route': {
          const route = target.route(makePath(layer.path));
          for (const [method, fns] of layer.methods) route[method](...fns.map((fn) => handler(fn, key)));
          break;
        }
        case 'mount':
          use(layer.path, make(layer.child));
          break;
        case 'param':
          target.param(layer.name, paramCallback(layer.fn));
          break;
        case 'error':
          use(layer.path, errorHandler(layer.fn));
          break;
      }
    });
    return target;
  }
  return make(0);
}

// ---------------------------------------------------------------------------
// Requests: paths down the tree's mount and route paths, and variants of them.

const VALUES = ['1', '42', 'err', 'skip', 'Ab', 'caf%C3%A9'];

function concrete(random: Random, path: PathSpec | undefined): string {
  if (path === undefined) return '';
  if (Array.isArray(path)) return concrete(random, pick(random, path));
  if (typeof path !== 'string') {
    if (path.re.includes('z')) return '/z' + pick(random, ['1', '12', 'x']);
    if (path.re.includes('v')) return pick(random, ['/v1', '/V2', '/v']);
    if (path.re.includes('ab')) return pick(random, ['/ab', '/xcd', '/a']);
    return pick(random, ['/r', '/reg', '/rx']);
  }
  if (path === '*') return '/' + pick(random, ['q', 'q/r', '']);
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
    const mounts = spec.layers.filter((layer) => layer.type === 'mount');
    if (mounts.length > 0 && chance(random, 0.7)) {
      const mount = pick(random, mounts);
      url += concrete(random, mount.path);
      spec = nodes[mount.child]!;
      continue;
    }
    const ends = spec.layers.filter(
      (layer) => layer.type === 'method' || layer.type === 'route' || layer.type === 'use',
    );
    url += ends.length > 0 ? concrete(random, pick(random, ends).path) : '/nothing';
    return url === '' ? '/' : url;
  }
}

function variant(random: Random, path: string): string {
  switch (Math.floor(random() * 10)) {
    case 0:
      return path.endsWith('/') ? path.slice(0, -1) || '/' : path + '/';
    case 1:
      return path.toUpperCase();
    case 2:
      return path.replace(/[a-z]/, (c) => '%' + c.charCodeAt(0).toString(16));
    case 3:
      return path + '/' + pick(random, ['x', 'caf%C3%A9', '%20', '..']);
    case 4:
      return '/nowhere' + path;
    case 5:
      return path.replace('/', '//');
    default:
      return path;
  }
}

interface Request {
  method: string;
  path: string;
}

function requestsFor(random: Random, nodes: NodeSpec[], count: number): Request[] {
  return Array.from({ length: count }, () => {
    let path = pathThrough(random, nodes);
    if (chance(random, 0.35)) path = variant(random, path);
    if (chance(random, 0.2)) path += pick(random, ['?q=1', '?a[b]=2&c', '?', '?x=%2F']);
    return { method: pick(random, ['GET', 'GET', 'GET', 'POST', 'HEAD', 'OPTIONS']), path };
  });
}

// ---------------------------------------------------------------------------
// What each framework made of a request, and what of it must match.

const isServer = (span: ReadableSpan) => span.kind === SpanKind.SERVER;
const isClient = (span: object) => (span as ReadableSpan).kind === SpanKind.CLIENT;

/** Where in the start order an error handler first recovered (called `next()`), if one did. */
let recoveredAt = Infinity;

/** The answer, then every span the server side started, once all have ended. */
async function send(port: number, request: Request): Promise<{ answer: string; spans: ReadableSpan[] }> {
  exporter.reset();
  routeOfSpan.clear();
  recoveredAt = Infinity;
  const res = await rawRequest(port, request);
  const done = () => exporter.getFinishedSpans().some(isServer) && [...open].every(isClient);
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 1));
  const unended = [...open].filter((span) => !isClient(span)).map((span) => (span as ReadableSpan).name);
  // The final handler's page shows a stack, whose frames differ: the first line is kept.
  const body = res.body.split('<br> &nbsp; &nbsp;at ')[0];
  const answer = `${res.status} ${body}${unended.length ? ` (spans never ended: ${unended.join(', ')})` : ''}`;
  // The test's own request makes a CLIENT span: only the server side is compared.
  return { answer, spans: exporter.getFinishedSpans().filter((span) => !isClient(span)) };
}

/** A layer span, or a span the app started, as it is compared. */
interface Listed {
  name: string;
  type: string;
  route: string | undefined;
  failed: string;
  parent: string;
  /** Started after an error handler recovered. */
  late: boolean;
}

interface Traced {
  answer: string;
  server: { name: string; route: string | undefined; status: unknown };
  listed: Listed[];
}

/**
 * Express's templates in webapp's form. docs/tracing.md, "Differences from the Express
 * instrumentation": a string path loses its trailing `/` (the generator's are `/x/` and
 * `/s/`), and a path that does not start with `/` (`*`) is joined to its mount path with
 * one (`*` is `/*`, `/A` then `*` is `/A/*`).
 */
const webappForm = (route: string): string => route.replace(/\/(x|s)\/(?=$|,)/g, '/$1').replace(/(^|[^/])\*/g, '$1/*');
const expressForm = (route: string): string => route.replace(/\/(x|s)(?=$|,)/g, '/$1/');

/**
 * Whether the Express instrumentation leaves a request without a route although its
 * layers ran under `route` (in Express's form): it keeps a template only if the URL
 * (query included) starts with it, or it has `:` or `*`, or `,` `\\` `[` with a `/`;
 * and `/` only for the URL `/` itself. So a case-insensitive match (`/A` for `/a`), a
 * query after `/` (`/?q=1`), `/s/` for `/s`, and a RegExp without a backslash
 * (`/ab|cd/`) lose their route (docs/tracing.md, "Differences from the Express
 * instrumentation").
 */
function expressDrops(route: string, url: string): boolean {
  if (route === '/') return url !== '/';
  if (route.includes('/') && /[,\\*[]/.test(route)) return false;
  return !url.startsWith(route) && !route.includes(':') && !route.includes('*');
}

/** The spans of one side, in start order, each with its parent's place in the list. */
function observe(side: 'express' | 'webapp', answer: string, spans: ReadableSpan[]): Traced {
  const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
  const server = spans.find(isServer);
  const ordered = spans.filter((span) => !isServer(span)).sort((a, b) => startOrder.get(a)! - startOrder.get(b)!);
  const typeOf = (span: ReadableSpan) =>
    (span.attributes[side === 'express' ? 'express.type' : 'webapp.type'] as string | undefined) ?? 'app';

  // What stands for each span in the list: itself, the first handler's span of its route
  // (webapp), or nothing: a span then passes its children on to its own parent.
  const standIn = new Map<ReadableSpan, ReadableSpan | null>();
  const listed: ReadableSpan[] = [];
  const names = new Map<ReadableSpan, string>();
  const types = new Map<ReadableSpan, string>();
  let lastRoute: { key: string; span: ReadableSpan; parent: string | undefined } | undefined;
  for (const span of ordered) {
    let type = typeOf(span);
    let name = span.name;
    const key = routeOfSpan.get(span.spanContext().spanId);
    if (type === 'error_handler') {
      // docs/tracing.md: "Express's instrumentation makes no span for error handlers".
      standIn.set(span, null);
      continue;
    }
    if (side === 'express' && type === 'request_handler' && key === undefined) {
      // docs/tracing.md: "a HEAD request enters a route that has no GET handler".
      standIn.set(span, null);
      continue;
    }
    if (type === 'router') {
      // docs/tracing.md: "a mounted app is a router to webapp"; router spans are named by
      // their first route on Express ("router span names").
      if (span.attributes['webapp.name'] === 'mounted_app') [name, type] = ['middleware - mounted_app', 'middleware'];
      else name = 'router';
    } else if (type === 'request_handler') {
      if (side === 'express') name = 'request handler - ' + webappForm(name.slice('request handler - '.length));
      else {
        // docs/tracing.md: "one span per handler of a route, not one per route".
        const parent = span.parentSpanContext?.spanId;
        if (key !== undefined && lastRoute?.key === key && lastRoute.parent === parent) {
          standIn.set(span, lastRoute.span);
          continue;
        }
        lastRoute = key === undefined ? undefined : { key, span, parent };
      }
    }
    if (type !== 'request_handler' && type !== 'app') lastRoute = undefined;
    standIn.set(span, span);
    names.set(span, name);
    types.set(span, type);
    listed.push(span);
  }
  const place = new Map(listed.map((span, i) => [span, i]));

  /** The nearest listed ancestor: routers and error handlers are no parents on Express. */
  const parentOf = (span: ReadableSpan): string => {
    for (let id = span.parentSpanContext?.spanId; id !== undefined;) {
      const parent = byId.get(id);
      if (parent === undefined) return 'outside';
      if (parent === server) return 'server';
      const stand = standIn.get(parent);
      // docs/tracing.md: "layer spans nest as routers do" (on Express, a router's span ends
      // at once, and what runs in the router is its parent's child).
      if (stand && names.get(stand) !== 'router') return `#${place.get(stand)}`;
      id = parent.parentSpanContext?.spanId;
    }
    return 'none';
  };
  const failedOf = (span: ReadableSpan): string => {
    // docs/tracing.md: errors are recorded "on every router it left through".
    if (names.get(span) === 'router') return '';
    const failed = ordered.filter((each) => standIn.get(each) === span).find((each) => each.status.code === 2);
    return failed ? ` !${failed.status.message}` : '';
  };
  const routeOf = (span: ReadableSpan) => {
    const route = span.attributes['http.route'] as string | undefined;
    return route === undefined || side === 'webapp' ? route : webappForm(route);
  };
  return {
    answer,
    server: {
      name: server?.name ?? '(no server span)',
      route: server?.attributes['http.route'] as string | undefined,
      status: server?.attributes['http.response.status_code'],
    },
    listed: listed.map((span) => ({
      name: names.get(span)!,
      type: types.get(span)!,
      route: routeOf(span),
      failed: failedOf(span),
      parent: parentOf(span),
      late: startOrder.get(span)! >= recoveredAt,
    })),
  };
}

interface Seen {
  answer: string;
  server: string;
  layers: string[];
  own: string[];
}

/**
 * docs/tracing.md: "after an error handler recovers". Once an error went through a route
 * (or was thrown), the Express instrumentation leaves the paths of the layers it left in
 * its stack, and the routes it gives after an error handler calls `next()` carry them:
 * those are not compared.
 */
const shown = (each: Listed) =>
  each.late && each.type === 'request_handler' ? 'request handler - (after recovery)' : each.name;

const lines = (traced: Traced) =>
  traced.listed.map((each, i) => `#${i} ${shown(each)} [${each.type}]${each.failed} < ${each.parent}`);

/** Both sides, normalised to what must match. */
function compared(request: Request, express_: Traced, webapp_: Traced): [Seen, Seen] {
  const method = request.method;
  // Express names the server span after the last layer that started (each layer's span has
  // the route it gave): the layers left out above name it no more.
  const layers = express_.listed.filter((each) => each.type !== 'app');
  const last = layers[layers.length - 1];
  let route = last?.route;
  // docs/tracing.md: "a request for `/` that only layers mounted at `/` saw" is no route's.
  if (route === '/' && last!.type !== 'request_handler') route = undefined;
  const ours = webapp_.server.route;
  if (last?.late) route = ours;
  if (route === undefined && ours !== undefined && expressDrops(expressForm(ours), request.path)) route = ours;
  const server = (name: string, route_: string | undefined, status: unknown) => `${name} (${route_}) ${status}`;
  const theirs: Seen = {
    answer: express_.answer,
    server: server(route === undefined ? method : `${method} ${route}`, route, express_.server.status),
    layers: lines(express_).filter((line) => !line.includes('[app]')),
    own: lines(express_).filter((line) => line.includes('[app]')),
  };
  const mine: Seen = {
    answer: webapp_.answer,
    server: server(webapp_.server.name, ours, webapp_.server.status),
    layers: lines(webapp_).filter((line) => !line.includes('[app]')),
    own: lines(webapp_).filter((line) => line.includes('[app]')),
  };
  return [theirs, mine];
}

/** What one side made of each request, in order. */
async function tracedOn(app: http.RequestListener, side: 'express' | 'webapp', requests: Request[]): Promise<Traced[]> {
  return withServer(app, async (port) => {
    const out: Traced[] = [];
    for (const request of requests) {
      const { answer, spans } = await send(port, request);
      out.push(observe(side, answer, spans));
    }
    return out;
  });
}

/** The requests on which webapp differs from express@4, as text, and webapp's view of each. */
async function differencesOf(
  define: (framework: Framework) => http.RequestListener,
  requests: Request[],
): Promise<{ differences: string[]; ours: Seen[] }> {
  const theirs = await tracedOn(define(express), 'express', requests);
  const mine = await tracedOn(define(webapp as unknown as Framework), 'webapp', requests);
  const differences: string[] = [];
  const ours: Seen[] = [];
  requests.forEach((request, i) => {
    const [a, b] = compared(request, theirs[i]!, mine[i]!);
    ours.push(b);
    const keys = (Object.keys(a) as Array<keyof Seen>).filter((k) => !isDeepStrictEqual(a[k], b[k]));
    if (keys.length > 0)
      differences.push(
        `${request.method} ${request.path}\n` +
          keys
            .map((k) => `  ${k}\n    express: ${JSON.stringify(a[k])}\n    webapp:  ${JSON.stringify(b[k])}`)
            .join('\n'),
      );
  });
  return { differences, ours };
}

// ---------------------------------------------------------------------------
// Reading a tree back as code, for a failure's report.

function describeTree(nodes: NodeSpec[]): string {
  const p = (path: PathSpec | undefined) =>
    path === undefined
      ? ''
      : (typeof path === 'object' && !Array.isArray(path) ? `/${path.re}/${path.flags}` : JSON.stringify(path)) + ', ';
  const fns = (list: Fn[]) => list.map((fn) => `${fn.act}${fn.span ? '+span' : ''}(${fn.id})`).join(', ');
  const lines: string[] = [];
  for (const node of nodes) {
    lines.push(
      node.kind === 'app'
        ? `const ${node.id} = express();`
        : `const ${node.id} = express.Router(${JSON.stringify(node.options)});`,
    );
    for (const layer of node.layers) {
      switch (layer.type) {
        case 'use':
          lines.push(`  ${node.id}.use(${p(layer.path)}${fns(layer.fns)});`);
          break;
        case 'method':
          lines.push(`  ${node.id}.${layer.method}(${p(layer.path)}${fns(layer.fns)});`);
          break;
        case 'route':
          lines.push(
            `  ${node.id}.route(${p(layer.path).slice(0, -2)})` +
              layer.methods.map(([m, l]) => `.${m}(${fns(l)})`).join('') +
              ';',
          );
          break;
        case 'mount':
          lines.push(`  ${node.id}.use(${p(layer.path)}${nodes[layer.child]!.id});`);
          break;
        case 'param':
          lines.push(`  ${node.id}.param(${JSON.stringify(layer.name)}, ${fns([layer.fn])});`);
          break;
        case 'error':
          lines.push(`  ${node.id}.use(${p(layer.path)}errorHandler_${fns([layer.fn])});`);
          break;
      }
    }
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------

const TREES = Number(process.env.OTEL_TREES ?? 40);
const REQUESTS_PER_TREE = 10;

let instrumentation: { disable(): void } | undefined;
after(async () => {
  instrumentation?.disable();
  unregister();
  await provider.shutdown();
});

before(() => {
  instrumentation = instrument();
});

describe('generated apps traced: webapp/otel as instrumentation-express on express@4', () => {
  it(`${TREES} trees, ${REQUESTS_PER_TREE} requests each (WEBAPP_TEST_SEED=${testSeed()})`, async () => {
    const failures: string[] = [];
    let spansCompared = 0;
    for (let t = 0; t < TREES; t++) {
      const seed = 0x07e1 + t;
      const nodes = generate(seed);
      const requests = requestsFor(prng(seed * 7 + 1), nodes, REQUESTS_PER_TREE);
      const { differences, ours } = await differencesOf((framework) => build(framework, nodes), requests);
      for (const seen of ours) spansCompared += seen.layers.length + seen.own.length;
      if (differences.length > 0) failures.push(`// tree ${seed}\n${describeTree(nodes)}\n${differences.join('\n')}`);
    }
    const shown = Number(process.env.OTEL_SHOWN ?? 3);
    assert.equal(
      failures.length,
      0,
      `${failures.length} of ${TREES} trees differ:\n\n${failures.slice(0, shown).join('\n\n')}`,
    );
    // The harness compared spans, not empty lists (query and expressInit alone are 2 a request).
    assert.ok(spansCompared > TREES * REQUESTS_PER_TREE * 3, `${spansCompared} spans compared`);
  });
});

// ---------------------------------------------------------------------------
// Hand-written cases: the defects the generator found (each failed before its fix), and
// what webapp answers where docs/tracing.md says the Express instrumentation is wrong.

/** A route's handler that answers with its name, starting a span of the app's own first. */
const answering = (name: string) =>
  named(name, (req: Any, res: Any) => {
    routeOfSpan.set(trace.getActiveSpan()!.spanContext().spanId, name);
    tracer.startSpan('app ' + name).end();
    res.send(`${name} ${JSON.stringify(req.params)}`);
  });
const passing = (name: string) => named(name, (_req: Any, _res: Any, next: Any) => next());

async function assertSameTraces(
  define: (framework: Framework) => http.RequestListener,
  requests: Request[],
): Promise<Seen[]> {
  const { differences, ours } = await differencesOf(define, requests);
  assert.deepEqual(differences, []);
  return ours;
}

const get = (path: string, method = 'GET'): Request => ({ method, path });

describe('webapp/otel as instrumentation-express: cases the generator found', () => {
  it('a catch-all at the top, after a middleware at a path passed the request on, leaves no route', async () => {
    const ours = await assertSameTraces(
      (framework) => {
        const app = framework();
        app.use('/mw', passing('pass'));
        app.use(named('notFound', (_req: Any, res: Any) => res.status(404).send('nf')));
        return app as unknown as http.RequestListener;
      },
      [get('/mw/x'), get('/mw'), get('/elsewhere')],
    );
    assert.deepEqual(
      ours.map((seen) => seen.server),
      ['GET (undefined) 404', 'GET (undefined) 404', 'GET (undefined) 404'],
    );
  });

  it('an app or router a middleware calls is under its path, and its layers under its span', async () => {
    const ours = await assertSameTraces(
      (framework) => {
        const app = framework();
        const sub = framework();
        sub.get('/leaf/:id', answering('leaf'));
        const router = framework.Router();
        // An app given to Router#use is a plain middleware (no mount event), on Express too.
        router.use('/x', sub);
        app.use('/r', router);
        const api = framework.Router();
        api.get('/items/:id', answering('item'));
        app.use(
          '/api',
          named('callsApi', (req: Any, res: Any, next: Any) => api(req, res, next)),
        );
        return app as unknown as http.RequestListener;
      },
      [get('/r/x/leaf/1'), get('/api/items/2')],
    );
    assert.deepEqual(
      ours.map((seen) => seen.server),
      ['GET /r/x/leaf/:id (/r/x/leaf/:id) 200', 'GET /api/items/:id (/api/items/:id) 200'],
    );
    assert.deepEqual(ours[1]!.layers.slice(2), [
      '#2 middleware - callsApi [middleware] < server',
      '#3 request handler - /api/items/:id [request_handler] < #2',
    ]);
    assert.deepEqual(ours[1]!.own, ['#4 app item [app] < #3']);
  });

  it('a param callback after a middleware that called next() runs under the router, not that middleware', async () => {
    const ours = await assertSameTraces(
      (framework) => {
        const app = framework();
        app.use(passing('first'));
        app.param(
          'id',
          named('loadId', (_req: Any, _res: Any, next: Any) => {
            tracer.startSpan('app param').end();
            next();
          }),
        );
        app.get('/items/:id', answering('item'));
        return app as unknown as http.RequestListener;
      },
      [get('/items/3')],
    );
    assert.deepEqual(ours[0]!.own, ['#3 app param [app] < server', '#5 app item [app] < #4']);
  });
});

describe('webapp/otel where the Express instrumentation is wrong (docs/tracing.md)', () => {
  /** The server span's name and `http.route` on each side, as made (not normalised). */
  async function serverSpans(define: (framework: Framework) => http.RequestListener, requests: Request[]) {
    const theirs = await tracedOn(define(express), 'express', requests);
    const ours = await tracedOn(define(webapp as unknown as Framework), 'webapp', requests);
    const text = (traced: Traced) => `${traced.server.name} (${traced.server.route})`;
    return { express: theirs.map(text), webapp: ours.map(text), ours };
  }

  it('templates: `*`, a trailing `/`, a case-insensitive match, a query after `/`, a RegExp', async () => {
    const seen = await serverSpans(
      (framework) => {
        const app = framework();
        app.get('/', answering('root'));
        app.get('/a', answering('a'));
        app.get('/s/', answering('s'));
        app.get(/ab|cd/, answering('abcd'));
        const router = framework.Router();
        router.get('*', answering('starUnder'));
        app.use('/A', router);
        app.get('*', answering('star'));
        return app as unknown as http.RequestListener;
      },
      ['/?q=1', '/A', '/s', '/s/', '/xab', '/A/z', '/z'].map((path) => get(path)),
    );
    assert.deepEqual(seen.webapp, [
      'GET / (/)',
      'GET /a (/a)',
      'GET /s (/s)',
      'GET /s (/s)',
      'GET /ab|cd/ (/ab|cd/)',
      'GET /A/* (/A/*)',
      'GET /* (/*)',
    ]);
    assert.notDeepEqual(seen.express, seen.webapp);
  });

  it('a HEAD request and a route without GET; a request for `/` only a catch-all saw; a recovered error', async () => {
    const seen = await serverSpans(
      (framework) => {
        const app = framework();
        const api = framework.Router();
        api.post('/p', answering('post'));
        app.use('/api', api);
        app.use('/x', () => {
          throw new Error('boom');
        });
        app.use(named('recover', (_err: Any, _req: Any, _res: Any, next: Any) => next()));
        app.get('/x/:id', answering('x'));
        app.get('/', passing('root'));
        return app as unknown as http.RequestListener;
      },
      [get('/api/p', 'HEAD'), get('/x/1')],
    );
    assert.deepEqual(seen.webapp, ['HEAD /api (/api)', 'GET /x/:id (/x/:id)']);
    assert.deepEqual(seen.express, ['HEAD /api/p (/api/p)', 'GET /x/x/:id (/x/x/:id)']);
    const catchAll = await serverSpans(
      (framework) => {
        const app = framework();
        app.use(named('notFound', (_req: Any, res: Any) => res.status(404).send('nf')));
        return app as unknown as http.RequestListener;
      },
      [get('/')],
    );
    assert.deepEqual(catchAll.webapp, ['GET (undefined)']);
    assert.deepEqual(catchAll.express, ['GET / (/)']);
  });

  it('several functions in one Router#use: a span for each (Express: for the last one)', async () => {
    const spansOf = async (framework: Framework) => {
      const app = framework();
      const router = framework.Router();
      router.use('/x', passing('a'), answering('b'));
      app.use(router);
      const [traced] = await tracedOn(
        app as unknown as http.RequestListener,
        framework === express ? 'express' : 'webapp',
        [get('/x')],
      );
      return traced!.listed.map((each) => each.name).filter((name) => name.startsWith('middleware - '));
    };
    assert.deepEqual(await spansOf(webapp as unknown as Framework), [
      'middleware - query',
      'middleware - expressInit',
      'middleware - a',
      'middleware - b',
    ]);
    assert.ok(!(await spansOf(express)).includes('middleware - a'));
  });
});
