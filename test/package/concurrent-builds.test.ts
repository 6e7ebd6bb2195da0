/**
 * scripts/build.mjs run several times at once, as `npm start` and `npm run start:v3` do
 * (each builds first): every build succeeds, dist/ is never seen half-written while they
 * run (each build writes a folder of its own and swaps it in whole), nothing is left
 * beside it, and the package loads afterwards. A build over a dist/ built from the same
 * inputs leaves it as it is. The build scripts run as they are, over a small source tree
 * of the same shape, so that three builds take seconds, not minutes.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { withoutCoverage } from '../support/without-coverage';

const root = resolve(__dirname, '../..');

const sources: Record<string, string> = {
  'src/greet.ts': "export function greet(name: string): string {\n  return 'hello ' + name;\n}\n",
  'src/define-prototype.ts':
    'export function isLazyMember(target: object, name: string): boolean {\n' +
    '  return Object.getOwnPropertyDescriptor(target, name)?.get !== undefined;\n}\n',
  'src/index.ts':
    "import { greet } from './greet';\nimport { isLazyMember } from './define-prototype';\n" +
    '// Loaded on first use, as webapp/middleware is: a file of its own beside the core.\n' +
    "const tiny = Object.assign(() => greet('app'), { isLazyMember, middleware: () => require('./middleware') });\n" +
    'export = tiny;\n',
  'src/middleware/index.ts':
    "import { greet } from '../greet';\nexport function hello(): string {\n  return greet('middleware');\n}\n",
};

/** Every file and folder under `dir`, sorted; null when there is no `dir` (or it went while being read). */
function tree(dir: string): string[] | null {
  try {
    const folder = statSync(dir).ino;
    const names = (readdirSync(dir, { recursive: true }) as string[]).sort();
    // A build may swap dist/ in while the walk runs, and the walk then mixes the folder
    // it began in (moved aside and being deleted) with the new one: no reader that opens
    // one path at a time sees that. Such a walk is no observation.
    return statSync(dir).ino === folder ? names : null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function build(project: string, ...args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [join(project, 'scripts/build.mjs'), ...args], {
    cwd: project,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: withoutCoverage(),
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((done) => child.on('close', (code) => done({ code, output })));
}

/** A folder with the build scripts, tsconfig.json and the small source tree. */
function tinyProject(): string {
  const project = mkdtempSync(join(tmpdir(), 'webapp-builds-'));
  cpSync(join(root, 'scripts'), join(project, 'scripts'), { recursive: true });
  cpSync(join(root, 'tsconfig.json'), join(project, 'tsconfig.json'));
  writeFileSync(join(project, 'package.json'), '{ "name": "tiny", "private": true }\n');
  symlinkSync(join(root, 'node_modules'), join(project, 'node_modules'), 'dir');
  for (const [file, text] of Object.entries(sources)) {
    mkdirSync(dirname(join(project, file)), { recursive: true });
    writeFileSync(join(project, file), text);
  }
  return project;
}

describe('the build script', () => {
  let project: string;

  before(() => (project = tinyProject()));

  after(() => rmSync(project, { recursive: true, force: true }));

  it('run several times at once: each succeeds, dist/ is never seen half-written, and the package loads', async () => {
    const first = await build(project);
    assert.equal(first.code, 0, first.output);
    const whole = tree(join(project, 'dist'));
    assert.ok(whole?.includes(join('cjs', 'core.js')) && whole.includes(join('esm', 'index.mjs')), String(whole));

    // The folder of a build that was killed (a process that has exited) is cleaned up.
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    mkdirSync(join(project, `dist.tmp-${deadPid}`, 'cjs'), { recursive: true });

    const builds = [build(project, '--force'), build(project, '--force'), build(project, '--force')];
    let running = true;
    void Promise.all(builds).then(() => (running = false));
    const seen = new Set<string>();
    while (running) {
      const now = tree(join(project, 'dist'));
      if (now) seen.add(JSON.stringify(now));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    for (const { code, output } of await Promise.all(builds)) assert.equal(code, 0, output);

    assert.deepEqual(tree(join(project, 'dist')), whole);
    assert.ok(seen.size > 0, 'dist/ was looked at while the builds ran');
    for (const state of seen) assert.deepEqual(JSON.parse(state), whole, 'what a reader found in dist/');
    assert.deepEqual(
      readdirSync(project).filter((name) => name.startsWith('dist.')),
      [],
      'no build folder is left beside dist/',
    );

    const built = (file: string) => JSON.stringify(pathToFileURL(join(project, 'dist', file)).href);
    const loaded = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { createRequire } from 'node:module';
         import { fileURLToPath } from 'node:url';
         const tiny = createRequire(import.meta.url)(fileURLToPath(${built('cjs/index.js')}));
         const esm = await import(${built('esm/index.mjs')});
         const { hello } = await import(${built('esm/middleware.mjs')});
         console.log(JSON.stringify([tiny(), tiny.middleware().hello(), esm.default === tiny, hello()]));`,
      ],
      { cwd: project, encoding: 'utf8' },
    );
    assert.equal(loaded.status, 0, loaded.stderr);
    assert.deepEqual(JSON.parse(loaded.stdout), ['hello app', 'hello middleware', true, 'hello middleware']);
  });

  it('over a dist/ built from the same inputs leaves it as it is, and builds once a source changed', async () => {
    // The first build here is a whole one only if the test above did not run.
    assert.equal((await build(project)).code, 0);
    const builtAt = statSync(join(project, 'dist/cjs/index.js')).mtimeMs;
    const again = await build(project);
    assert.equal(again.code, 0, again.output);
    assert.match(again.output, /dist\/ is up to date/);
    assert.equal(statSync(join(project, 'dist/cjs/index.js')).mtimeMs, builtAt);

    writeFileSync(join(project, 'src/greet.ts'), sources['src/greet.ts'].replace('hello ', 'hi '));
    const changed = await build(project);
    assert.equal(changed.code, 0, changed.output);
    assert.doesNotMatch(changed.output, /up to date/);
    const greeting = spawnSync(
      process.execPath,
      ['-p', `require(${JSON.stringify(join(project, 'dist/cjs/index.js'))})()`],
      { encoding: 'utf8' },
    );
    assert.equal(greeting.stdout.trim(), 'hi app', greeting.stderr);
  });

  it("digests every input of the build: src/, its scripts, tsconfig.json, TypeScript's version", async () => {
    const scratch = tinyProject();
    try {
      const { inputsDigest } = (await import(pathToFileURL(join(scratch, 'scripts/build-inputs.mjs')).href)) as {
        inputsDigest: (root: string) => string;
      };
      // node_modules/ is the repository's (a link): its file is replaced by a copy here.
      unlinkSync(join(scratch, 'node_modules'));
      mkdirSync(join(scratch, 'node_modules/typescript'), { recursive: true });
      cpSync(join(root, 'node_modules/typescript/package.json'), join(scratch, 'node_modules/typescript/package.json'));
      const inputs = [
        'src/middleware/index.ts',
        'scripts/bundle-core.mjs',
        'scripts/build.mjs',
        'tsconfig.json',
        'node_modules/typescript/package.json',
      ];
      for (const file of inputs) {
        const before = inputsDigest(scratch);
        writeFileSync(join(scratch, file), readFileSync(join(scratch, file), 'utf8') + '\n');
        assert.notEqual(inputsDigest(scratch), before, file);
      }
      const before = inputsDigest(scratch);
      writeFileSync(join(scratch, 'src/added.ts'), '');
      assert.notEqual(inputsDigest(scratch), before, 'a new source file');
      const unchanged = inputsDigest(scratch);
      writeFileSync(join(scratch, 'README.md'), 'not an input');
      assert.equal(inputsDigest(scratch), unchanged, 'README.md');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
