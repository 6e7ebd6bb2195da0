/**
 * Loading webapp leaves `Error.prepareStackTrace` as it found it. At load, webapp walks
 * the stack (with its own `prepareStackTrace`) to tell Node's response methods from
 * patched ones, and puts back what was there: a plain function, Node's own, or the accessor
 * error-callsites installs (elastic-apm-node loads it before the app), which reads back
 * its own wrapper whatever is assigned. Under that accessor webapp's function stayed in
 * place, and every `err.stack` in the process became a list of call sites.
 *
 * Each case runs in a process of its own: the hooks are global, and webapp's response
 * module probes once, as it loads.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const entry = join(__dirname, '../../src/index.ts');

/** Runs `before`, loads webapp and answers one request, then prints what `after` returns, as JSON. */
function afterLoading(before: string, after: string): unknown {
  const source = `
    ${before}
    const webapp = require(${JSON.stringify(entry)});
    const app = webapp();
    app.get('/', (req, res) => res.send('ok'));
    const server = app.listen(0, '127.0.0.1', async () => {
      const answer = await fetch('http://127.0.0.1:' + server.address().port + '/');
      const body = await answer.text();
      server.close();
      console.log(JSON.stringify({ body, ...(${after}) }));
    });
  `;
  const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', source], {
    cwd: join(__dirname, '../..'),
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').pop()!);
}

describe('Error.prepareStackTrace after loading webapp', () => {
  it("is error-callsites' accessor as before, and stacks keep their message line", () => {
    const seen = afterLoading(
      `const callsites = require('error-callsites');`,
      `(() => {
        const err = new Error('boom');
        return {
          stack: err.stack.split('\\n')[0],
          callsites: Array.isArray(callsites(new Error('again'))),
          accessor: typeof Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace').get,
        };
      })()`,
    );
    assert.deepEqual(seen, { body: 'ok', stack: 'Error: boom', callsites: true, accessor: 'function' });
  });

  it("is the app's own function, also behind error-callsites", () => {
    const seen = afterLoading(
      `require('error-callsites'); Error.prepareStackTrace = (err) => 'custom: ' + err.message;`,
      `({ stack: new Error('boom').stack })`,
    );
    assert.deepEqual(seen, { body: 'ok', stack: 'custom: boom' });
  });

  it("is a plain function as it was, or Node's own", () => {
    const custom = afterLoading(
      `Error.prepareStackTrace = (err) => 'plain: ' + err.message;`,
      `({ stack: new Error('boom').stack })`,
    );
    assert.deepEqual(custom, { body: 'ok', stack: 'plain: boom' });
    const nodeOwn = afterLoading(
      `const hook = () => Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace'); const before = hook();`,
      `({
        same: require('node:util').isDeepStrictEqual(hook(), before),
        stack: new Error('boom').stack.split('\\n')[0],
      })`,
    );
    assert.deepEqual(nodeOwn, { body: 'ok', same: true, stack: 'Error: boom' });
  });
});
