// One build: tsc emits CommonJS + .d.ts into dist/cjs; thin ESM wrappers in
// dist/esm re-export the CommonJS objects so `require` and `import` share one
// module instance (one app prototype, one set of settings).
//
// It is written in a folder of this build's own beside dist/ and swapped in whole once
// complete (scripts/swap-dir.mjs): builds may run at once (`npm start` and
// `npm run start:v3` both build first), and no server may load a half-written dist/.
//
// A dist/ already built from the same inputs is left as it is (scripts/build-inputs.mjs);
// `--force` builds anyway.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INPUTS_FILE, builtFrom, inputsDigest } from './build-inputs.mjs';
import { bundleCore } from './bundle-core.mjs';
import { removeAbandoned, stagingFor, swapIn } from './swap-dir.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
// Read before tsc runs: a source changed during the build makes the next one build again.
const digest = inputsDigest(root);
if (!process.argv.includes('--force') && builtFrom(dist) === digest) {
  console.log('build: dist/ is up to date with src/ (--force builds anyway)');
  process.exit(0);
}
removeAbandoned(dist);
/** Where this build writes: dist/ only once complete. */
const out = stagingFor(dist);
rmSync(out, { recursive: true, force: true });
// A build that fails leaves the dist/ it found, and nothing beside it.
process.on('exit', () => rmSync(out, { recursive: true, force: true }));
execFileSync(
  process.execPath,
  [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json'), '--outDir', join(out, 'cjs')],
  { stdio: 'inherit' },
);
// No package.json of its own in dist/cjs: the package's (without `type`) makes its files
// CommonJS for Node, and TypeScript 5 reads a `"type": "commonjs"` beside the
// declarations as a CommonJS module imported from ES module output, where it drops the
// call signature of `export =` (`import * as express from 'webapp'; express()` is TS2349
// without esModuleInterop; @types/express has no `type` either).

// webapp/middleware attaches `static` at run time: in TypeScript source,
// `export { serveStatic as static }` makes tsx's transpiler emit `static` as a
// bare identifier, a syntax error in strict mode. The declaration is fine, so
// the published types get the export the source cannot spell.
const middlewareTypes = join(out, 'cjs/middleware/index.d.ts');
if (existsSync(middlewareTypes))
  appendFileSync(middlewareTypes, "export { serveStatic as static } from '../static';\n");

const require = createRequire(import.meta.url);
const { isLazyMember } = require(join(out, 'cjs/define-prototype.js'));

// A member the CommonJS export loads on first read (the members of webapp/middleware
// and webapp/v3: defineLazyMembers in src/define-prototype.ts; webapp.json and
// webapp.static are functions that load on first call instead, exported as they are)
// cannot be read by the ESM wrapper without loading it, for
// every `import` of the package (cold start). So its named export is a function of the
// same name and arity that reads the member on its first call and forwards to it, and
// its own properties (static.mime, errorHandler.title, session.Store) read and write
// the member's. The default export is the CommonJS object itself, where the member is
// the module's function. The named export is a plain function, not a method: Express's
// members are functions, and code written for Express 3 calls some with `new`
// (`new express.static(dir)`), which a method refuses.
const LAZY_EXPORT = `function lazyExport(name, arity, properties) {
  const forward = {
    [name]: function (...args) {
      return new.target ? Reflect.construct(cjs[name], args) : cjs[name].apply(this, args);
    },
  }[name];
  Object.defineProperty(forward, 'length', { value: arity });
  for (const property of properties)
    Object.defineProperty(forward, property, {
      enumerable: true,
      get: () => cjs[name][property],
      set: (value) => { cjs[name][property] = value; },
    });
  return forward;
}`;
const entries = [
  { esm: 'index.mjs', cjs: '../cjs/index.js' },
  { esm: 'body-parser.mjs', cjs: '../cjs/body-parser/index.js' },
  { esm: 'v3.mjs', cjs: '../cjs/v3/index.js' },
  { esm: 'middleware.mjs', cjs: '../cjs/middleware/index.js' },
  // Requires its peer, @opentelemetry/api, as it loads: see `peerCheck` below.
  { esm: 'otel.mjs', cjs: '../cjs/otel/index.js', peerCheck: '../cjs/otel/peer-check.js' },
];
mkdirSync(join(out, 'esm'), { recursive: true });
for (const entry of entries) {
  const cjsPath = join(out, 'esm', entry.cjs);
  if (!existsSync(cjsPath)) {
    console.warn(`build: ${entry.cjs} does not exist yet; ${entry.esm} not written`);
    continue;
  }
  const loaded = require(cjsPath);
  // Named exports are the CommonJS object's own enumerable keys that are valid
  // identifiers; `static` is reserved as a binding name, so it is exported via `as`.
  const names = Object.keys(loaded).filter((key) => /^[A-Za-z_$][\w$]*$/.test(key) && key !== 'default');
  const lines = [];
  if (entry.peerCheck) {
    // A CommonJS module that throws as it loads (a peer dependency not installed), imported
    // by an ES module, makes Node 20 report the error as uncaught even where the app's
    // `import()` of that ES module catches it: an app that loads tracing only where its
    // peer is installed ended there. A module of its own, imported first, throws what
    // loading the peer threw from ES module code, which is only the app's error; the
    // CommonJS module is then not run. (Not an `await import()`: a bundler cannot put a
    // top-level await into an app bundled as CommonJS.)
    const check = entry.esm.replace('.mjs', '-peer.mjs');
    writeFileSync(join(out, 'esm', check), `import failure from '${entry.peerCheck}';\nif (failure) throw failure;\n`);
    lines.push(`import './${check}';`);
  }
  lines.push(`import cjs from '${entry.cjs}';`);
  // The CommonJS object as the default export, on every entry, as Node's own interop gives it
  // (`import mw from 'webapp/middleware'` type-checks, and must run), and under the name
  // Node 24 and later give it besides (`import { 'module.exports' as express } from 'express'`).
  lines.push('export default cjs;', "export { cjs as 'module.exports' };");
  const lazy = names.filter((name) => isLazyMember(loaded, name));
  if (lazy.length > 0) lines.push(LAZY_EXPORT);
  for (const name of names) {
    const key = JSON.stringify(name);
    if (lazy.includes(name)) {
      // Read here, at build time only: the member's arity and own properties (static.mime).
      const member = loaded[name];
      const extras = Object.keys(member).map(JSON.stringify).join(', ');
      lines.push(`const _${name} = lazyExport(${key}, ${member.length}, [${extras}]);`);
    } else {
      lines.push(`const _${name} = cjs[${key}];`);
    }
    lines.push(`export { _${name} as ${name} };`);
  }
  writeFileSync(join(out, 'esm', entry.esm), lines.join('\n') + '\n');
}

// Express's own files under lib/ are plain CommonJS. tsc marks webapp's stand-ins for
// them as transpiled ES modules (`__esModule`), and a transpiler's default import of one
// (`import utils from 'express/lib/utils'`, Babel's or TypeScript's esModuleInterop)
// would then read the module's `default`, undefined, where Express's gives the module.
const ES_MODULE_MARKER = 'Object.defineProperty(exports, "__esModule", { value: true });\n';
const libDir = join(out, 'cjs/lib');
for (const file of existsSync(libDir) ? readdirSync(libDir, { recursive: true, encoding: 'utf8' }) : []) {
  if (!file.endsWith('.js')) continue;
  const path = join(libDir, file);
  writeFileSync(path, readFileSync(path, 'utf8').replace(ES_MODULE_MARKER, ''));
}

// An entry that defines its members on `module.exports` (src/middleware/index.ts, for
// transpilers that replace that object) marks it there too. rollup's CommonJS plugin
// takes tsc's marker on `exports` for a declaration, not a use of `exports`, and wraps
// such a module with `module` alone: in an ES module bundle (rollup's default output)
// the marker then read an undefined `exports`, and the app ended at start.
const MODULE_EXPORTS_MARKER = 'Object.defineProperty(module.exports, "__esModule", { value: true });\n';
for (const file of ['middleware/index.js']) {
  const path = join(out, 'cjs', file);
  const source = readFileSync(path, 'utf8');
  if (!source.includes(ES_MODULE_MARKER)) throw new Error(`${file}: tsc's __esModule marker not found`);
  writeFileSync(path, source.replace(ES_MODULE_MARKER, MODULE_EXPORTS_MARKER));
}

// The entries marked `__esModule` whose members are the module's (webapp/middleware,
// webapp/otel) are their own `default` as well, not enumerable: a transpiler's default
// import of one (TypeScript's esModuleInterop, Babel, webpack) reads `default` from a
// marked module, and found it undefined (`import mw from 'webapp/middleware'` type-checks,
// and failed at run time), where Node's own import gives the module.
for (const file of ['middleware/index.js', 'otel/index.js']) {
  const path = join(out, 'cjs', file);
  // Absent from a tree that has not got them yet (as for the ES module entries above).
  if (!existsSync(path)) continue;
  const line = 'Object.defineProperty(module.exports, "default", { value: module.exports, configurable: true });\n';
  writeFileSync(path, readFileSync(path, 'utf8') + line);
}

// Last, as it deletes the core's own files: the wrappers above were written from them.
bundleCore(join(out, 'cjs'));
assertAscii(out);
writeFileSync(join(out, INPUTS_FILE), digest + '\n');
swapIn(out, dist);

/**
 * Node reads a CommonJS file into a string by decoding its UTF-8, and V8 decodes ASCII
 * in bulk but every byte after the first non-ASCII one on a slow path: one `\u00b5` in a
 * comment 46 KB into core.js cost 5 million instructions of every start on Node 20
 * (about 0.7 ms; bench/README.md, "Cold start: an ASCII core"). And V8 keeps a string
 * with one character above U+00FF (one arrow in a comment) at two bytes per character:
 * core.js's 191 KB of source became 382 KB of heap in every process, for as long as it
 * runs (V8 keeps a script's source to compile its functions lazily). Escapes in string
 * literals (`\u2014`) are fine.
 */
function assertAscii(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { recursive: true })) {
    if (!/\.(?:js|mjs)$/.test(entry)) continue;
    const lines = readFileSync(join(dir, entry), 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (/[^\u0000-\u007f]/.test(line)) found.push(`dist/${entry}:${i + 1}: ${line.trim().slice(0, 80)}`);
    });
  }
  if (found.length > 0) {
    const advice = 'write them as \\u escapes, or as words in comments';
    throw new Error(`build: characters beyond ASCII in the built code (${advice}):\n${found.join('\n')}`);
  }
}
