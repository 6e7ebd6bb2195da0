/**
 * The published types (dist/cjs/**\/*.d.ts) type-check typed Express 4 code:
 * the fixtures in test/types/fixtures/ are compiled by TypeScript 5.9 and 7.x
 * in scratch projects whose node_modules/webapp links to this package, as
 * CommonJS projects (with and without esModuleInterop) and as ESM (module
 * nodenext) projects, with skipLibCheck off so webapp's own declarations are
 * checked too. Each compiler checks the five projects in one `tsc --build`.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureBuilt } from '../support/scratch-project';
import { cannotRun, compilers, typeCheckProjects } from '../support/type-check';

const root = resolve(__dirname, '../..');
const fixtures = join(__dirname, 'fixtures');
let scratch: string;

const strict = { strict: true, skipLibCheck: false, noEmit: true, types: ['node'], lib: ['ES2022'], target: 'ES2022' };

/** A project that sees webapp (and @types/node) the way an installed package is seen. */
function project(
  name: string,
  packageType: 'commonjs' | 'module',
  compilerOptions: object,
  files: string[],
  links: string[],
): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(root, join(dir, 'node_modules/webapp'), 'dir');
  for (const link of links) {
    mkdirSync(dirname(join(dir, 'node_modules', link)), { recursive: true });
    symlinkSync(join(root, 'node_modules', link), join(dir, 'node_modules', link), 'dir');
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: packageType }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { ...strict, ...compilerOptions }, files }),
  );
  for (const file of files) copyFileSync(join(fixtures, file), join(dir, file));
  return dir;
}

const projectNames = [
  'CommonJS project',
  'CommonJS project without esModuleInterop',
  'ESM project',
  'ESM project without @types/express',
  'CommonJS project with exactOptionalPropertyTypes and declaration files',
] as const;
let projects: Record<(typeof projectNames)[number], string>;

before(() => {
  ensureBuilt();
  scratch = mkdtempSync(join(tmpdir(), 'webapp-types-'));
  // Both module systems see middleware typed against @types/express; a third
  // project sees only @types/node, proving webapp's types stand alone.
  const ecosystem = [
    'cors',
    'morgan',
    'cookie-parser',
    'express-session',
    'passport',
    'passport-local',
    'multer',
    'compression',
    'express-async-handler',
  ];
  const standalone = [
    'app.ts',
    'negative.ts',
    'legacy.ts',
    'augmentation.ts',
    'static.ts',
    'express-types.ts',
    'body-parser.ts',
    'routers.ts',
  ];
  const withEcosystem = [...standalone, 'ecosystem.ts', 'mixing.ts', 'interop.ts', 'helpers.ts', 'core-types.ts'];
  const nodenext = { module: 'nodenext', moduleResolution: 'nodenext' };
  projects = {
    'CommonJS project': project(
      'cjs',
      'commonjs',
      { ...nodenext, esModuleInterop: true },
      [...withEcosystem, 'merging.ts'],
      ['@types', ...ecosystem],
    ),
    // Without esModuleInterop a default import of webapp is an error (as of
    // express): its fixture imports with `import = require` and `import * as`.
    'CommonJS project without esModuleInterop': project(
      'cjs-no-interop',
      'commonjs',
      nodenext,
      ['commonjs.ts'],
      ['@types/node'],
    ),
    'ESM project': project('esm', 'module', nodenext, withEcosystem, ['@types', ...ecosystem]),
    'ESM project without @types/express': project('esm-standalone', 'module', nodenext, standalone, ['@types/node']),
    // Declaration emit names every exported value's type: each must be reachable from 'webapp'.
    'CommonJS project with exactOptionalPropertyTypes and declaration files': project(
      'cjs-exact',
      'commonjs',
      {
        ...nodenext,
        esModuleInterop: true,
        exactOptionalPropertyTypes: true,
        noEmit: false,
        declaration: true,
        emitDeclarationOnly: true,
        outDir: 'out',
      },
      ['exact.ts'],
      ['@types', 'compression'],
    ),
  };
});

after(() => rmSync(scratch, { recursive: true, force: true }));

describe('published types', () => {
  for (const [compilerName, compiler] of Object.entries(compilers)) {
    const title = `${compilerName}: the fixtures compile with zero errors in each project (${projectNames.join('; ')})`;
    it(title, async (t) => {
      const skip = cannotRun(compilerName, compiler);
      if (skip !== undefined) return t.skip(skip);
      const { code, output } = await typeCheckProjects(compiler, Object.values(projects), scratch);
      assert.equal(output.trim(), '', output);
      assert.equal(code, 0);
    });
  }
});
