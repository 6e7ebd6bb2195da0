/**
 * The published types as an install sees them: the package is packed (`npm pack`, so
 * only the files it publishes) and unpacked into scratch projects' node_modules, beside
 * only TypeScript and @types/node, none of this repository's devDependencies. Every
 * entry point and subpath (`webapp/body-parser`, `webapp/v3`, `webapp/middleware`,
 * `webapp/otel`, `webapp/lib/*`) has types under each module resolution a project may
 * use (node10, the default of `"module": "commonjs"`, through `typesVersions`; node16,
 * nodenext and bundler through `exports`), and the declarations compile with
 * skipLibCheck off: they name no type of a dependency that ships none (cookie, whose
 * @types package is only a devDependency here). Each compiler checks every project in
 * one `tsc --build`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureBuilt, packageRoot as root } from '../support/scratch-project';
import { cannotRun, compilers, typeCheckProjects } from '../support/type-check';
import { withoutCoverage } from '../support/without-coverage';

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};
let scratch: string;
let tarball: string;

/** Unpacks the packed package into `dir`/node_modules/`name`, as npm installs it. */
function install(dir: string, name: string): void {
  const target = join(dir, 'node_modules', name);
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
}

/** Links a package of this repository's node_modules into `dir`'s (types other packages bring). */
function link(dir: string, name: string): void {
  mkdirSync(join(dir, 'node_modules', name, '..'), { recursive: true });
  symlinkSync(join(root, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
}

/**
 * Copies a package of this repository's node_modules into `dir`'s: a linked package
 * resolves its own imports (`import express = require("express")`) from its real path,
 * which would find this repository's express@4 and @types/express.
 */
function copy(dir: string, name: string): void {
  cpSync(join(root, 'node_modules', name), join(dir, 'node_modules', name), { recursive: true });
}

/**
 * A project with the packed webapp (installed as `installedAs`) and @types/node;
 * `main.ts` is `source`.
 */
function project(
  name: string,
  type: 'commonjs' | 'module',
  compilerOptions: object,
  source: string,
  installedAs = 'webapp',
): string {
  const dir = join(scratch, name);
  mkdirSync(dir);
  install(dir, installedAs);
  // webapp's dependencies, as npm installs them (none ships types; none of their @types).
  for (const dependency of Object.keys(manifest.dependencies)) link(dir, dependency);
  link(dir, '@types/node');
  // webapp/otel's types name the tracer provider of @opentelemetry/api, its peer dependency.
  link(dir, '@opentelemetry/api');
  const strict = {
    strict: true,
    skipLibCheck: false,
    noEmit: true,
    types: ['node'],
    lib: ['ES2022'],
    target: 'ES2022',
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { ...strict, ...compilerOptions }, files: ['main.ts'] }),
  );
  writeFileSync(join(dir, 'main.ts'), source);
  return dir;
}

// Each import is used with its type: under noImplicitAny a module without types is an
// error (TS7016), and a wrong type fails the assignments.
const everyEntryPoint = (esm: boolean) => `
import webapp from 'webapp';
import bodyParser from 'webapp/body-parser';
import v3 from 'webapp/v3';
import * as asExpress from 'webapp/v3/as-express';
import * as middleware from 'webapp/middleware';
import * as otel from 'webapp/otel';
${esm ? "import libExpress from 'webapp/lib/express';" : "import libExpress = require('webapp/lib/express');"}
${esm ? "import libRouter from 'webapp/lib/router';" : "import libRouter = require('webapp/lib/router');"}
${esm ? "import layer from 'webapp/lib/router/layer.js';" : "import layer = require('webapp/lib/router/layer');"}
${esm ? "import * as utils from 'webapp/lib/utils.js';" : "import utils = require('webapp/lib/utils.js');"}
${esm ? "import indexEntry from 'webapp/index.js';" : "import indexEntry = require('webapp/index');"}

declare global {
  namespace Express {
    interface Request {
      tenant?: { id: string; plan: 'free' | 'paid' };
    }
    interface Response {
      sendPlan(plan: string): void;
    }
  }
}

const app: webapp.Express = webapp();
app.use(bodyParser.json({ limit: '1mb' }), middleware.cookieParser('secret'));
// Node's own members, with a tsconfig that lists no \`types\`: webapp's bring Node's.
app.get('/agent', (req, res) => {
  res.setHeader('X-Agent', req.headers['user-agent'] ?? '');
  res.end(Buffer.from('ok'));
});
app.use(middleware.csrf({ cookie: { key: '_csrf', sameSite: 'strict', httpOnly: true } }));
// The global Express namespace, augmented as docs/typescript.md shows: its members
// reach webapp's Request and Response without @types/express-serve-static-core.
app.use((req, res, next) => {
  req.tenant = { id: req.hostname, plan: 'free' };
  next();
});
app.get('/plan', (req, res) => {
  const plan: 'free' | 'paid' | undefined = req.tenant?.plan;
  // @ts-expect-error Request is not any: what no declaration adds is an error.
  void req.undeclared;
  res.sendPlan(plan ?? 'none');
});
const legacy = v3();
legacy.use(v3.cookieParser());
const instrumentation: otel.Instrumentation = otel.instrument();
const express: typeof webapp = libExpress;
const index: typeof webapp = indexEntry;
const router = libRouter({ strict: true });
const etag: string | undefined = utils.etag('body');
void [legacy, instrumentation, express, index, router, layer, etag, asExpress];
`;

before(() => {
  ensureBuilt();
  scratch = mkdtempSync(join(tmpdir(), 'webapp-packed-'));
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], {
      cwd: root,
      encoding: 'utf8',
      env: withoutCoverage(),
    }),
  ) as Array<{ filename: string }>;
  tarball = join(scratch, packed[0].filename);
});

after(() => rmSync(scratch, { recursive: true, force: true }));

const resolutions = [
  {
    name: 'node10 (a CommonJS project: "module": "commonjs", compiled for ES5 as older ones are)',
    type: 'commonjs',
    options: { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true, target: 'ES5' },
    esm: false,
    // TypeScript 7 no longer has node10.
    compilers: ['TypeScript 5.9'],
  },
  {
    name: 'node16 (CommonJS)',
    type: 'commonjs',
    options: { module: 'node16', moduleResolution: 'node16', esModuleInterop: true },
    esm: false,
  },
  { name: 'nodenext (ESM)', type: 'module', options: { module: 'nodenext', moduleResolution: 'nodenext' }, esm: true },
  {
    name: 'bundler',
    type: 'module',
    options: { module: 'esnext', moduleResolution: 'bundler', esModuleInterop: true },
    esm: true,
  },
  // ES module output without esModuleInterop (webpack with ts-loader, say): a namespace
  // import is the one form that compiles against @types/express there, and calls the
  // namespace. TypeScript 7 refuses that call for @types/express too.
  {
    name: 'bundler without esModuleInterop (a namespace import, called)',
    type: 'commonjs',
    options: { module: 'esnext', moduleResolution: 'bundler' },
    esm: true,
    namespaceImport: true,
    compilers: ['TypeScript 5.9'],
  },
  {
    name: 'node10 with ES module output (a namespace import, called)',
    type: 'commonjs',
    options: { module: 'es2020', moduleResolution: 'node10' },
    esm: true,
    namespaceImport: true,
    compilers: ['TypeScript 5.9'],
  },
] as const;

type Resolution = (typeof resolutions)[number];

/** `import * as express from 'express'` and a call of it, as code compiled without esModuleInterop writes it. */
const namespaceImport = `
import * as webapp from 'webapp';
const app: webapp.Express = webapp();
const router: webapp.Router = webapp.Router();
app.use(webapp.json(), webapp.static('public'), router);
`;

// The migration guide's npm alias (`"express": "npm:webapp"`), with typings that augment
// the `express` module: @types/express-ws adds an overload to `function Router`, and
// @types/cookie-parser redeclares `Request`'s `cookies` and `signedCookies` with a
// narrower type. They merge with webapp's declarations as with @types/express's.
const withAugmentations = (esm: boolean) => `
import express from 'express';
import expressWs from 'express-ws';
import cookieParser from 'cookie-parser';
${esm ? '' : "import expressCjs = require('express');"}

const { app } = expressWs(express());
const router = express.Router();
router.ws('/echo', (ws, req) => {
  ws.on('message', (message) => ws.send(String(message)));
  void req.params;
});
router.get('/:id', (req, res) => res.send(req.params.id));
app.use('/ws', router);
app.ws('/live', (ws) => ws.close());

app.use(cookieParser('secret'));
app.get('/', (req, res) => {
  const cookies: Record<string, any> = req.cookies;
  const signed: Record<string, any> = req.signedCookies;
  const secret: string | undefined = req.secret;
  res.send([cookies.sid, signed.sid, secret]);
});
${esm ? '' : 'const plain: expressCjs.Router = expressCjs.Router();\nvoid plain;'}
`;

// A module whose declarations are emitted (a library, a package of a monorepo) and whose
// exports' types are inferred: each must be nameable through an entry point. The app of
// webapp/v3, a Route, graceful and the session's MemoryStore were nameable only by paths
// the \`exports\` map hides (TS2742, "cannot be named without a reference to
// .../dist/cjs/v3/application.js"), or, under node10, by such a path in the emitted file.
const inferredExports = `
import webapp from 'webapp';
import v3 from 'webapp/v3';
import * as middleware from 'webapp/middleware';
export const app = webapp();
export const router = webapp.Router();
export const parser = webapp.json();
export const legacy = v3();
export const route = new webapp.Route('/health');
export const store = new middleware.session.MemoryStore();
export const stop = webapp.graceful;
`;

const supports = (resolution: Resolution, compilerName: string) =>
  !('compilers' in resolution) || (resolution.compilers as readonly string[]).includes(compilerName);

/**
 * Per module resolution, its projects: every entry point, the npm alias with
 * augmentations, and declarations emitted for inferred types.
 */
let projects: Array<{ resolution: Resolution; dirs: string[] }>;

before(() => {
  projects = resolutions.map((resolution, index) => {
    if ('namespaceImport' in resolution) {
      const dir = project(`namespace-${index}`, resolution.type, resolution.options, namespaceImport);
      return { resolution, dirs: [dir] };
    }
    // \`types: []\` (as DefinitelyTyped's own tests, or \`["jest"]\`): Node's types are
    // still there, as @types/express brings them (each entry point references them).
    const entryOptions = { ...resolution.options, types: [] };
    const entries = project(`entries-${index}`, resolution.type, entryOptions, everyEntryPoint(resolution.esm));
    const alias = project(
      `alias-${index}`,
      resolution.type,
      resolution.options,
      withAugmentations(resolution.esm),
      'express',
    );
    const declarations = project(
      `declarations-${index}`,
      resolution.type,
      {
        ...resolution.options,
        declaration: true,
        emitDeclarationOnly: true,
        noEmit: false,
        outDir: 'out',
      },
      inferredExports,
    );
    copy(alias, '@types/express-ws');
    copy(alias, '@types/cookie-parser');
    // What @types/express-ws imports besides express (linked: they do not import it).
    link(alias, '@types/ws');
    link(alias, '@types/express-serve-static-core');
    return { resolution, dirs: [entries, alias, declarations] };
  });
});

describe('the packed package: types of every entry point, and as express with typings that augment it', () => {
  for (const [compilerName, compiler] of Object.entries(compilers)) {
    const names = resolutions.filter((resolution) => supports(resolution, compilerName)).map(({ name }) => name);
    it(
      `${compilerName}: every entry point, and as express with @types/express-ws and @types/cookie-parser, ` +
        `under ${names.join('; ')} resolution, with skipLibCheck off`,
      async (t) => {
        const skip = cannotRun(compilerName, compiler);
        if (skip !== undefined) return t.skip(skip);
        const dirs = projects
          .filter(({ resolution }) => supports(resolution, compilerName))
          .flatMap(({ dirs }) => dirs);
        const { code, output } = await typeCheckProjects(compiler, dirs, scratch);
        assert.equal(output.trim(), '');
        assert.equal(code, 0);
      },
    );
  }
});
