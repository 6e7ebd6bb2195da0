/**
 * Generated view rendering (seeded, so a failure reproduces; WEBAPP_TEST_SEED draws
 * other cases): each case is an app built on express@4 and on webapp from the same
 * description (views directories, `view engine`, engines, a `view` class, locals at
 * every level, `view cache` and the environment, a mounted sub-app), then one
 * `res.render` or `app.render` call of a generated view name. Status, headers
 * (X-Powered-By for presence only) and body must match, and so must what the engines,
 * view classes and error handlers noted on the side (a second callback, an error
 * after the response ended).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { inherits, inspect } from 'node:util';
import express from 'express';
import webapp = require('../../src/index');
import { captureStderrOf } from '../support/capture-stderr';
import { assertSameResponses, withoutStackFrames, type Framework } from '../support/differential';
import {
  answersOf,
  assertNoDifferences,
  brandHidden,
  isDeepStrictEqual,
  type Answer,
} from '../support/generated-answers';
import { chance, pick, prng, type Random } from '../support/prng';
import type { RawResponse } from '../support/raw-http';

type Any = any;

// ---------------------------------------------------------------------------
// The views on disk: three directories (one named relative to the working
// directory), a file outside them, and names that hold dots, spaces, `%`, accents.

let base = '';
const dirs = { v1: '', v2: '', v3: '', rel2: '' };

const FILES: Record<string, string[]> = {
  v1: [
    'page.tpl',
    'page.ejs',
    'page.hbs',
    'page.twig',
    'page.pug',
    'page.html',
    'page.eta',
    'a/index.tpl',
    'a/index.ejs',
    'a/b.tpl',
    'a/b.ejs',
    'dot.name.tpl',
    'dot.name.ejs',
    'both.tpl',
    'both.ejs',
    'odd name%20.tpl',
    'café.tpl',
    'index.tpl',
    'dironly/index.tpl',
    'x.tpl.tpl',
    'UPPER.TPL',
  ],
  v2: ['both.tpl', 'both.ejs', 'only2.tpl', 'only2.ejs', 'a.tpl', 'a.ejs', 'page.hbs', 'dironly.tpl'],
  v3: ['only3.tpl', 'only3.ejs', 'both.tpl', 'a/b/index.tpl'],
};

function template(file: string): string {
  const ext = file.slice(file.lastIndexOf('.'));
  switch (ext) {
    case '.ejs':
      return `ejs ${file} <%= locals.k %> <%= typeof cache %>`;
    case '.hbs':
      return `hbs ${file} {{k}}`;
    case '.twig':
      return `twig ${file} {{ k }}`;
    case '.pug':
      return `p pug #{k}`;
    case '.eta':
      return `eta ${file} <%= it.k %>`;
    default:
      return `raw ${file}`;
  }
}

function writeViews(): void {
  base = mkdtempSync(join(tmpdir(), 'webapp-gen-views-'));
  for (const [dir, files] of Object.entries(FILES)) {
    const root = join(base, dir);
    dirs[dir as 'v1'] = root;
    for (const file of files) {
      mkdirSync(join(root, file, '..'), { recursive: true });
      writeFileSync(join(root, file), template(file));
    }
  }
  writeFileSync(join(base, 'outside.tpl'), 'raw outside');
  // Engine modules named by absolute path (`view engine` '/tmp/.../enginemod'): one exports null.
  writeFileSync(join(base, 'nullmod.js'), 'module.exports = null;\n');
  writeFileSync(
    join(base, 'enginemod.js'),
    'exports.__express = (path, options, callback) => callback(null, "enginemod " + path);\n',
  );
  writeFileSync(join(base, 'outside.ejs'), 'ejs outside <%= locals.k %>');
  dirs.rel2 = relative(process.cwd(), dirs.v2);
}

const short = (text: string) => (base ? text.split(base).join('<tmp>') : text);

// ---------------------------------------------------------------------------
// The description of a case: plain data, built once per framework.

type ViewsSpec =
  'unset' | 'v1' | 'v1/' | 'rel2' | '[v1,v2]' | '[v2,v1]' | '[v1,v2,v3]' | '[rel2,v3]' | '[v1]' | '[]' | '[v1,v1]' | 42;

type EngineKind =
  | 'sync'
  | 'async'
  | 'microtask'
  | 'twice-sync'
  | 'twice-async'
  | 'throw'
  | 'throw-string'
  | 'error-sync'
  | 'error-async'
  | 'error-string'
  | 'no-args'
  | 'value-number'
  | 'value-404'
  | 'value-object'
  | 'value-null'
  | 'value-buffer'
  | 'value-true'
  | 'ejs.renderFile'
  | 'ejs.__express'
  | 'consolidate.handlebars'
  | 'express-handlebars'
  | 'hbs.__express'
  | 'eta'
  | 'not-a-function';

interface EngineSpec {
  ext: string;
  kind: EngineKind;
}

type ViewClassSpec =
  | 'none'
  | 'subclass-lookup'
  | 'subclass-render'
  | 'subclass-resolve-falsy'
  | 'subclass-no-render'
  | 'function-inherits'
  | 'standalone'
  | 'standalone-no-path'
  | 'throwing-ctor'
  | 'arrow'
  | 'object'
  | 'returns-other';

type Call =
  | 'res.render'
  | 'res.render-cb'
  | 'res.render-cb-only'
  | 'app.render'
  | 'app.render-cb-only'
  | 'app.render-no-cb'
  | 'twice'
  | 'twice-switch';

interface Settings {
  views?: ViewsSpec;
  viewEngine?: string;
  viewCache?: boolean;
  engines: EngineSpec[];
  viewClass: ViewClassSpec;
}

interface Case {
  env: 'test' | 'production' | 'env-setting-production';
  app: Settings;
  /** A sub-app mounted on the case's app (`inherit`: with no settings of its own). */
  sub?: Settings & { renderIn: 'sub' | 'parent-after-sub' | 'parent-from-sub'; mountFirst: boolean };
  appLocals: Record<string, unknown>;
  resLocals: Record<string, unknown>;
  options: string;
  name: unknown;
  call: Call;
  errors: 'handler' | 'final';
  head: boolean;
}

const VIEWS: readonly ViewsSpec[] = [
  'unset',
  'v1',
  'v1',
  'v1/',
  'rel2',
  '[v1,v2]',
  '[v1,v2]',
  '[v2,v1]',
  '[v1,v2,v3]',
  '[rel2,v3]',
  '[v1]',
  '[]',
  '[v1,v1]',
  42,
];

const VIEW_ENGINES: readonly (string | undefined)[] = [
  undefined,
  undefined,
  'tpl',
  'tpl',
  '.tpl',
  'ejs',
  '.ejs',
  'hbs',
  'twig',
  'pug',
  'html',
  'eta',
  'nosuchengine',
  'TPL',
  'abs:nullmod',
  'abs:enginemod',
];

const INLINE_KINDS: readonly EngineKind[] = [
  'sync',
  'sync',
  'sync',
  'async',
  'async',
  'microtask',
  'twice-sync',
  'twice-async',
  'throw',
  'throw-string',
  'error-sync',
  'error-async',
  'error-string',
  'no-args',
  'value-number',
  'value-404',
  'value-object',
  'value-null',
  'value-buffer',
  'value-true',
];

/** Names relative to the views, absolute ones, escapes, odd characters and non-strings (`abs:` is made absolute). */
const NAMES: readonly unknown[] = [
  'page',
  'page',
  'page.tpl',
  'page.tpl',
  'page.ejs',
  'page.hbs',
  'page.twig',
  'page.pug',
  'page.html',
  'page.eta',
  'a',
  'a/b',
  'a/index',
  'a/',
  'a/b/',
  'dot.name',
  'dot.name.tpl',
  'both',
  'both.tpl',
  'only2',
  'only3.tpl',
  'missing',
  'missing.tpl',
  '',
  '.tpl',
  'abs:v1/page.tpl',
  'abs:v1/page',
  'abs:v2/only2',
  'abs:outside.tpl',
  '../outside',
  '../outside.tpl',
  'a/../page',
  './page',
  'odd name%20',
  'odd name%20.tpl',
  'odd%20name%2520',
  'café',
  'caf%C3%A9.tpl',
  'dironly',
  'dironly.tpl',
  'x.tpl',
  'UPPER.TPL',
  'UPPER',
  'page.TPL',
  'page\0.tpl',
  'index',
  'page.nosuch',
  undefined,
  null,
  42,
  ['page'],
  { toString: () => 'page' },
];

const LOCAL_VALUES: readonly unknown[] = ['app', 'res', 'opt', 0, null, false, 'x y', { nested: true }];

const OPTIONS: readonly string[] = [
  'omitted',
  'omitted',
  '{}',
  '{k}',
  '{k}',
  '{k, extra}',
  '{cache: true}',
  '{cache: false}',
  '{cache: "yes"}',
  '{cache: null}',
  '{settings}',
  '{_locals}',
  'proto',
  'null',
  'undefined',
  'string',
  '{__proto__ json}',
];

function settings(random: Random, forSub: boolean): Settings {
  const spec: Settings = { engines: [], viewClass: 'none' };
  if (!forSub || chance(random, 0.4)) spec.views = pick(random, VIEWS);
  if (!forSub ? chance(random, 0.8) : chance(random, 0.35)) spec.viewEngine = pick(random, VIEW_ENGINES);
  if (chance(random, 0.25)) spec.viewCache = chance(random, 0.6);
  const engineCount = forSub ? (chance(random, 0.5) ? 0 : 1) : chance(random, 0.1) ? 0 : 1 + Math.floor(random() * 3);
  for (let i = 0; i < engineCount; i++) {
    const roll = random();
    if (roll < 0.55)
      spec.engines.push({
        ext: pick(random, ['tpl', '.tpl', 'tpl', 'html', 'TPL', '']),
        kind: pick(random, INLINE_KINDS),
      });
    else if (roll < 0.7)
      spec.engines.push({
        ext: pick(random, ['ejs', '.ejs']),
        kind: pick(random, ['ejs.renderFile', 'ejs.__express', 'sync', 'async']),
      });
    else if (roll < 0.85)
      spec.engines.push({
        ext: pick(random, ['hbs', '.hbs']),
        kind: pick(random, ['consolidate.handlebars', 'express-handlebars', 'hbs.__express']),
      });
    else if (roll < 0.95) spec.engines.push({ ext: pick(random, ['eta', '.eta']), kind: 'eta' });
    else spec.engines.push({ ext: 'tpl', kind: 'not-a-function' });
  }
  if (chance(random, forSub ? 0.1 : 0.2))
    spec.viewClass = pick(random, [
      'subclass-lookup',
      'subclass-lookup',
      'subclass-render',
      'subclass-resolve-falsy',
      'subclass-no-render',
      'function-inherits',
      'standalone',
      'standalone-no-path',
      'throwing-ctor',
      'arrow',
      'object',
      'returns-other',
    ] as const);
  return spec;
}

function locals(random: Random, level: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (chance(random, 0.6)) out.k = chance(random, 0.7) ? level : pick(random, LOCAL_VALUES);
  if (chance(random, 0.3)) out[`only_${level}`] = level;
  if (chance(random, 0.1)) out.cache = pick(random, [true, false, 0, 'on']);
  if (chance(random, 0.08)) out._locals = { k: `${level}-private` };
  if (chance(random, 0.06)) out.settings = { views: 'nowhere', 'view engine': 'tpl' };
  return out;
}

/** Names found in v1, v2 or v3 by the engines of a coherent setup. */
const FOUND_NAMES: readonly string[] = [
  'page',
  'page.tpl',
  'a',
  'a/b',
  'a/index',
  'a/',
  'dot.name',
  'both',
  'both.tpl',
  'only2',
  'only3.tpl',
  'index',
  'dironly',
  'odd name%20',
  'café',
  'x.tpl',
  'abs:v1/page.tpl',
  'abs:v2/only2',
  '../outside',
  'a/../page',
  './page',
  'page.ejs',
  'a/b.ejs',
  'both.ejs',
  'page.hbs',
];

const WORKING_KINDS: readonly EngineKind[] = ['sync', 'sync', 'sync', 'async', 'async', 'microtask'];

/**
 * Most setups work (views holding the files, a `tpl` engine that answers, names
 * found): the differences hide in what the engine is given. The rest are drawn
 * from every option, mostly failures.
 */
function coherent(random: Random): Settings {
  const spec = settings(random, false);
  spec.views = pick(random, ['v1', 'v1', 'v1/', '[v1,v2]', '[v2,v1]', '[v1,v2,v3]', '[v1,v1]', '[rel2,v3]'] as const);
  spec.viewEngine = pick(random, [undefined, 'tpl', 'tpl', '.tpl', 'ejs', '.ejs']);
  const kind = chance(random, 0.8) ? pick(random, WORKING_KINDS) : pick(random, INLINE_KINDS);
  spec.engines.unshift({ ext: pick(random, ['tpl', '.tpl']), kind });
  spec.engines = spec.engines.filter((engine, i) => i === 0 || !/^\.?tpl$/.test(engine.ext));
  if (chance(random, 0.6)) spec.viewClass = 'none';
  return spec;
}

function generateCase(random: Random): Case {
  const working = chance(random, 0.65);
  const item: Case = {
    env: working
      ? pick(random, ['test', 'test', 'test', 'test', 'production', 'env-setting-production'] as const)
      : pick(random, ['test', 'test', 'test', 'production', 'env-setting-production'] as const),
    app: working ? coherent(random) : settings(random, false),
    appLocals: locals(random, 'app'),
    resLocals: locals(random, 'res'),
    options: working && chance(random, 0.7) ? pick(random, OPTIONS.slice(0, 13)) : pick(random, OPTIONS),
    name: working && chance(random, 0.85) ? pick(random, FOUND_NAMES) : pick(random, NAMES),
    call: pick(random, [
      'res.render',
      'res.render',
      'res.render',
      'res.render-cb',
      'res.render-cb',
      'res.render-cb-only',
      'app.render',
      'app.render',
      'app.render-cb-only',
      'app.render-no-cb',
      'twice',
      'twice-switch',
    ] as const),
    errors: chance(random, 0.6) ? 'handler' : 'final',
    head: chance(random, 0.05),
  };
  // Without a callback, an engine of a module (ejs, hbs...) calling back later would throw
  // out of a timer: the inline engines of `.tpl` check for the callback instead.
  if (item.call === 'app.render-no-cb' && !(typeof item.name === 'string' && item.name.endsWith('.tpl')))
    item.call = 'app.render';
  if (chance(random, 0.25))
    item.sub = {
      ...settings(random, true),
      renderIn: pick(random, ['sub', 'sub', 'parent-after-sub', 'parent-from-sub'] as const),
      mountFirst: chance(random, 0.3),
    };
  return item;
}

// ---------------------------------------------------------------------------
// Building a case on one framework.

/** What engines, view classes and late error handlers note, per case, on each side. */
type Notes = Map<number, string[]>;

function viewsValue(spec: ViewsSpec): unknown {
  if (typeof spec === 'number') return spec;
  const one = (name: string) => (name === 'v1/' ? dirs.v1 + '/' : dirs[name as 'v1']);
  if (spec.startsWith('[')) {
    const inner = spec.slice(1, -1);
    return inner === '' ? [] : inner.split(',').map(one);
  }
  return one(spec);
}

function nameValue(name: unknown): unknown {
  if (typeof name === 'string' && name.startsWith('abs:')) return join(base, name.slice(4));
  if (Array.isArray(name)) return [...name];
  return name;
}

function describeError(err: Any): string {
  if (err === null || typeof err !== 'object') return `thrown ${typeof err}: ${String(err)}`;
  const message = String(err.message).split('\nRequire stack:')[0];
  const v = err.view;
  const view = v
    ? ` view={name:${inspect(v.name)} root:${inspect(v.root)} ext:${inspect(v.ext)} path:${inspect(v.path)} ` +
      `defaultEngine:${inspect(v.defaultEngine)} engine:${typeof v.engine}}`
    : '';
  return short(`${err.name}: ${message} code=${String(err.code)}${view}`);
}

/** What an inline engine answers: what it was given. */
function report(id: string, path: string, options: Any, app: Any): string {
  const out: Record<string, unknown> = {
    engine: id,
    path,
    keys: Object.keys(options),
    k: options.k,
    cache: options.cache,
    locals: options._locals === undefined ? 'none' : options._locals,
    settingsViews: options.settings && options.settings.views,
    settingsEngine: options.settings && options.settings['view engine'],
    settingsKeys: options.settings ? Object.keys(options.settings) : null,
    sameSettings: options.settings === app.settings,
  };
  return short(JSON.stringify(out));
}

function inlineEngine(kind: EngineKind, id: string, app: Any, notes: string[]): Any {
  const answer = (path: string, options: Any) => report(`${id}:${kind}`, path, options, app);
  // `app.render` without a callback: a later call would throw out of a timer (and end the process).
  const later = (callback: Any, fn: () => void) => {
    if (typeof callback === 'function') return setImmediate(fn);
    notes.push('no callback to call later');
  };
  // A callback called a second time after the response was sent throws (headers sent): noted, not thrown on.
  const again = (callback: Any, ...args: unknown[]) => {
    try {
      callback(...args);
      notes.push('second callback returned');
    } catch (err) {
      notes.push('second callback threw ' + describeError(err));
    }
  };
  switch (kind) {
    case 'sync':
      return (path: string, options: Any, callback: Any) => callback(null, answer(path, options));
    case 'async':
      return (path: string, options: Any, callback: Any) =>
        later(callback, () => callback(null, answer(path, options)));
    case 'microtask':
      return (path: string, options: Any, callback: Any) =>
        typeof callback === 'function'
          ? queueMicrotask(() => callback(null, answer(path, options)))
          : notes.push('no callback to call later');
    case 'twice-sync':
      return (path: string, options: Any, callback: Any) => {
        callback(null, answer(path, options));
        callback(null, 'second');
      };
    case 'twice-async':
      return (path: string, options: Any, callback: Any) =>
        later(callback, () => {
          callback(null, answer(path, options));
          setImmediate(() => again(callback, null, 'second'));
        });
    case 'throw':
      return () => {
        throw new Error('engine threw');
      };
    case 'throw-string':
      return () => {
        throw 'engine threw a string';
      };
    case 'error-sync':
      return (_path: string, _options: Any, callback: Any) => callback(new Error('engine failed'));
    case 'error-async':
      return (_path: string, _options: Any, callback: Any) =>
        later(callback, () => callback(Object.assign(new Error('engine failed later'), { status: 418 })));
    case 'error-string':
      return (_path: string, _options: Any, callback: Any) => callback('engine failed as a string');
    case 'no-args':
      return (_path: string, _options: Any, callback: Any) => callback();
    case 'value-number':
      return (_path: string, _options: Any, callback: Any) => callback(null, 42);
    case 'value-404':
      return (_path: string, _options: Any, callback: Any) => callback(null, 404);
    case 'value-object':
      return (path: string, _options: Any, callback: Any) => callback(null, { rendered: short(path) });
    case 'value-null':
      return (_path: string, _options: Any, callback: Any) => callback(null, null);
    case 'value-buffer':
      return (path: string, _options: Any, callback: Any) => callback(null, Buffer.from('buffer ' + short(path)));
    case 'value-true':
      return (_path: string, _options: Any, callback: Any) => callback(null, true);
    default:
      throw new Error(`not an inline engine: ${kind}`);
  }
}

function engineOf(spec: EngineSpec, id: string, app: Any, notes: string[]): Any {
  switch (spec.kind) {
    case 'ejs.renderFile':
      return require('ejs').renderFile;
    case 'ejs.__express':
      return require('ejs').__express;
    case 'consolidate.handlebars':
      return require('consolidate').handlebars;
    case 'express-handlebars':
      return require('express-handlebars').engine({ defaultLayout: false, partialsDir: [], layoutsDir: base });
    case 'hbs.__express':
      return require('hbs').__express;
    case 'eta': {
      const { Eta } = require('eta');
      const eta = new Eta({ views: base, cache: false });
      return (path: string, options: Any, callback: Any) => {
        let html: string;
        try {
          html = eta.render(path, options);
        } catch (err) {
          return callback(err);
        }
        callback(null, html);
      };
    }
    case 'not-a-function':
      return 'not a function';
    default:
      return inlineEngine(spec.kind, id, app, notes);
  }
}

function viewClass(spec: ViewClassSpec, Base: Any, notes: string[]): unknown {
  switch (spec) {
    case 'subclass-lookup':
      return class LookupView extends Base {
        lookup(name: string) {
          const found = super.lookup(name);
          notes.push(short(`lookup ${inspect(name)} -> ${inspect(found)}`));
          return found;
        }
      };
    case 'subclass-render':
      return class RenderView extends Base {
        render(options: Any, callback: Any) {
          notes.push(short(`render ${this.path} ${this.ext} ${typeof this.engine}`));
          super.render({ ...options, k: `view(${String(options.k)})` }, callback);
        }
      };
    case 'subclass-resolve-falsy':
      // `lookup` answers what the last root's `resolve` gave when none found the file.
      return class FalsyResolve extends Base {
        resolve(dir: string, file: string) {
          return super.resolve(dir, file) || (dir.endsWith('2') ? '' : null);
        }
      };
    case 'subclass-no-render': {
      class NoRender extends Base {}
      (NoRender.prototype as Any).render = undefined;
      return NoRender;
    }
    case 'function-inherits': {
      function Legacy(this: Any, name: string, options: Any) {
        Base.call(this, name, options);
        notes.push(short(`legacy ${this.path}`));
      }
      inherits(Legacy, Base);
      return Legacy;
    }
    case 'standalone':
      return class Standalone {
        path: string;
        constructor(
          public name: string,
          public options: Any,
        ) {
          this.path = `standalone:${String(name)}`;
        }
        render(options: Any, callback: Any) {
          callback(null, short(`standalone ${this.path} k=${String(options.k)} root=${inspect(this.options.root)}`));
        }
      };
    case 'standalone-no-path':
      return class NoPath {
        root = ['custom', 'roots'];
        render() {
          throw new Error('not reached');
        }
      };
    case 'throwing-ctor':
      return class Throwing {
        constructor() {
          throw new Error('view constructor threw');
        }
      };
    case 'arrow':
      return () => ({});
    case 'object':
      return {};
    case 'returns-other':
      return function Other(name: string) {
        return { path: 'other', render: (_options: Any, callback: Any) => callback(null, `other ${String(name)}`) };
      };
    default:
      return Base;
  }
}

/** Applies `spec` to `app`; a throw (a bad engine) is noted and ends the setup. */
function configure(app: Any, spec: Settings, prefix: string, notes: string[]): void {
  if (spec.views !== undefined && spec.views !== 'unset') app.set('views', viewsValue(spec.views));
  if (spec.viewEngine !== undefined)
    app.set('view engine', spec.viewEngine.startsWith('abs:') ? join(base, spec.viewEngine.slice(4)) : spec.viewEngine);
  if (spec.viewCache !== undefined) app.set('view cache', spec.viewCache);
  spec.engines.forEach((engine, i) => {
    try {
      app.engine(engine.ext, engineOf(engine, `${prefix}${i}`, app, notes));
    } catch (err) {
      notes.push(`${prefix} engine threw ${describeError(err)}`);
    }
  });
  if (spec.viewClass !== 'none') app.set('view', viewClass(spec.viewClass, app.get('view'), notes));
}

function optionsValue(kind: string): unknown {
  switch (kind) {
    case '{}':
      return {};
    case '{k}':
      return { k: 'opt' };
    case '{k, extra}':
      return { extra: 'e', k: 'opt', only_opt: 1 };
    case '{cache: true}':
      return { cache: true };
    case '{cache: false}':
      return { cache: false };
    case '{cache: "yes"}':
      return { cache: 'yes' };
    case '{cache: null}':
      return { cache: null, k: 'opt' };
    case '{settings}':
      return { settings: { views: 'opt-views', 'view engine': 'opt' } };
    case '{_locals}':
      return { _locals: { k: 'opt-private', only_private: true } };
    case 'proto':
      return Object.create({ k: 'inherited', cache: true });
    case 'null':
      return null;
    case 'undefined':
      return undefined;
    case 'string':
      return 'str';
    case '{__proto__ json}':
      return JSON.parse('{"__proto__": {"k": "polluted"}, "own": 1}');
    default:
      return undefined;
  }
}

function renderOf(item: Case, app: Any, req: Any, res: Any, next: Any, notes: string[]): void {
  const name = nameValue(item.name);
  const given = item.options !== 'omitted';
  const options = optionsValue(item.options);
  let returned = false;
  const answer = (what: string) => (err: Any, html: Any) => {
    const text = `${what} ${returned ? 'async' : 'sync'} err=${err ? describeError(err) : inspect(err)} html=${short(
      inspect(html),
    )} cache=${inspect(Object.keys(app.cache))}`;
    if (res.headersSent) notes.push('after the response: ' + text);
    else res.end(text);
  };
  switch (item.call) {
    case 'res.render':
      if (given) res.render(name, options);
      else res.render(name);
      break;
    case 'res.render-cb':
      res.render(name, options, answer('res.render-cb'));
      break;
    case 'res.render-cb-only':
      res.render(name, answer('res.render-cb-only'));
      break;
    case 'app.render':
      if (given) app.render(name, options, answer('app.render'));
      else app.render(name, undefined, answer('app.render'));
      break;
    case 'app.render-cb-only':
      app.render(name, answer('app.render-cb-only'));
      break;
    case 'app.render-no-cb':
      app.render(name, given ? options : {});
      if (!res.headersSent) res.end('app.render returned');
      break;
    case 'twice':
    case 'twice-switch':
      app.render(name, given ? options : {}, (err: Any, html: Any) => {
        const first = `first err=${err ? describeError(err) : inspect(err)} html=${short(inspect(html))}`;
        if (item.call === 'twice-switch') {
          app.set('views', dirs.v3);
          app.set('view engine', 'ejs');
        }
        if (res.headersSent) return notes.push('after the response: ' + first);
        try {
          res.render(name, given ? options : {}, (err2: Any, html2: Any) => answer(first + ' then')(err2, html2));
        } catch (thrown) {
          // Thrown into the engine, which may swallow it: answered here.
          res.end(`${first} then threw ${describeError(thrown)}`);
        }
      });
      break;
  }
  returned = true;
  void req;
  void next;
}

function errorHandler(notes: string[]) {
  return (err: Any, _req: Any, res: Any, _next: Any) => {
    if (res.headersSent) {
      notes.push('error after the response: ' + describeError(err));
      return;
    }
    res.statusCode = typeof err?.status === 'number' ? err.status : 500;
    res.setHeader('Content-Type', 'text/plain');
    res.end('error handler: ' + describeError(err));
  };
}

function buildCase(framework: Framework, item: Case, notes: string[]): http.RequestListener {
  const saved = process.env.NODE_ENV;
  if (item.env === 'production') process.env.NODE_ENV = 'production';
  try {
    const app: Any = framework();
    if (item.env === 'env-setting-production') app.set('env', 'production');
    Object.assign(app.locals, item.appLocals);
    let sub: Any;
    const subAct = item.sub ? item.sub : undefined;
    if (subAct) {
      sub = framework();
      if (subAct.mountFirst) app.use(sub);
    }
    configure(app, item.app, 'app', notes);
    app.use((_req: Any, res: Any, next: Any) => {
      Object.assign(res.locals, item.resLocals);
      next();
    });
    if (sub) {
      configure(sub, subAct!, 'sub', notes);
      sub.use((req: Any, res: Any, next: Any) => {
        if (subAct!.renderIn === 'parent-after-sub') return next();
        renderOf(item, subAct!.renderIn === 'sub' ? req.app : sub.parent, req, res, next, notes);
      });
      if (!subAct!.mountFirst) app.use(sub);
    }
    app.use((req: Any, res: Any, next: Any) => renderOf(item, req.app, req, res, next, notes));
    if (item.errors === 'handler') {
      if (sub) sub.use(errorHandler(notes));
      app.use(errorHandler(notes));
    }
    return app;
  } finally {
    if (saved === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = saved;
  }
}

/** One server per framework: `/c/<n>` goes to case n's app. */
function caseServer(framework: Framework, cases: readonly Case[], notes: Notes): http.RequestListener {
  const apps = cases.map((item, n) => {
    const list: string[] = [];
    notes.set(n, list);
    return buildCase(framework, item, list);
  });
  return (req, res) => {
    const n = Number(/^\/c\/(\d+)/.exec(req.url ?? '')?.[1]);
    // A request neither side answers (an error thrown inside an engine's callback that the engine swallows) ends here.
    const watchdog = setTimeout(() => {
      if (!res.headersSent) res.end('(no answer)');
      else res.destroy();
    }, 1000);
    res.on('close', () => clearTimeout(watchdog));
    apps[n](req, res);
  };
}

/** X-Powered-By for presence; stack frames and a require stack (naming each framework's files) cut. */
function normalized(answer: Answer): Answer {
  const headers = brandHidden(answer.headers);
  let body = answer.body.replace(/(Require stack:)(<br>- [^<]*)+/, '$1 <files>');
  const cut = withoutStackFrames({ status: answer.status, headers: {}, body } as RawResponse);
  // A HEAD answer of the final handler's page has no body to cut, only the length.
  const page = answer.body === '' && headers.some(([name]) => name === 'content-security-policy');
  const changed = cut.body !== answer.body || page;
  body = cut.body;
  return {
    status: answer.status,
    headers: changed ? headers.filter(([name]) => name !== 'content-length') : headers,
    body: short(body),
  };
}

function describeCase(item: Case): string {
  return inspect(item, { depth: 5, breakLength: Infinity, maxStringLength: 80 });
}

/**
 * Engines keep compiled templates in module-wide caches (with `cache: true`): a
 * template the first side compiled would answer synchronously on the second.
 */
function clearEngineCaches(): void {
  require('ejs').clearCache();
  require('consolidate').clearCache();
  const hbs = require('hbs');
  for (const key of Object.keys(hbs.cache)) delete hbs.cache[key];
  const pug = require('pug');
  for (const key of Object.keys(pug.cache)) delete pug.cache[key];
  require('twig').extend((Twig: Any) => {
    Twig.Templates.registry = {};
  });
}

/** Waits for what engines do after the answer (a second callback a tick later). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

async function compareCases(cases: readonly Case[]): Promise<void> {
  // A connection each: Express's final handler destroys the socket of an error that comes
  // after the response ended (an engine's second callback), and on a kept-alive connection
  // that socket may already carry the next case's request, which would be reset.
  const requests = cases.map((item, n) => ({
    path: `/c/${n}`,
    method: item.head ? 'HEAD' : 'GET',
    headers: { connection: 'close' },
  }));
  const expectedNotes: Notes = new Map();
  const actualNotes: Notes = new Map();
  // The final handler logs errors outside `test` (and webapp one after the response ended): not compared.
  const run = (framework: Framework, notes: Notes) =>
    captureStderrOf(async () => {
      clearEngineCaches();
      const answers = await answersOf(caseServer(framework, cases, notes), requests);
      await settle();
      return answers;
    });
  const expected = (await run(express, expectedNotes)).result;
  const actual = (await run(webapp as unknown as Framework, actualNotes)).result;
  const differences: string[] = [];
  for (let n = 0; n < cases.length; n++) {
    const want = { answer: normalized(expected[n]), notes: expectedNotes.get(n) };
    const got = { answer: normalized(actual[n]), notes: actualNotes.get(n) };
    if (!isDeepStrictEqual(got, want))
      differences.push(
        `#${n} ${describeCase(cases[n])}\n` +
          `  express: ${inspect(want, { breakLength: Infinity, maxStringLength: 400, depth: 4 })}\n` +
          `  webapp:  ${inspect(got, { breakLength: Infinity, maxStringLength: 400, depth: 4 })}`,
      );
  }
  assertNoDifferences(differences, cases.length, 'generated view cases differ from express@4');
}

describe('generated views against express@4', () => {
  before(writeViews);
  after(() => rmSync(base, { recursive: true, force: true }));

  it('renders generated names with generated settings, engines, view classes, locals and sub-apps', async () => {
    const random = prng(0x71e35);
    const cases = Array.from({ length: 400 }, () => generateCase(random));
    await compareCases(cases);
  });

  // What the generator found, each reduced to a minimal app.
  const reportError = (err: Any, _req: Any, res: Any, _next: Any) =>
    res.status(500).end(`${err.name}: ${err.message} | path: ${inspect(err.view?.path)}`);

  it("app.render without a callback: a throw of the engine fails on Express's `callback`", async () => {
    const [answer] = await assertSameResponses(
      (framework: Framework) => {
        const app: Any = framework();
        app.set('views', dirs.v1);
        app.engine('tpl', (path: string, _options: object, callback: Any) => callback(null, path));
        app.get('/', (_req: Any, res: Any) => {
          app.render('page.tpl', {});
          res.end('not reached');
        });
        app.use(reportError);
        return app;
      },
      [{ path: '/' }],
    );
    assert.equal(answer.body, 'TypeError: callback is not a function | path: undefined');
  });

  it('a `view engine` module exporting null fails on `__express`, as in Express', async () => {
    const [answer] = await assertSameResponses(
      (framework: Framework) => {
        const app: Any = framework();
        app.set('views', dirs.v1);
        app.set('view engine', join(base, 'nullmod'));
        app.get('/', (_req: Any, res: Any) => res.render('page'));
        app.use(reportError);
        return app;
      },
      [{ path: '/' }],
    );
    assert.equal(answer.body, "TypeError: Cannot read properties of null (reading '__express') | path: undefined");
  });

  it("a view class's `resolve` finding nothing: `path` is what the last root's gave", async () => {
    const answers = await assertSameResponses(
      (framework: Framework) => {
        const app: Any = framework();
        app.set('views', [dirs.v1, dirs.v2]);
        app.engine('tpl', (path: string, _options: object, callback: Any) => callback(null, path));
        const Base = app.get('view');
        app.set(
          'view',
          class extends Base {
            resolve(dir: string, file: string) {
              return super.resolve(dir, file) || (file.startsWith('empty') ? '' : null);
            }
          },
        );
        app.get('/:name', (req: Any, res: Any) => res.render(req.params.name));
        app.use(reportError);
        return app;
      },
      [{ path: '/missing.tpl' }, { path: '/empty.tpl' }],
    );
    assert.match(answers[0].body, /\| path: null$/);
    assert.match(answers[1].body, /\| path: ''$/);
  });
});
