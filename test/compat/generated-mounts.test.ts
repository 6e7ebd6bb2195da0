/**
 * Generated trees of mounted apps and nested routers (seeded, so a failure
 * reproduces; WEBAPP_TEST_SEED draws other trees): each tree is built on express@4
 * and on webapp from the same description, the same requests go to both through
 * real HTTP, and status, headers (X-Powered-By for presence only) and body must
 * match. Handlers answer with what they see (URLs, params, query, the app, locals,
 * the route, proxy-derived values), so a difference in the walk, the mount-path
 * stripping, the prototypes given at creation or the layer index shows in the body.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { captureStderrOf } from '../support/capture-stderr';
import { comparable } from '../support/compare';
import { frameworks, rawRequest, withoutStackFrames, withServer, type Framework } from '../support/differential';
import { brandHiddenIn } from '../support/generated-answers';
import { chance, pick, prng, scaled, type Random } from '../support/prng';
import type { RawResponse, RequestSpec } from '../support/raw-http';
import { makePath, type PathSpec } from '../support/path-spec';

type Any = any;

/** The brand differs (`Express`, `webapp`): whether the header is there is what must match. */
const VOLATILE: ReadonlySet<string> = new Set(['date', 'connection', 'keep-alive']);

function normalized(res: RawResponse): RawResponse {
  const headers = brandHiddenIn(res.headers);
  // The final handler's page outside production shows a stack, whose frames differ:
  // a HEAD answer has no body to cut, only the length.
  if (res.body === '' && headers['content-security-policy'] !== undefined) delete headers['content-length'];
  // A view engine required by name names each framework's files in its require stack.
  const body = res.body.replace(/(Require stack:)(<br>- [^<]*)+/, '$1 <files>');
  if (body !== res.body) delete headers['content-length'];
  return withoutStackFrames({ ...res, headers, body });
}

// ---------------------------------------------------------------------------
// The description of a tree: plain data, built once per framework.

/** A path as `use`, a route or `app.route` takes it; regexps are described, and made anew per build. */

type Kind =
  | 'json'
  | 'jsonp'
  | 'send'
  | 'render'
  | 'render-ext'
  | 'redirect-back'
  | 'redirect-rel'
  | 'location'
  | 'status'
  | 'next'
  | 'route'
  | 'router'
  | 'error'
  | 'throw'
  | 'locals'
  | 'rewrite-prefix'
  | 'rewrite-root'
  | 'rewrite-query'
  | 'rewrite-strip'
  | 'async-next'
  | 'async-rewrite';

interface HandlerSpec {
  id: string;
  kind: Kind;
}

type Method = 'get' | 'post' | 'put' | 'delete' | 'all';

type LayerSpec =
  | { type: 'use'; path?: PathSpec; handlers: HandlerSpec[] }
  | { type: 'method'; method: Method; path: PathSpec; handlers: HandlerSpec[] }
  | { type: 'route'; path: PathSpec; methods: Array<[Method, HandlerSpec[]]> }
  | { type: 'mount'; path?: PathSpec; child: number; style: 'use' | 'callback' }
  | { type: 'error'; path?: PathSpec; id: string; kind: 'answer' | 'pass' | 'recover' }
  | { type: 'param'; name: string; id: string; transform: boolean };

interface NodeSpec {
  index: number;
  id: string;
  kind: 'app' | 'router';
  /** Router options, or app settings set at creation. */
  options: { mergeParams?: boolean; caseSensitive?: boolean; strict?: boolean };
  settings: Array<[string, unknown]>;
  /** App settings set once the app is filled and mounted (the router already made). */
  lateSettings: Array<[string, unknown]>;
  /** `tag` (a value) and `who` (a getter) on `app.request` and `app.response`, before or after mounting. */
  protoTags: 'none' | 'early' | 'late';
  /** An app mounted before its layers are added (its router then takes inherited settings). */
  mountFirst: boolean;
  layers: LayerSpec[];
}

interface TreeSpec {
  seed: number;
  nodes: NodeSpec[];
  rootEnv: string;
}

const LITERALS = ['a', 'b', 'x', 'users', 'api', 'A'];
const PARAM_NAMES = ['id', 'tenant', 'name'];
const MOUNT_PATHS: readonly (PathSpec | undefined)[] = [
  undefined,
  '/',
  '/a',
  '/b',
  '/a/b',
  '/api',
  '/:tenant',
  '/t/:tenant',
  '/:tenant/:id',
  ['/m', '/n/:id'],
  { re: '^\\/r(eg)?', flags: '' },
  { re: '^\\/(v\\d+)', flags: 'i' },
  { re: '\\/g', flags: 'g' },
  '/A',
  '/x/',
  '/v1.0',
  '/x',
];
const ROUTE_PATHS: readonly PathSpec[] = [
  '/',
  '/a',
  '/b/:id',
  '/:id',
  '/:name/:id',
  '/a/:id?',
  '/x',
  '/users/:id(\\d+)',
  '*',
  '/a/*',
  '/A',
  '/b/',
  { re: '^\\/z(\\d+)$', flags: '' },
  { re: '^\\/z(\\d+)$', flags: 'g' },
  ['/p', '/q/:id'],
  '/:id.:ext',
  '/a.json',
];

const TRUST_PROXY: readonly unknown[] = [true, false, 'loopback', 1, 2, '10.0.0.0/8', '127.0.0.1, 10.0.0.1'];
const QUERY_PARSERS: readonly unknown[] = ['extended', 'simple', false, true, 'fn'];

function answering(random: Random, middleware: boolean): Kind {
  if (middleware) {
    const roll = random();
    if (roll < 0.45) return pick(random, ['next', 'next', 'locals']);
    if (roll < 0.7)
      return pick(random, [
        'rewrite-prefix',
        'rewrite-root',
        'rewrite-query',
        'rewrite-strip',
        'async-next',
        'async-rewrite',
      ]);
    if (roll < 0.85) return pick(random, ['json', 'send', 'route']);
    return pick(random, ['router', 'error', 'throw']);
  }
  return pick(random, [
    'json',
    'json',
    'jsonp',
    'send',
    'render',
    'render-ext',
    'redirect-back',
    'redirect-rel',
    'location',
    'status',
  ]);
}

function handlers(random: Random, prefix: string, middleware: boolean): HandlerSpec[] {
  const count = 1 + Math.floor(random() * (middleware ? 2 : 3));
  const list: HandlerSpec[] = [];
  for (let i = 0; i < count; i++) {
    const last = i === count - 1;
    let kind: Kind;
    if (middleware) kind = answering(random, true);
    else if (last)
      kind = chance(random, 0.8) ? answering(random, false) : pick(random, ['next', 'route', 'router', 'error']);
    else
      kind = pick(random, [
        'next',
        'next',
        'async-next',
        'locals',
        'locals',
        'route',
        'router',
        'error',
        'throw',
        'json',
      ]);
    list.push({ id: `${prefix}${i}`, kind });
  }
  return list;
}

function generateTree(seed: number): TreeSpec {
  const random = prng(seed);
  const nodes: NodeSpec[] = [];
  const maxDepth = 2 + Math.floor(random() * 3);

  function node(kind: 'app' | 'router', depth: number): NodeSpec {
    const spec: NodeSpec = {
      index: nodes.length,
      id: `${kind === 'app' ? 'A' : 'R'}${nodes.length}`,
      kind,
      options: {},
      settings: [],
      lateSettings: [],
      protoTags: kind === 'app' ? pick(random, ['none', 'none', 'early', 'late'] as const) : 'none',
      mountFirst: kind === 'app' && depth > 0 && chance(random, 0.3),
      layers: [],
    };
    nodes.push(spec);
    if (kind === 'router') {
      if (chance(random, 0.5)) spec.options.mergeParams = true;
      if (chance(random, 0.25)) spec.options.caseSensitive = true;
      if (chance(random, 0.25)) spec.options.strict = true;
    } else {
      const settings: Array<[string, () => unknown]> = [
        ['trust proxy', () => pick(random, TRUST_PROXY)],
        ['etag', () => pick(random, ['weak', 'strong', false])],
        ['x-powered-by', () => chance(random, 0.5)],
        ['json spaces', () => pick(random, [2, 0, '\t'])],
        ['query parser', () => pick(random, QUERY_PARSERS)],
        ['env', () => pick(random, ['production', 'development'])],
        ['case sensitive routing', () => chance(random, 0.6)],
        ['strict routing', () => chance(random, 0.6)],
        ['view engine', () => 'tpl'],
        ['views', () => pick(random, ['one', 'two'])],
        ['subdomain offset', () => pick(random, [1, 3])],
        ['jsonp callback name', () => pick(random, ['cb', 'callback'])],
        ['json escape', () => chance(random, 0.5)],
        ['json replacer', () => pick(random, [['h', 'trace', 'text'], ['h']])],
      ];
      for (const [name, value] of settings) {
        if (chance(random, depth === 0 ? 0.25 : 0.2)) spec.settings.push([name, value()]);
        if (chance(random, 0.06)) spec.lateSettings.push([name, value()]);
      }
    }
    const fill = depth === 0 ? 4 + Math.floor(random() * 6) : 2 + Math.floor(random() * 6);
    // Some routers reach the layer index's size (8 layers and more).
    const count = kind === 'app' && depth > 0 && chance(random, 0.05) ? 0 : chance(random, 0.3) ? fill + 6 : fill;
    let n = 0;
    for (let i = 0; i < count; i++) {
      const prefix = `${spec.id}.${n++}.`;
      const roll = random();
      if (roll < 0.18) {
        spec.layers.push({
          type: 'use',
          path: chance(random, 0.5) ? pick(random, MOUNT_PATHS) : undefined,
          handlers: handlers(random, prefix, true),
        });
      } else if (roll < 0.45) {
        spec.layers.push({
          type: 'method',
          method: pick(random, ['get', 'get', 'get', 'post', 'all', 'delete', 'put']),
          path: pick(random, ROUTE_PATHS),
          handlers: handlers(random, prefix, false),
        });
      } else if (roll < 0.55) {
        const methods: Array<[Method, HandlerSpec[]]> = [];
        for (const method of ['get', 'post', 'all', 'put'] as Method[]) {
          if (chance(random, 0.45)) methods.push([method, handlers(random, `${prefix}${method}.`, false)]);
        }
        if (methods.length === 0) methods.push(['get', handlers(random, prefix, false)]);
        spec.layers.push({ type: 'route', path: pick(random, ROUTE_PATHS), methods });
      } else if (roll < 0.8 && depth < maxDepth) {
        const reusable = nodes.filter((each) => each.index > spec.index && isComplete(each));
        let child: NodeSpec;
        if (reusable.length > 0 && chance(random, 0.2)) child = pick(random, reusable);
        else child = node(chance(random, 0.5) ? 'app' : 'router', depth + 1);
        spec.layers.push({
          type: 'mount',
          path: chance(random, 0.85) ? pick(random, MOUNT_PATHS) : undefined,
          child: child.index,
          style: chance(random, 0.15) ? 'callback' : 'use',
        });
      } else if (roll < 0.88) {
        spec.layers.push({
          type: 'param',
          name: pick(random, PARAM_NAMES),
          id: `${prefix}p`,
          transform: chance(random, 0.3),
        });
      } else if (roll < 0.95) {
        spec.layers.push({
          type: 'error',
          path: chance(random, 0.3) ? pick(random, MOUNT_PATHS) : undefined,
          id: `${prefix}e`,
          kind: pick(random, ['answer', 'answer', 'pass', 'recover']),
        });
      } else {
        spec.layers.push({
          type: 'method',
          method: 'get',
          path: `/f${i}`,
          handlers: [{ id: `${prefix}f`, kind: 'send' }],
        });
      }
    }
    complete.add(spec.index);
    return spec;
  }
  const complete = new Set<number>();
  const isComplete = (each: NodeSpec) => complete.has(each.index);
  node('app', 0);
  return { seed, nodes, rootEnv: pick(random, ['test', 'test', 'development', 'production']) };
}

// ---------------------------------------------------------------------------
// Building a tree on one framework.

let viewsRoot = '';

const describePath = (path: unknown): unknown =>
  path instanceof RegExp ? String(path) : Array.isArray(path) ? path.map(describePath) : path;

/** A tiny engine: the view's file and what it was given, as JSON. */
function tplEngine(file: string, options: Any, callback: (err: unknown, html?: string) => void): void {
  callback(
    null,
    JSON.stringify({
      view: `${basename(dirname(file))}/${basename(file)}`,
      h: options.h,
      app: options.id ?? null,
      n: options.n ?? null,
      engine: options.settings?.['view engine'] ?? null,
    }),
  );
}

const queryParserFn = (str: string) => ({ raw: str });

/** How many own fields Node gives a request and a response (Node 20 to 26 differ). */
let nodeRequestKeys = 0;
let nodeResponseKeys = 0;

/** What a router or app passed to the callback it was called with. */
const describeOut = (err: unknown): string =>
  err === undefined ? 'undefined' : err === null ? 'null' : typeof err === 'string' ? err : 'error';

function build(framework: Framework, tree: TreeSpec): http.RequestListener {
  const made = new Map<number, Any>();
  const filled = new Set<number>();

  function view(req: Any, res: Any, id: string, owner: Any) {
    const app = req.app;
    return {
      h: id,
      app: app?.locals?.id ?? null,
      resApp: res.app?.locals?.id ?? null,
      own: app === owner,
      sameApp: app === res.app,
      url: req.url,
      originalUrl: req.originalUrl,
      baseUrl: req.baseUrl,
      path: req.path,
      params: req.params,
      keys: Object.keys(req.params ?? {}),
      query: req.query,
      route: req.route ? describePath(req.route.path) : null,
      locals: res.locals,
      trace: req.trace,
      seen: req.seen ?? null,
      hostname: req.hostname ?? null,
      protocol: req.protocol,
      ip: req.ip ?? null,
      ips: req.ips,
      secure: req.secure,
      subdomains: req.subdomains,
      mountpath: describePath(app?.mountpath),
      appPath: typeof app?.path === 'function' ? app.path() : null,
      mountedIn: app?.locals?.mountedIn ?? null,
      tags: [req.tag ?? null, req.who ?? null, res.tag ?? null, res.who ?? null],
      // The request's and response's own fields, in order (beyond Node's, which are the same on both).
      reqKeys: Object.keys(req).slice(nodeRequestKeys),
      // Left out: Node sets `_maxRequestsPerSocket` on a response after constructing it,
      // and a response born with the app's prototype (src/server-classes.ts) has `locals`
      // from its constructor, so `locals` comes before it in Object.keys(res), after it in
      // Express. An order of own keys only; nothing else of either differs.
      resKeys: Object.keys(res)
        .filter((key) => key !== '_maxRequestsPerSocket')
        .slice(nodeResponseKeys),
    };
  }

  function handler(spec: HandlerSpec, owner: Any) {
    const { id, kind } = spec;
    return (req: Any, res: Any, next: Any) => {
      (req.trace ??= []).push(id);
      switch (kind) {
        case 'json':
          return res.json(view(req, res, id, owner));
        case 'jsonp':
          return res.jsonp({ h: id, trace: req.trace, text: '<\u2028&>' });
        case 'send':
          return res.send(`<p>${id}</p>` + JSON.stringify(view(req, res, id, owner)));
        case 'render':
          return res.render('page', { h: id });
        case 'render-ext':
          return res.render('page.tpl', { h: id });
        case 'redirect-back':
          return res.redirect('back');
        case 'redirect-rel':
          return res.redirect('../up?from=' + id);
        case 'location':
          return res
            .location('rel/' + id)
            .status(201)
            .json(view(req, res, id, owner));
        case 'status':
          return res.sendStatus(pick(() => id.length / 40, [202, 204, 304, 418]));
        case 'next':
          return next();
        case 'route':
          return next('route');
        case 'router':
          return next('router');
        case 'error':
          return next(Object.assign(new Error('failed at ' + id), { status: 502 }));
        case 'throw':
          throw new Error('thrown at ' + id);
        case 'locals':
          res.locals.n = (res.locals.n ?? '') + id + ';';
          return next();
        case 'rewrite-prefix':
          req.url = '/x' + req.url;
          return next();
        case 'rewrite-root':
          req.url = '/';
          return next();
        case 'rewrite-query':
          req.url += (req.url.includes('?') ? '&' : '?') + 'rw=' + id;
          return next();
        case 'rewrite-strip':
          req.url = req.url.replace(/^\/[^/?]*/, '') || '/';
          return next();
        case 'async-next':
          return setImmediate(next);
        case 'async-rewrite':
          return setImmediate(() => {
            req.url = '/a' + req.url;
            next();
          });
      }
    };
  }

  function errorHandler(id: string, kind: 'answer' | 'pass' | 'recover', owner: Any) {
    return (err: Any, req: Any, res: Any, next: Any) => {
      (req.trace ??= []).push(id);
      if (kind === 'pass') return next(err);
      if (kind === 'recover') return next();
      // A view engine required by name names each framework's files in its require stack.
      const message = String(err.message).split('\nRequire stack')[0];
      res.status(err.status ?? 500).json({ err: message, ...view(req, res, id, owner) });
    };
  }

  function paramCallback(id: string, transform: boolean) {
    return (req: Any, _res: Any, next: Any, value: unknown, name: string) => {
      (req.trace ??= []).push(id);
      req.seen = (req.seen ?? '') + `${name}=${String(value)};`;
      if (transform) req.params[name] = `<${String(value)}>`;
      if (value === 'err') return next(new Error('param failed at ' + id));
      if (value === 'skip') return next('route');
      next();
    };
  }

  /** A value and a getter on the app's request and response prototypes. */
  function tag(app: Any, id: string): void {
    for (const proto of [app.request, app.response]) {
      proto.tag = id;
      Object.defineProperty(proto, 'who', {
        configurable: true,
        get(this: Any) {
          return `${id}:${this.app?.locals?.id}`;
        },
      });
    }
  }

  function applySettings(app: Any, settings: Array<[string, unknown]>): void {
    for (const [name, value] of settings) {
      if (name === 'views') app.set('views', join(viewsRoot, value as string));
      else if (name === 'query parser') app.set(name, value === 'fn' ? queryParserFn : value);
      else app.set(name, value);
    }
  }

  function create(spec: NodeSpec): Any {
    let made_: Any;
    if (spec.kind === 'router') {
      made_ = framework.Router(spec.options);
    } else {
      made_ = framework();
      made_.locals.id = spec.id;
      made_.on('mount', (parent: Any) => {
        made_.locals.mountedIn = (made_.locals.mountedIn ?? '') + parent.locals.id + ';';
      });
      applySettings(made_, spec.settings);
      if (spec.protoTags === 'early') tag(made_, spec.id);
      if (spec.index === 0) {
        made_.set('env', tree.rootEnv);
        made_.engine('tpl', tplEngine);
        made_.set('views', join(viewsRoot, 'one'));
      }
    }
    made.set(spec.index, made_);
    return made_;
  }

  function fill(spec: NodeSpec, owner: Any): void {
    if (filled.has(spec.index)) return;
    filled.add(spec.index);
    const target = made.get(spec.index);
    const ownApp = spec.kind === 'app' ? target : owner;
    const withPath = (path: PathSpec | undefined, ...fns: unknown[]) =>
      path === undefined ? target.use(...fns) : target.use(makePath(path), ...fns);
    for (const layer of spec.layers) {
      switch (layer.type) {
        case 'use':
          withPath(layer.path, ...layer.handlers.map((h) => handler(h, ownApp)));
          break;
        case 'method':
          target[layer.method](makePath(layer.path), ...layer.handlers.map((h) => handler(h, ownApp)));
          break;
        case 'route': {
          const route = target.route(makePath(layer.path));
          for (const [method, list] of layer.methods) route[method](...list.map((h) => handler(h, ownApp)));
          break;
        }
        case 'param':
          target.param(layer.name, paramCallback(layer.id, layer.transform));
          break;
        case 'error':
          withPath(layer.path, errorHandler(layer.id, layer.kind, ownApp));
          break;
        case 'mount': {
          const childSpec = tree.nodes[layer.child]!;
          const fresh = !made.has(childSpec.index);
          const child = fresh ? create(childSpec) : made.get(childSpec.index);
          if (layer.style === 'callback') {
            // Called as a function with a callback of its own, which reports what it was given.
            if (fresh) fill(childSpec, ownApp);
            withPath(layer.path, (req: Any, res: Any, next: Any) =>
              child(req, res, (err?: unknown) => {
                (req.trace ??= []).push(`${childSpec.id}:out(${describeOut(err)})`);
                next(err);
              }),
            );
          } else if (fresh && childSpec.mountFirst) {
            withPath(layer.path, child);
            fill(childSpec, ownApp);
          } else {
            fill(childSpec, ownApp);
            withPath(layer.path, child);
          }
          if (fresh) finish(childSpec);
          break;
        }
      }
    }
  }

  function finish(spec: NodeSpec): void {
    if (spec.kind !== 'app') return;
    const app = made.get(spec.index);
    applySettings(app, spec.lateSettings);
    if (spec.protoTags === 'late') tag(app, spec.id);
  }

  const root = create(tree.nodes[0]!);
  fill(tree.nodes[0]!, root);
  finish(tree.nodes[0]!);
  return root;
}

// ---------------------------------------------------------------------------
// Requests: paths through the tree's mount and route paths, and odd variants.

const VALUES = ['1', '42', 'err', 'skip', 'Ab', 'x.y', 'caf%C3%A9'];

function concrete(random: Random, path: PathSpec | undefined): string {
  if (path === undefined) return '';
  if (Array.isArray(path)) return concrete(random, pick(random, path));
  if (typeof path !== 'string') {
    if (path.re.includes('z')) return '/z' + pick(random, ['1', '12', 'x']);
    if (path.re.includes('v')) return pick(random, ['/v1', '/V2', '/v']);
    if (path.re.includes('g')) return pick(random, ['/g', '/g/g', '/xg']);
    return pick(random, ['/r', '/reg', '/rx']);
  }
  if (path === '*') return '/' + pick(random, ['q', 'q/r', '']);
  let out = path
    .replace(/:(\w+)\(\\d\+\)/g, () => pick(random, ['7', 'seven']))
    .replace(/\/:(\w+)\?/g, () => (chance(random, 0.5) ? '' : '/' + pick(random, VALUES)))
    .replace(/:(\w+)/g, () => pick(random, VALUES))
    .replace('*', pick(random, ['q', 'q/r']));
  if (out === '/') out = '';
  return out;
}

/** Walks down the tree: the mount paths, then a route or middleware path of the node reached. */
function pathThrough(random: Random, tree: TreeSpec): string {
  let nodeSpec = tree.nodes[0]!;
  let url = '';
  for (let depth = 0; depth < 6; depth++) {
    const mounts = nodeSpec.layers.filter((layer) => layer.type === 'mount');
    if (mounts.length > 0 && chance(random, 0.85)) {
      const mount = pick(random, mounts) as Extract<LayerSpec, { type: 'mount' }>;
      url += concrete(random, mount.path);
      nodeSpec = tree.nodes[mount.child]!;
      continue;
    }
    const ends = nodeSpec.layers.filter(
      (layer) => layer.type === 'method' || layer.type === 'route' || layer.type === 'use',
    );
    if (ends.length > 0) url += concrete(random, (pick(random, ends) as { path?: PathSpec }).path);
    else url += '/' + pick(random, LITERALS);
    break;
  }
  return url === '' ? '/' : url;
}

function oddly(random: Random, path: string): string {
  const [pathname, search] = path.split('?') as [string, string | undefined];
  let p = pathname;
  switch (Math.floor(random() * 12)) {
    case 0:
      p = p.endsWith('/') ? p : p + '/';
      break;
    case 1:
      p = p.toUpperCase();
      break;
    case 2: {
      const slashes = [...p.matchAll(/\//g)].map((m) => m.index!);
      const at = pick(random, slashes);
      p = p.slice(0, at) + '/' + p.slice(at);
      break;
    }
    case 3: {
      const slashes = [...p.matchAll(/\//g)].map((m) => m.index!).filter((i) => i > 0);
      if (slashes.length > 0) {
        const at = pick(random, slashes);
        p = p.slice(0, at) + '%2F' + p.slice(at + 1);
      } else p += '%2Fz';
      break;
    }
    case 4:
      p += pick(random, ['.json', '.', '/.', '/..', '/./y', '/%E9', '/%ZZ', '%2e']);
      break;
    case 5:
      p += '/' + pick(random, LITERALS);
      break;
    case 6:
      p = '/' + pick(random, LITERALS) + p;
      break;
    default:
      break;
  }
  const query = chance(random, 0.35)
    ? pick(random, ['?q=1', '?a=1&a=2&b[c]=3', '?n[a]=b&x', '?', '?rw=0&q=%20'])
    : search !== undefined
      ? '?' + search
      : '';
  return p + query;
}

function requestsFor(random: Random, tree: TreeSpec, count: number): RequestSpec[] {
  const out: RequestSpec[] = [];
  for (let i = 0; i < count; i++) {
    let path = chance(random, 0.7) ? pathThrough(random, tree) : oddly(random, pathThrough(random, tree));
    if (chance(random, 0.08)) path = '/' + pick(random, LITERALS) + '/' + pick(random, VALUES);
    const method = pick(random, ['GET', 'GET', 'GET', 'GET', 'HEAD', 'POST', 'OPTIONS', 'OPTIONS', 'DELETE', 'PUT']);
    const headers: Record<string, string> = {};
    if (chance(random, 0.3)) {
      headers['X-Forwarded-For'] = pick(random, ['1.2.3.4', '1.2.3.4, 10.0.0.1', '10.0.0.2, 10.0.0.1', 'bogus']);
      headers['X-Forwarded-Proto'] = pick(random, ['https', 'http', 'https, http']);
      headers['X-Forwarded-Host'] = pick(random, ['fwd.example.com:8080', 'a.b.sub.example.org', '[::1]:3000']);
    }
    if (chance(random, 0.3)) headers['Host'] = pick(random, ['deep.sub.example.com', 'example.com:81', 'localhost']);
    if (chance(random, 0.25)) headers['Referer'] = pick(random, ['/from/here', 'http://ref.example/x']);
    if (chance(random, 0.1)) headers['If-None-Match'] = '*';
    if (chance(random, 0.1))
      path += (path.includes('?') ? '&' : '?') + pick(random, ['callback=cb', 'cb=fn.x', 'callback[]=a']);
    if (chance(random, 0.05)) path = 'http://absolute.example' + path;
    else if (chance(random, 0.04)) path = pick(random, ['*', path + '#frag', path.replace('/', '\\'), path + '\\z#/y']);
    out.push({ method, path, headers });
  }
  return out;
}

// ---------------------------------------------------------------------------
// Reading a tree back as code, for a failure's report.

function describeTree(tree: TreeSpec): string {
  const lines: string[] = [`// seed ${tree.seed}, root env ${tree.rootEnv}`];
  const p = (path: PathSpec | undefined) => (path === undefined ? '' : JSON.stringify(path) + ', ');
  const sets = (v: string, settings: Array<[string, unknown]>) =>
    settings.map(([k, x]) => `${v}.set(${JSON.stringify(k)}, ${JSON.stringify(x)});`).join(' ');
  const hs = (list: HandlerSpec[]) => list.map((h) => `${h.kind}(${h.id})`).join(', ');
  for (const node of tree.nodes) {
    const v = node.id;
    lines.push(
      node.kind === 'app'
        ? `const ${v} = express(); ${sets(v, node.settings)}${node.mountFirst ? ' // mounted before filled' : ''}`
        : `const ${v} = express.Router(${JSON.stringify(node.options)});`,
    );
    for (const layer of node.layers) {
      switch (layer.type) {
        case 'use':
          lines.push(`  ${v}.use(${p(layer.path)}${hs(layer.handlers)});`);
          break;
        case 'method':
          lines.push(`  ${v}.${layer.method}(${p(layer.path)}${hs(layer.handlers)});`);
          break;
        case 'route':
          lines.push(`  ${v}.route(${p(layer.path)})${layer.methods.map(([m, l]) => `.${m}(${hs(l)})`).join('')};`);
          break;
        case 'mount':
          lines.push(
            layer.style === 'use'
              ? `  ${v}.use(${p(layer.path)}${tree.nodes[layer.child]!.id});`
              : `  ${v}.use(${p(layer.path)}(req, res, next) => ${tree.nodes[layer.child]!.id}(req, res, tracedNext));`,
          );
          break;
        case 'param':
          lines.push(
            `  ${v}.param(${JSON.stringify(layer.name)}, param${layer.transform ? 'Transforming' : ''}(${layer.id}));`,
          );
          break;
        case 'error':
          lines.push(`  ${v}.use(${p(layer.path)}errorHandler_${layer.kind}(${layer.id}));`);
          break;
      }
    }
    if (node.kind === 'app') {
      const late = sets(v, node.lateSettings);
      if (late) lines.push(`  ${late} // once filled and mounted`);
      if (node.protoTags !== 'none')
        lines.push(
          `  // ${v}.request/response get tag and who ${node.protoTags === 'early' ? 'when made' : 'once mounted'}`,
        );
    }
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------

async function answersOn(framework: Framework, tree: TreeSpec, requests: RequestSpec[]): Promise<RawResponse[]> {
  const app = build(framework, tree);
  return withServer(app, async (port) => {
    const answers: RawResponse[] = [];
    for (const spec of requests) answers.push(normalized(await rawRequest(port, spec)));
    return answers;
  });
}

/** Differences between express@4 and webapp for the tree and requests, as printable text. */
async function differencesOf(tree: TreeSpec, requests: RequestSpec[]): Promise<string[]> {
  const [theirs, ours] = [
    await answersOn(frameworks[0]![1], tree, requests),
    await answersOn(frameworks[1]![1], tree, requests),
  ];
  const out: string[] = [];
  for (let i = 0; i < requests.length; i++) {
    const want = comparable(theirs[i]!, VOLATILE);
    const got = comparable(ours[i]!, VOLATILE);
    try {
      assert.deepEqual(got, want);
    } catch {
      const spec = requests[i]!;
      out.push(
        `${spec.method} ${spec.path} ${JSON.stringify(spec.headers)}\n` +
          `  express: ${JSON.stringify(want)}\n  webapp:  ${JSON.stringify(got)}`,
      );
    }
  }
  return out;
}

before(async () => {
  await withServer(
    (req, res) => {
      nodeRequestKeys = Object.keys(req).length;
      nodeResponseKeys = Object.keys(res).filter((key) => key !== '_maxRequestsPerSocket').length;
      res.end();
    },
    (port) => rawRequest(port, { path: '/' }),
  );
  viewsRoot = mkdtempSync(join(tmpdir(), 'webapp-mounts-'));
  for (const dir of ['one', 'two']) {
    mkdirSync(join(viewsRoot, dir));
    writeFileSync(join(viewsRoot, dir, 'page.tpl'), '');
  }
});
after(() => rmSync(viewsRoot, { recursive: true, force: true }));

/** MOUNT_TREES=n draws more trees (or fewer); MOUNT_SHOWN=n shows more of the trees that differ. */
const TREES = Number(process.env.MOUNT_TREES ?? scaled(150));
const SHOWN = Number(process.env.MOUNT_SHOWN ?? 4);
const REQUESTS_PER_TREE = 12;

describe('generated trees of mounted apps and routers, as express@4', () => {
  it(`${TREES} trees, ${REQUESTS_PER_TREE} requests each`, async () => {
    const failures: string[] = [];
    let compared = 0;
    await captureStderrOf(async () => {
      for (let t = 0; t < TREES; t++) {
        const seed = 0x6d0 + t;
        const tree = generateTree(seed);
        const requests = requestsFor(prng(seed * 7 + 1), tree, REQUESTS_PER_TREE);
        compared += requests.length;
        const differences = await differencesOf(tree, requests);
        if (differences.length > 0) failures.push(`${describeTree(tree)}\n${differences.join('\n')}`);
      }
    });
    assert.ok(compared >= TREES * REQUESTS_PER_TREE);
    assert.equal(
      failures.length,
      0,
      `${failures.length} of ${TREES} trees differ:\n\n${failures.slice(0, SHOWN).join('\n\n')}`,
    );
  });
});

// ---------------------------------------------------------------------------
// Hand-written cases: what the generator does not build (layers added while serving,
// a request handed back to the app, `next` called twice, targets a client rarely sends).

async function assertSameAnswers(
  define: (framework: Framework) => Any,
  requests: RequestSpec[],
): Promise<RawResponse[]> {
  const seen: RawResponse[][] = [];
  for (const [, framework] of frameworks) {
    seen.push(
      await withServer(define(framework), async (port) => {
        const answers: RawResponse[] = [];
        for (const spec of requests) answers.push(normalized(await rawRequest(port, spec)));
        return answers;
      }),
    );
  }
  const [theirs, ours] = seen as [RawResponse[], RawResponse[]];
  for (let i = 0; i < requests.length; i++) {
    const spec = requests[i]!;
    assert.deepEqual(
      comparable(ours[i]!, VOLATILE),
      comparable(theirs[i]!, VOLATILE),
      `${spec.method ?? 'GET'} ${spec.path}: webapp differs`,
    );
  }
  return ours;
}

/** What a handler sees of the walk. */
const seenBy = (req: Any) => ({
  url: req.url,
  originalUrl: req.originalUrl,
  baseUrl: req.baseUrl,
  path: req.path,
  params: req.params,
  query: req.query,
  app: req.app?.locals?.id ?? null,
  route: req.route ? describePath(req.route.path) : null,
  trace: req.trace ?? null,
});

/** Nine routes, so the router routes through its layer index. */
function indexed(router: Any): Any {
  for (let i = 0; i < 9; i++) router.get(`/f${i}`, (_req: Any, res: Any) => res.send(`f${i}`));
  return router;
}

describe('mounted apps and routers, hand-written cases, as express@4', () => {
  it('a route added to an indexed router by a middleware of the same request is routed to at once', async () => {
    const answers = await assertSameAnswers(
      (framework) => {
        const app = indexed(framework());
        const router = indexed(framework.Router());
        let added = false;
        const addLate = (_req: Any, _res: Any, next: Any) => {
          if (!added) {
            added = true;
            app.get('/late', (req: Any, res: Any) => res.json(seenBy(req)));
            router.get('/late/:id', (req: Any, res: Any) => res.json(seenBy(req)));
          }
          next();
        };
        app.use(addLate);
        app.use('/r', router);
        router.use(addLate);
        return app;
      },
      [{ path: '/late' }, { path: '/r/late/1' }, { path: '/late' }],
    );
    assert.equal(answers[0]!.status, 200);
  });

  it('a sub-app hands the request back to the root app (`req.url = ...; app.handle(req, res)`)', async () => {
    await assertSameAnswers(
      (framework) => {
        const app = indexed(framework());
        app.locals.id = 'root';
        const sub = framework();
        sub.locals.id = 'sub';
        sub.set('query parser', 'simple');
        sub.get('/go', (req: Any, res: Any) => {
          req.url = '/target?b[c]=1';
          app.handle(req, res);
        });
        app.use('/sub/:tenant', sub);
        app.get('/target', (req: Any, res: Any) => res.json(seenBy(req)));
        return app;
      },
      [{ path: '/sub/t/go' }, { path: '/sub/t/go?a[b]=2' }, { path: 'http://absolute.example/sub/t/go' }],
    );
  });

  it('a middleware calling next() twice, ahead of mounted routers', async () => {
    await assertSameAnswers(
      (framework) => {
        const app = framework();
        const outer = framework.Router();
        const inner = framework.Router({ mergeParams: true });
        inner.use((req: Any, res: Any, next: Any) => {
          res.write(`[inner ${JSON.stringify(seenBy(req))}]`);
          next();
        });
        outer.use((_req: Any, _res: Any, next: Any) => {
          next();
          next();
        });
        outer.use('/:id', inner);
        outer.use((req: Any, res: Any, next: Any) => {
          res.write(`[after ${JSON.stringify(seenBy(req))}]`);
          next();
        });
        app.use('/o', outer);
        app.use((req: Any, res: Any) => {
          if (!res.writableEnded) res.end(`[end ${JSON.stringify(seenBy(req))}]`);
        });
        return app;
      },
      [{ path: '/o/1/z' }, { path: '/o' }],
    );
  });

  it('targets with a fragment, backslashes, `*` and absolute forms, through mounted apps and routers', async () => {
    await assertSameAnswers(
      (framework) => {
        const app = framework();
        app.locals.id = 'root';
        const sub = indexed(framework());
        sub.locals.id = 'sub';
        const router = framework.Router({ mergeParams: true });
        router.get('/:x', (req: Any, res: Any) => res.json(seenBy(req)));
        sub.use('/r', router);
        sub.use((req: Any, res: Any) => res.json({ tail: true, ...seenBy(req) }));
        app.use('/s/:t', sub);
        app.use(['/m', '/n'], [sub, router]);
        return app;
      },
      [
        '/s/1/r/2#f',
        '/s/1/r/2?x=1#f',
        '/s/1\\r/2',
        '/s/1/r\\2#x',
        '/s/1/r/2%23',
        '/m/r/q',
        '/n/r/q',
        'http://h.example/s/1/r/2#f',
        'http://h.example',
        'http://h.example?x=1',
        '/s/1/r/a%2',
        '/s/%ZZ/r/2',
      ]
        .map((path): RequestSpec => ({ path }))
        .concat([
          { method: 'OPTIONS', path: '*' },
          { method: 'OPTIONS', path: '/s/1/r/2' },
        ]),
    );
  });

  it('a sub-app mounted in two apps, and one whose mount listener was removed', async () => {
    await assertSameAnswers(
      (framework) => {
        const a = framework();
        a.locals.id = 'a';
        a.set('trust proxy', true);
        a.set('json spaces', 3);
        const b = framework();
        b.locals.id = 'b';
        const sub = framework();
        sub.locals.id = 'sub';
        const deaf = framework();
        deaf.locals.id = 'deaf';
        deaf.removeAllListeners('mount');
        for (const each of [sub, deaf]) {
          each.get('/x', (req: Any, res: Any) =>
            res.json({
              ...seenBy(req),
              ip: req.ip,
              hostname: req.hostname,
              mountpath: req.app.mountpath,
              appPath: req.app.path(),
              parent: req.app.parent.locals.id,
            }),
          );
        }
        a.use('/a', sub);
        b.use('/b', sub);
        a.use('/bb', b);
        a.use('/deaf', deaf);
        return a;
      },
      ['/a/x', '/bb/b/x', '/deaf/x'].map((path) => ({
        path,
        headers: { 'X-Forwarded-For': '9.9.9.9', 'X-Forwarded-Host': 'f.example' },
      })),
    );
  });
});
