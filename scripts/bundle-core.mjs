// The modules every app loads, in one file: dist/cjs/core.js.
//
// Why: `require('webapp')` loads 36 modules, and Node's CommonJS loader spends about
// 0.4 ms on each (resolving the path, realpath, reading, compiling the wrapper) before
// any of their code runs: 12 to 14 ms of webapp's cold start, where node:http's whole
// `require('node:http')` takes 3. One file pays it once (bench/README.md, "Cold start").
//
// How, without changing what a module is:
// - The core is what `require('webapp')` loads, asked of tsc's output in a child
//   process, so it follows the code: a module made lazy leaves the core by itself.
// - core.js holds each core module's code, as tsc emitted it, in a function of its
//   own, run on the module's first `load(id)` as `require` runs a file: own scope,
//   `this` and `exports`, one instance, cycles answered with the exports so far.
//   Nothing is renamed: function names are observable (a layer's `name` is its
//   function's), and a bundler's renaming across modules would change them.
// - Everything else stays a file of its own (the body parsers, static, webapp/v3,
//   webapp/middleware...), loaded when first used. Their `require`s of a core module are
//   rewritten to `require(".../core.js").load(id)`, so there is one instance of every
//   module whichever entry point or lazy member loads it first.
// - index.js becomes `require('./core.js').load('index.js')`; the core's other .js
//   files are deleted. The declarations (.d.ts) are not touched.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const CORE_FILE = 'core.js';
const MAIN = 'index.js';
/** What a core module calls for another core module; a name no module's own code uses. */
const LOAD = '__webappLoadCore';

/** A `require` of a relative path: `require("./x")` as tsc emits it, `require('./x')` as the source's lazy ones. */
const RELATIVE_REQUIRE = /\brequire\((["'])(\.{1,2}\/[^"']*)\1\)/g;

/** A module's id: its path inside dist/cjs with forward slashes (`router/layer.js`). */
function idOf(cjsDir, file) {
  return relative(cjsDir, file).split(sep).join('/');
}

/** How a relative path is written in a `require` from `fromDir`. */
function specifier(fromDir, file) {
  const path = relative(fromDir, file).split(sep).join('/');
  return path.startsWith('.') ? path : './' + path;
}

/** The file Node's loader picks for a relative `require` of `request` from `fromDir`, or undefined. */
function resolveRelative(fromDir, request) {
  const base = resolve(fromDir, request);
  for (const candidate of [base, base + '.js', join(base, 'index.js')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

function resolveOrThrow(file, request) {
  const target = resolveRelative(dirname(file), request);
  if (target === undefined) throw new Error(`bundle-core: ${file} requires ${request}, which is not in the package`);
  return target;
}

function listJs(dir) {
  return readdirSync(dir, { recursive: true })
    .map((name) => join(dir, name))
    .filter((file) => file.endsWith('.js') && statSync(file).isFile());
}

/** The ids of the modules `require('webapp')` loads, from tsc's output, in a fresh process. */
function coreIds(cjsDir) {
  const script = `
    require(${JSON.stringify(join(cjsDir, MAIN))});
    const dir = ${JSON.stringify(cjsDir + sep)};
    console.log(JSON.stringify(Object.keys(require.cache).filter((file) => file.startsWith(dir))));
  `;
  const files = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
  return files.map((file) => idOf(cjsDir, file)).sort();
}

/**
 * One core module as a function expression of core.js, its code as tsc emitted it.
 * Parenthesised, V8 compiles it with the file: every core module runs at
 * `require('webapp')`, and as a lazily compiled function each would be parsed twice.
 */
function coreModule(cjsDir, id, core) {
  const file = join(cjsDir, id);
  const linked = readFileSync(file, 'utf8').replace(RELATIVE_REQUIRE, (call, quote, request) => {
    const target = resolveOrThrow(file, request);
    const targetId = idOf(cjsDir, target);
    if (core.has(targetId)) return `${LOAD}(${JSON.stringify(targetId)})`;
    return `require(${JSON.stringify(specifier(cjsDir, target))})`;
  });
  // The closing brace on a line of its own: the module's last line may be a comment.
  return `// ${id}\n${JSON.stringify(id)}: (function (exports, module) {\n${linked}\n}),\n`;
}

function coreFile(cjsDir, ids, core) {
  return [
    "'use strict';",
    "// The modules `require('webapp')` loads, one function each (scripts/bundle-core.mjs builds this file).",
    'const definitions = {',
    ...ids.map((id) => coreModule(cjsDir, id, core)),
    '};',
    'const modules = Object.create(null);',
    `function ${LOAD}(id) {`,
    '  const loaded = modules[id];',
    '  if (loaded !== undefined) return loaded.exports;',
    '  const module = { exports: {} };',
    '  modules[id] = module;',
    '  try {',
    '    definitions[id].call(module.exports, module.exports, module);',
    '  } catch (error) {',
    '    delete modules[id];',
    '    throw error;',
    '  }',
    '  return module.exports;',
    '}',
    '/** The core module `id` (its path in dist/cjs), run on its first load. */',
    `exports.load = ${LOAD};`,
    '/** The ids of the modules bundled here. */',
    'exports.ids = Object.keys(definitions);',
    '',
  ].join('\n');
}

/** Rewrites a file's `require`s of core modules to the core's `load`. */
function pointAtCore(cjsDir, file, core) {
  const source = readFileSync(file, 'utf8');
  const rewritten = source.replace(RELATIVE_REQUIRE, (call, quote, request) => {
    const id = idOf(cjsDir, resolveOrThrow(file, request));
    if (!core.has(id)) return call;
    return `require(${JSON.stringify(specifier(dirname(file), join(cjsDir, CORE_FILE)))}).load(${JSON.stringify(id)})`;
  });
  if (rewritten !== source) writeFileSync(file, rewritten);
}

/** Bundles the core of the CommonJS build in `cjsDir` into core.js; returns the bundled ids. */
export function bundleCore(cjsDir) {
  const ids = coreIds(cjsDir);
  if (!ids.includes(MAIN)) throw new Error(`bundle-core: ${MAIN} is not among the modules it loads`);
  const core = new Set(ids);
  writeFileSync(join(cjsDir, CORE_FILE), coreFile(cjsDir, ids, core));
  // Rewritten while the core's files are still there to resolve against.
  for (const file of listJs(cjsDir)) {
    const id = idOf(cjsDir, file);
    if (id !== CORE_FILE && !core.has(id)) pointAtCore(cjsDir, file, core);
  }
  for (const id of ids) rmSync(join(cjsDir, id));
  // Not `module.exports = require(...).load(...)`: Node's ESM loader reads that as a
  // re-export of the core, lexes its whole source for names at every `import`, and
  // gives an importer of this file the core's internal names instead of the package's.
  const stub = [
    "'use strict';",
    `// The modules every app loads are bundled in ${CORE_FILE} (scripts/bundle-core.mjs).`,
    `const core = require('./${CORE_FILE}');`,
    `module.exports = core.load('${MAIN}');`,
  ];
  writeFileSync(join(cjsDir, MAIN), stub.join('\n') + '\n');
  // Every relative `require` left in the package must find its file.
  for (const file of listJs(cjsDir)) {
    for (const [, , request] of readFileSync(file, 'utf8').matchAll(RELATIVE_REQUIRE)) resolveOrThrow(file, request);
  }
  return ids;
}
