/**
 * Every code sample in docs/ runs or type-checks here, in a scratch project where webapp
 * is installed as a user would have it, so a guide cannot drift from the code. The rules
 * for marking samples are in samples.ts. Guides added to docs/ later are picked up.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Script } from 'node:vm';
import ts from 'typescript';
import { withoutCoverage } from '../support/without-coverage';
import { extractSamples, markdownFiles, parseExpectation, readSamples, type Sample } from './samples';

const root = resolve(__dirname, '../..');
const docsDir = join(root, 'docs');
const samples = existsSync(docsDir) ? readSamples(docsDir, (file) => relative(root, file)) : [];
const harness = join(__dirname, 'sample-harness.cjs');
let project: string;

const extension = { js: '.js', mjs: '.mjs', ts: '.ts' } as const;
const fileOf = (sample: Sample) => `${sample.doc.replace(/[^\w]+/g, '_')}_L${sample.line}${extension[sample.language]}`;

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      args,
      { cwd: project, timeout: 30_000, env: withoutCoverage({ ...process.env, NODE_ENV: 'development', ...env }) },
      (err, stdout, stderr) => {
        done({
          code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
          output: String(stdout) + String(stderr),
        });
      },
    );
  });
}

/** tsc's diagnostics for the TypeScript samples, by file name; tsc runs while the JavaScript samples do. */
let typeErrors: Promise<Map<string, string[]>>;

async function typeCheck(tsFiles: string[]): Promise<Map<string, string[]>> {
  const errors = new Map<string, string[]>(tsFiles.map((file) => [file, []]));
  if (tsFiles.length === 0) return errors;
  const compilerOptions = {
    strict: true,
    noEmit: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    moduleDetection: 'force',
    esModuleInterop: true,
    target: 'ES2022',
    lib: ['ES2022'],
    types: ['node'],
    skipLibCheck: true,
  };
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: tsFiles }));
  const { output } = await run([join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
  for (const line of output.split('\n')) {
    const match = /^(\S+?\.ts)\((\d+),\d+\): (.*)$/.exec(line);
    if (match) errors.get(match[1])?.push(`line ${match[2]} of the block: ${match[3]}`);
    else if (line.trim() && !/^\s/.test(line)) errors.set('(tsc)', [...(errors.get('(tsc)') ?? []), line]);
  }
  return errors;
}

/** Parses a JavaScript fragment without running it (CommonJS: as a module body). */
/** Checks a fragment's syntax without running it. */
function parses(sample: Sample): Promise<{ code: number; output: string }> {
  if (sample.language === 'mjs') return run(['--check', fileOf(sample)]);
  if (sample.language === 'ts') {
    const { diagnostics = [] } = ts.transpileModule(sample.code, { reportDiagnostics: true, fileName: fileOf(sample) });
    const messages = diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    return Promise.resolve({ code: messages.length === 0 ? 0 : 1, output: messages.join('\n') });
  }
  try {
    // Compiled as the body of an async CommonJS module function: `await` and `return` parse.
    new Script(`(async function (exports, require, module, __filename, __dirname) {\n${sample.code}\n})`);
    return Promise.resolve({ code: 0, output: '' });
  } catch (err) {
    return Promise.resolve({ code: 1, output: String(err) });
  }
}

// Two samples at a time: each is its own short-lived process.
describe('docs samples', { concurrency: 2 }, () => {
  before(async () => {
    project = mkdtempSync(join(tmpdir(), 'webapp-docs-'));
    // A project with webapp installed: node_modules/webapp is this package, and the
    // packages the guides use (express-session, @types/express...) are the repository's.
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(root, join(project, 'node_modules/webapp'), 'dir');
    for (const name of readdirSync(join(root, 'node_modules'))) {
      if (!name.startsWith('.') && name !== 'webapp')
        symlinkSync(join(root, 'node_modules', name), join(project, 'node_modules', name), 'dir');
    }
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'docs-samples', private: true, type: 'commonjs' }),
    );
    for (const sample of samples) writeFileSync(join(project, fileOf(sample)), sample.code);

    typeErrors = typeCheck(samples.filter((sample) => sample.language === 'ts' && !sample.fragment).map(fileOf));
    // A failed compile is reported by the tests that read it, not by this hook.
    typeErrors.catch(() => {});
  });
  after(() => rmSync(project, { recursive: true, force: true }));

  it('the guides exist and have samples', () => {
    assert.ok(existsSync(docsDir), 'docs/ is missing');
    assert.ok(samples.length > 0);
  });

  it('tsc itself reported nothing outside the samples', async () => {
    assert.deepEqual((await typeErrors).get('(tsc)') ?? [], []);
  });

  for (const sample of samples) {
    const kind = `${sample.language}${sample.runnable ? ' runnable' : ''}`;
    it(`${sample.doc}:${sample.line} (${kind})`, async () => {
      const file = fileOf(sample);
      if (sample.fragment) {
        const { code, output } = await parses(sample);
        assert.equal(code, 0, `${sample.doc}:${sample.line} does not parse:\n${output}`);
        return;
      }
      if (sample.language === 'ts')
        assert.deepEqual((await typeErrors).get(file), [], `type errors in ${sample.doc}:${sample.line}`);
      if (!sample.runnable) return;
      const args = ['--require', harness, ...(sample.language === 'ts' ? ['--import', 'tsx'] : []), file];
      const { code, output } = await run(args, { DOCS_SAMPLE_EXPECT: JSON.stringify(sample.expectations) });
      assert.equal(code, 0, `${sample.doc}:${sample.line} failed:\n${output}`);
    });
  }
});

describe('docs links', () => {
  it('the README links every guide', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    for (const file of markdownFiles(docsDir))
      assert.ok(readme.includes(`](${relative(root, file)})`), `README.md does not link ${relative(root, file)}`);
  });

  it('relative links in the guides point at files that exist', () => {
    for (const file of markdownFiles(docsDir)) {
      for (const [, target] of readFileSync(file, 'utf8').matchAll(
        /\]\(((?!https?:|#|mailto:)[^)#\s]+)(?:#[^)]*)?\)/g,
      )) {
        assert.ok(
          existsSync(resolve(dirname(file), target)),
          `${relative(root, file)} links ${target}, which does not exist`,
        );
      }
    }
  });
});

describe('docs sample extraction', () => {
  it('reads languages, the runnable mark, expectations and fence lines', () => {
    const markdown = [
      '# Guide',
      '```js runnable',
      "app.get('/', h);",
      '```',
      '<!-- expect: GET /users/1 -> 200 user 1 -->',
      '<!-- expect: post /echo {"a":1} -> 201 -->',
      '',
      '```ts',
      'const n: number = 1;',
      '```',
      '```sh',
      'npm start',
      '```',
      '  ~~~mjs',
      '  export {};',
      '  ~~~',
    ].join('\n');
    const found = extractSamples('guide.md', markdown + '\n```ts fragment\napp.use(x);\n```');
    assert.deepEqual(
      found.map(({ line, language, runnable, fragment, code }) => ({ line, language, runnable, fragment, code })),
      [
        { line: 2, language: 'js', runnable: true, fragment: false, code: "app.get('/', h);\n" },
        { line: 8, language: 'ts', runnable: false, fragment: false, code: 'const n: number = 1;\n' },
        { line: 14, language: 'mjs', runnable: false, fragment: true, code: 'export {};\n' },
        { line: 17, language: 'ts', runnable: false, fragment: true, code: 'app.use(x);\n' },
      ],
    );
    assert.deepEqual(found[0].expectations, [
      { method: 'GET', path: '/users/1', body: undefined, status: 200, contains: 'user 1' },
      { method: 'POST', path: '/echo', body: '{"a":1}', status: 201, contains: undefined },
    ]);
  });

  it('checks fragments for syntax only: await and undeclared names pass, broken code does not', async () => {
    const fragment = (language: Sample['language'], code: string): Sample => ({
      doc: 'x.md',
      line: 1,
      language,
      runnable: false,
      fragment: true,
      code,
      expectations: [],
    });
    assert.equal((await parses(fragment('js', 'await app.listen(3000);\n// done'))).code, 0);
    assert.equal((await parses(fragment('ts', 'const port: number = app.get("port");'))).code, 0);
    const js = await parses(fragment('js', 'app.get("/", (req, res) => {'));
    assert.equal(js.code, 1);
    assert.match(js.output, /SyntaxError/);
    const tsResult = await parses(fragment('ts', 'const x: = 1;'));
    assert.equal(tsResult.code, 1);
    assert.match(tsResult.output, /Type expected/);
  });

  it('refuses an unclosed block, a bad expectation, and expectations on a fragment', () => {
    assert.throws(() => extractSamples('a.md', '```js\nx\n'), /a\.md:1: the code block is never closed/);
    assert.throws(() => parseExpectation('GET /'), /write METHOD PATH \[BODY\] -> STATUS \[TEXT\]/);
    assert.throws(
      () => extractSamples('b.md', '```js\nx\n```\n<!-- expect: GET / -> 200 -->'),
      /b\.md:1: expectations follow a block that is not runnable/,
    );
  });
});
