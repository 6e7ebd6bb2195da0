/**
 * webapp/otel without its peer dependency, @opentelemetry/api, installed: an app that
 * loads tracing only where the peer is there (`try { await import('webapp/otel') }`)
 * catches the failure and goes on, on every Node line. The package is copied, with its
 * dependencies linked beside it, into a scratch project that has no @opentelemetry/api
 * (this repository's node_modules has it, and a linked package would find it there).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureBuilt, packageRoot as root } from '../support/scratch-project';
import { withoutCoverage } from '../support/without-coverage';

let project: string;

before(() => {
  ensureBuilt();
  project = mkdtempSync(join(tmpdir(), 'webapp-peer-'));
  const installed = join(project, 'node_modules/webapp');
  mkdirSync(installed, { recursive: true });
  cpSync(join(root, 'dist'), join(installed, 'dist'), { recursive: true });
  cpSync(join(root, 'package.json'), join(installed, 'package.json'));
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  for (const dependency of Object.keys(manifest.dependencies))
    symlinkSync(join(root, 'node_modules', dependency), join(project, 'node_modules', dependency), 'dir');
});

after(() => rmSync(project, { recursive: true, force: true }));

/** Runs an ES module in the project; its exit code and what it printed. */
function run(source: string): { status: number | null; stdout: string; stderr: string } {
  writeFileSync(join(project, 'main.mjs'), source);
  return spawnSync(process.execPath, [join(project, 'main.mjs')], {
    cwd: project,
    encoding: 'utf8',
    env: withoutCoverage(),
    timeout: 20000,
  });
}

describe('webapp/otel without @opentelemetry/api', () => {
  it("an app's import() of it fails with MODULE_NOT_FOUND, which the app catches, and the app goes on", () => {
    const child = run(
      `import webapp from 'webapp';
       let tracing = 'on';
       try { await import('webapp/otel'); } catch (err) { tracing = 'off: ' + err.code; }
       const app = webapp();
       app.get('/', (req, res) => res.send(tracing));
       const server = app.listen(0, '127.0.0.1', async () => {
         const res = await fetch('http://127.0.0.1:' + server.address().port + '/');
         console.log(res.status + ' ' + (await res.text()));
         server.close();
       });`,
    );
    assert.equal(child.stderr, '');
    assert.equal(child.stdout.trim(), '200 off: MODULE_NOT_FOUND');
    assert.equal(child.status, 0);
  });

  it('require() of it throws the same error, and the rest of webapp loads', () => {
    const child = run(
      `import { createRequire } from 'node:module';
       const require = createRequire(import.meta.url);
       let message;
       try { require('webapp/otel'); } catch (err) { message = err.code + ' ' + err.message.split('\\n')[0]; }
       console.log(message);
       console.log(typeof require('webapp')(), typeof require('webapp/body-parser').json);`,
    );
    assert.equal(child.stderr, '');
    assert.deepEqual(child.stdout.trim().split('\n'), [
      "MODULE_NOT_FOUND Cannot find module '@opentelemetry/api'",
      'function function',
    ]);
    assert.equal(child.status, 0);
  });
});
