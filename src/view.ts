/**
 * Views: finding a template file and rendering it with a template engine, and
 * `app.render`'s locals merging and caching, as Express 4 does. Engines not
 * registered with `app.engine` are loaded by module name (the extension) through
 * their `__webapp` export, else `__express`, so ejs, pug and hbs work unmodified.
 */
import { statSync, type Stats } from 'node:fs';
import { basename, dirname, extname, join, resolve as resolvePath } from 'node:path';

export type EngineCallback = (err: Error | null, html?: string) => void;
export type Engine = (path: string, options: object, callback: EngineCallback) => void;

export interface ViewOptions {
  defaultEngine?: string;
  root: string | string[];
  engines: Record<string, Engine>;
}

interface TemplateModule {
  __webapp?: Engine;
  __express?: Engine;
}

/**
 * The running process's own `require` inside a webpack bundle (also ncc's, which is
 * webpack), where webpack turns a `require` of a name known only at run time into a
 * lookup among the modules it bundled, which finds no engine.
 */
declare const __non_webpack_require__: NodeJS.Require | undefined;

/** What an engine module offers `app.render`: its `__webapp` export, else `__express` (ejs, pug, hbs). */
export function engineOf(moduleName: string): Engine | undefined {
  // webpack writes `__non_webpack_require__` as the bundle's own `require` (and warns of
  // the other branch, as of Express's `require`); anywhere else it is not defined.
  const loaded = (
    typeof __non_webpack_require__ === 'function' ? __non_webpack_require__(moduleName) : require(moduleName)
  ) as TemplateModule | null | undefined;
  // A module exporting null or undefined fails on `__express`, in Express's words.
  return loaded?.__webapp ?? loaded!.__express;
}

function tryStat(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** A template found for a name: `app.set('view', ...)` may replace the class. */
export interface View {
  defaultEngine: string | undefined;
  ext: string;
  name: string;
  root: string | string[];
  engine: Engine;
  path: string | undefined;
  /** The first root holding `name` (as `name` or `name/index.ext`). */
  lookup(name: string): string | undefined;
  resolve(dir: string, file: string): string | undefined;
  /** Hands the file to the engine. */
  render(options: object, callback: EngineCallback): void;
}

/**
 * Callable as Express's View is: with `new`, and as a plain function on an object of
 * a subclass (`View.call(this, name, options)` with `util.inherits`, as view plug-ins
 * such as engine-munger and react-engine subclass it), which a class refuses.
 */
export interface ViewConstructor {
  new (name: string, options: ViewOptions): View;
  (this: View, name: string, options: ViewOptions): void;
  prototype: View;
}

/**
 * Fields are assigned, and read back, through `this` as in Express: a subclass's
 * accessor for `path` or `ext` sees each assignment.
 */
export const View = function View(this: View, name: string, options?: ViewOptions): void {
  const opts = options || ({} as Partial<ViewOptions>);
  this.defaultEngine = opts.defaultEngine;
  this.ext = extname(name);
  this.name = name;
  this.root = opts.root!;
  if (!this.ext && !this.defaultEngine)
    throw new Error('No default engine was specified and no extension was provided.');

  let fileName = name;
  if (!this.ext) {
    const engineName = this.defaultEngine!;
    this.ext = engineName[0] !== '.' ? '.' + engineName : engineName;
    fileName += this.ext;
  }
  const engines = opts.engines!;
  if (!engines[this.ext]) {
    // The engine module is named after the extension (`.ejs` gives `ejs`) and cached once loaded.
    const moduleName = this.ext.slice(1);
    const fn = engineOf(moduleName);
    if (typeof fn !== 'function') throw new Error('Module "' + moduleName + '" does not provide a view engine.');
    engines[this.ext] = fn;
  }
  this.engine = engines[this.ext];
  this.path = this.lookup(fileName);
} as ViewConstructor;

// Assigned, not defined: enumerable members, as Express's prototype has (`for...in` and
// `Object.assign` copies of it see them).
View.prototype.lookup = function lookup(this: View, name: string): string | undefined {
  const roots = ([] as string[]).concat(this.root);
  // As in Express, what the last root's `resolve` gave (a subclass's null or '') when none found it.
  let found: string | undefined;
  for (let i = 0; i < roots.length && !found; i++) {
    const location = resolvePath(roots[i], name);
    found = this.resolve(dirname(location), basename(location));
  }
  return found;
};

View.prototype.render = function render(this: View, options: object, callback: EngineCallback): void {
  // Express 4 does not defer a synchronous engine's callback (Express 5 does), and
  // apps observe the difference, so neither do we.
  this.engine(this.path!, options, callback);
};

View.prototype.resolve = function resolve(this: View, dir: string, file: string): string | undefined {
  const direct = join(dir, file);
  if (tryStat(direct)?.isFile()) return direct;
  const index = join(dir, basename(file, this.ext), 'index' + this.ext);
  if (tryStat(index)?.isFile()) return index;
  return undefined;
};

interface RenderingApp {
  cache: Record<string, unknown>;
  engines: Record<string, Engine>;
  locals: Record<string, unknown>;
  get(setting: string): unknown;
  enabled(setting: string): boolean;
}

/** Express merges with utils-merge: every enumerable key, inherited ones included. */
function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const key in source) target[key] = source[key];
}

/** Whether `new value()` would construct: `Reflect.construct` checks its `newTarget` without calling it. */
function isConstructor(value: unknown): boolean {
  if (typeof value !== 'function') return false;
  try {
    Reflect.construct(Object, [], value);
    return true;
  } catch {
    return false;
  }
}

/** Where a missing view was looked for, in Express 4's words: every views directory. */
function viewsDirectories(root: string | string[]): string {
  return Array.isArray(root) && root.length > 1
    ? 'directories "' + root.slice(0, -1).join('", "') + '" or "' + root[root.length - 1] + '"'
    : 'directory "' + root + '"';
}

/**
 * `app.render(name, options, done)`: locals are app.locals < res.locals
 * (`options._locals`) < options; `cache` (default: the `view cache` setting)
 * reuses the View; a missing template is an error naming where it was looked for
 * (`whereLooked`: Express 4's words unless the 3.x preset gives its own).
 */
export function renderView(
  app: RenderingApp,
  name: string,
  options: Record<string, unknown>,
  done: EngineCallback,
  whereLooked: (root: string | string[]) => string = viewsDirectories,
): void {
  const renderOptions: Record<string, unknown> = {};
  mergeInto(renderOptions, app.locals);
  if (options._locals) mergeInto(renderOptions, options._locals as Record<string, unknown>);
  mergeInto(renderOptions, options);
  if (renderOptions.cache == null) renderOptions.cache = app.enabled('view cache');

  let view = (renderOptions.cache ? app.cache[name] : undefined) as View | undefined;
  if (!view) {
    // As in Express, a View that cannot be built (no engine) throws to the caller.
    const ViewClass = app.get('view') as ViewConstructor;
    // Worded as `new View(...)` fails in Express when the setting is no constructor.
    if (!isConstructor(ViewClass)) throw new TypeError('View is not a constructor');
    view = new ViewClass(name, {
      defaultEngine: app.get('view engine') as string | undefined,
      root: app.get('views') as string | string[],
      engines: app.engines,
    });
    if (!view.path) {
      const err = Object.assign(new Error('Failed to lookup view "' + name + '" in views ' + whereLooked(view.root)), {
        view,
      });
      done(err);
      return;
    }
    if (renderOptions.cache) app.cache[name] = view;
  }
  tryRender(view, renderOptions, done);
}

/**
 * A throw from `view.render` goes to the callback. Its parameter is named `callback` as
 * in Express: left out of `app.render`, the TypeError thrown here names it.
 */
function tryRender(view: View, options: object, callback: EngineCallback): void {
  try {
    view.render(options, callback);
  } catch (err) {
    callback(err as Error);
  }
}
