/**
 * Express 3.21's View, which `webapp/v3` apps render with: its lookup differs from
 * 4.x's in ways an app or its engine sees. The views root is one directory, joined
 * (not resolved) with the name, so a relative `views` setting gives the engine a
 * relative path and an array is refused; any existing entry is taken, a directory
 * too (the engine then reports EISDIR), where 4.x takes files only; a name with a
 * trailing slash or an empty name is not completed to `index`; and an engine module
 * without an engine export fails when rendering, not when the View is built.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { engineOf, type Engine, type EngineCallback, type ViewOptions } from '../view';

export interface View3 {
  name: string;
  root: string;
  defaultEngine: string | undefined;
  ext: string;
  engine: Engine;
  path: string | undefined;
  lookup(path: string): string | undefined;
  render(options: object, callback: EngineCallback): void;
}

/** Callable with `new`, and as a plain function on a subclass's object, as Express 3's. */
export interface View3Constructor {
  new (name: string, options: ViewOptions): View3;
  (this: View3, name: string, options: ViewOptions): void;
  prototype: View3;
}

/** Express 3's absolute paths: POSIX, a Windows drive with a backslash (not `C:/`, unlike 4.x's), or a UNC share. */
function isAbsolute3(path: string): boolean {
  return path[0] === '/' || (path[1] === ':' && path[2] === '\\') || path.startsWith('\\\\');
}

export const View3 = function View(this: View3, name: string, options?: ViewOptions): void {
  const opts = options || ({} as Partial<ViewOptions>);
  this.name = name;
  this.root = opts.root as string;
  const engines = opts.engines!;
  this.defaultEngine = opts.defaultEngine;
  let ext = (this.ext = extname(name));
  if (!ext && !this.defaultEngine) throw new Error('No default engine was specified and no extension was provided.');
  let fileName = name;
  if (!ext) {
    const engineName = this.defaultEngine!;
    ext = this.ext = (engineName[0] !== '.' ? '.' : '') + engineName;
    fileName += ext;
  }
  // Unchecked, as in Express 3: a module without an engine fails when rendering.
  if (!engines[ext]) engines[ext] = engineOf(ext.slice(1))!;
  this.engine = engines[ext];
  this.path = this.lookup(fileName);
} as View3Constructor;

// Assigned, so enumerable, as Express 3's prototype members are.
View3.prototype.lookup = function lookup(this: View3, path: string): string | undefined {
  const ext = this.ext;
  let candidate = isAbsolute3(path) ? path : join(this.root, path);
  if (existsSync(candidate)) return candidate;
  candidate = join(dirname(candidate), basename(candidate, ext), 'index' + ext);
  if (existsSync(candidate)) return candidate;
  return undefined;
};

View3.prototype.render = function render(this: View3, options: object, callback: EngineCallback): void {
  this.engine(this.path!, options, callback);
};
