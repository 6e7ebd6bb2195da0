/**
 * Loads a package as it runs when `express` is an npm alias of webapp (the
 * migration guide's way to run an app's tests on webapp): a fresh copy of the
 * package whose `require('express')` returns the framework under test.
 */
import Module from 'node:module';
import { dirname, sep } from 'node:path';

/**
 * A fresh copy of package `id` (every module of its own folder loaded again) whose
 * `require('express')` returns `framework`; the module cache is left as it was.
 */
export function loadWithExpressAs(framework: unknown, id: string): any {
  const expressPath = require.resolve('express');
  const packagePath = require.resolve(id);
  const folder = packageFolder(packagePath);
  const own = (key: string): boolean => key.startsWith(folder + sep);
  const saved = new Map(Object.entries(require.cache).filter(([key]) => own(key) || key === expressPath));
  const alias = new Module(expressPath);
  alias.exports = framework;
  alias.loaded = true;
  for (const key of saved.keys()) delete require.cache[key];
  require.cache[expressPath] = alias;
  try {
    return require(packagePath);
  } finally {
    for (const key of Object.keys(require.cache)) if (own(key) || key === expressPath) delete require.cache[key];
    for (const [key, module] of saved) require.cache[key] = module;
  }
}

/** The folder of the package that holds `file` (the nearest node_modules/<name> or node_modules/@scope/<name>). */
function packageFolder(file: string): string {
  const marker = sep + 'node_modules' + sep;
  const at = file.lastIndexOf(marker);
  if (at === -1) return dirname(file);
  const parts = file.slice(at + marker.length).split(sep);
  const name = parts[0]!.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1);
  return file.slice(0, at + marker.length) + name.join(sep);
}
