/**
 * The published types (dist/cjs/**\/*.d.ts) type-check typed Express 4 code:
 * the fixtures in test/types/fixtures/ are compiled by TypeScript 5.9 and 7.x
 * in scratch projects whose node_modules/webapp links to this package, as
 * CommonJS projects (with and without esModuleInterop) and as ESM (module
 * nodenext) projects, with skipLibCheck off so webapp's own declarations are
 * checked too.
 *
 * And a differential: the fixtures in test/types/fixtures/differential/ are written
 * against @types/express and compiled twice, as they are and with the module name
 * 'express' changed to 'webapp'. Their `// @ts-expect-error` directives become plain
 * comments in both copies, so that the errors are reported: both copies must fail on
 * exactly the lines after a directive, with the same error codes, and compile
 * everywhere else. Each compiler checks the seven projects in one `tsc --build`.
 */
import assert from 'node:assert/strict';
import {
  copyFileSync,
  mkdtempSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
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
  copy = (file: string, to: string) => copyFileSync(join(fixtures, file), to),
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
  for (const file of files) copy(file, join(dir, file));
  return dir;
}

const differential = join(fixtures, 'differential');
const differentialFiles = readdirSync(differential).filter((file) => file.endsWith('.ts'));
/** A directive as TypeScript reads one: a line comment that starts with it. */
const EXPECT_ERROR = /^(\s*)\/\/ @ts-expect-error\b/;

/** A differential fixture for a project on `moduleName`, its directives made plain comments. */
function differentialCopy(moduleName: 'express' | 'webapp') {
  return (file: string, to: string) => {
    const lines = readFileSync(join(differential, file), 'utf8').split('\n');
    const copied = lines.map((line) =>
      line.replace(EXPECT_ERROR, '$1// (expected error)').replaceAll("'express'", `'${moduleName}'`),
    );
    writeFileSync(to, copied.join('\n'));
  };
}

/**
 * A directive that names `[send overloads]`: a wrong body given to `res.send`, `res.json`
 * or `res.jsonp`, which webapp reports as "No overload matches this call" (TS2769) where
 * @types/express names the mismatch alone (src/types/response.ts, `Send`, says why).
 */
const SEND_OVERLOADS = /^\s*\/\/ @ts-expect-error \[send overloads\]/;

/** `file:line` of each line after a line that `directive` matches. */
function linesAfter(directive: RegExp): string[] {
  return differentialFiles.flatMap((file) =>
    readFileSync(join(differential, file), 'utf8')
      .split('\n')
      .flatMap((line, index) => (directive.test(line) ? [`${file}:${index + 2}`] : [])),
  );
}

/** `file:line` of each line after a directive: where both copies must fail. */
const expectedErrorLines = () => linesAfter(EXPECT_ERROR);

/** One diagnostic of tsc's output (not pretty: no terminal), with its continuation lines. */
interface Diagnostic {
  project: string;
  at: string;
  code: string;
  text: string;
}
const DIAGNOSTIC = /^([^/\s]+)\/(\S+)\((\d+),\d+\): error (TS\d+):/;

/** tsc's output as diagnostics, and the lines that are not part of one. */
function parseOutput(output: string): { diagnostics: Diagnostic[]; other: string[] } {
  const diagnostics: Diagnostic[] = [];
  const other: string[] = [];
  for (const line of output.split('\n')) {
    const match = DIAGNOSTIC.exec(line);
    if (match) diagnostics.push({ project: match[1], at: `${match[2]}:${match[3]}`, code: match[4], text: line });
    else if (/^\s/.test(line) && diagnostics.length > 0) diagnostics[diagnostics.length - 1].text += '\n' + line;
    else if (line.trim() !== '') other.push(line);
  }
  return { diagnostics, other };
}

/** A project's diagnostics as `file:line TScode` entries, sorted. */
function codesByLine(diagnostics: Diagnostic[], project: string): string[] {
  return diagnostics
    .filter((d) => d.project === project)
    .map((d) => `${d.at} ${d.code}`)
    .sort();
}

const projectNames = [
  'CommonJS project',
  'CommonJS project without esModuleInterop',
  'ESM project',
  'ESM project without @types/express',
  'CommonJS project with exactOptionalPropertyTypes and declaration files',
  'differential project against express',
  'differential project against webapp',
] as const;
let projects: Record<(typeof projectNames)[number], string>;

before(() => {
  ensureBuilt();
  scratch = mkdtempSync(join(tmpdir(), 'webapp-types-'));
  // Both module systems see middleware typed against @types/express; a third
  // project sees only @types/node, proving webapp's types stand alone. (webapp's
  // optional import of @types/express-serve-static-core still finds this repository's
  // through the link's real path: test/package/packed-types checks an install without it.)
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
  const differentialOptions = { ...nodenext, esModuleInterop: true, skipLibCheck: true };
  projects = {
    'CommonJS project': project(
      'cjs',
      'commonjs',
      { ...nodenext, esModuleInterop: true },
      [...withEcosystem, 'merging.ts'],
      ['@types', ...ecosystem],
    ),
    // Without esModuleInterop a default import of webapp is an error (as of
    // express): its fixture imports with `import = require` and `import * as`, and
    // imports every subpath, whose declarations may not default-import Node's modules.
    // (Set apart: module nodenext turns it on by default. TypeScript 7 has it on always,
    // and refuses the option: that compiler leaves the project out.)
    'CommonJS project without esModuleInterop': project(
      'cjs-no-interop',
      'commonjs',
      { ...nodenext, esModuleInterop: false },
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
    // The same options and packages on both sides; 'express' resolves to @types/express.
    // skipLibCheck on: the projects above check the declarations, these compare the
    // fixtures' own diagnostics (and take half the time).
    'differential project against express': project(
      'diff-express',
      'commonjs',
      differentialOptions,
      differentialFiles,
      ['@types', ...ecosystem, 'helmet', 'qs'],
      differentialCopy('express'),
    ),
    'differential project against webapp': project(
      'diff-webapp',
      'commonjs',
      differentialOptions,
      differentialFiles,
      ['@types', ...ecosystem, 'helmet', 'qs'],
      differentialCopy('webapp'),
    ),
  };
});

after(() => rmSync(scratch, { recursive: true, force: true }));

describe('published types', () => {
  for (const [compilerName, compiler] of Object.entries(compilers)) {
    const title =
      `${compilerName}: the fixtures compile with zero errors in each project, and the differential ` +
      `fixtures fail alike against express and webapp (${projectNames.join('; ')})`;
    it(title, async (t) => {
      const skip = cannotRun(compilerName, compiler);
      if (skip !== undefined) return t.skip(skip);
      // tsc exits with an error code: the differential projects have errors by design.
      const checked = Object.entries(projects)
        .filter(([name]) => compilerName !== 'TypeScript 7' || name !== 'CommonJS project without esModuleInterop')
        .map(([, dir]) => dir);
      const { output } = await typeCheckProjects(compiler, checked, scratch);
      const { diagnostics, other } = parseOutput(output);
      const elsewhere = diagnostics.filter((d) => !d.project.startsWith('diff-')).map((d) => d.text);
      assert.equal([...other, ...elsewhere].join('\n'), '', output);

      // @types/express fails where the fixtures say, and only there (checks the fixtures)...
      const againstExpress = codesByLine(diagnostics, 'diff-express');
      const failing = [...new Set(againstExpress.map((entry) => entry.split(' ')[0]))];
      const texts = (project: string) =>
        diagnostics
          .filter((d) => d.project === project)
          .map((d) => d.text)
          .join('\n');
      assert.deepEqual(failing.sort(), expectedErrorLines().sort(), texts('diff-express'));
      // ...and webapp fails alike: the same error codes on the same lines (TS2769 after a
      // `[send overloads]` directive).
      const overloadLines = new Set(linesAfter(SEND_OVERLOADS));
      assert.ok(overloadLines.size > 0);
      const expectedOfWebapp = againstExpress
        .map((entry) => (overloadLines.has(entry.split(' ')[0]) ? `${entry.split(' ')[0]} TS2769` : entry))
        .sort();
      assert.deepEqual(codesByLine(diagnostics, 'diff-webapp'), expectedOfWebapp, texts('diff-webapp'));
    });
  }
});
