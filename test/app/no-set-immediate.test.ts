/**
 * Where the global `setImmediate` is missing (Jest's jsdom environment, Jest 28 and
 * later), the walk past the last layer and the final handler still answer, scheduling
 * on `process.nextTick` as finalhandler and on-finished do. Run in a child process on the
 * built package, the global deleted before webapp loads.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { withoutCoverage } from '../support/without-coverage';

const entry = join(__dirname, '..', '..', 'dist', 'cjs', 'index.js');

const CHILD = `
delete globalThis.setImmediate;
process.env.NODE_ENV = 'test';
const webapp = require(${JSON.stringify(entry)});
const app = webapp();
app.get('/error', (req, res, next) => next(new Error('boom')));
app.get('/thrown', () => { throw Object.assign(new Error('teapot'), { status: 418 }); });
app.get('/skip', (req, res, next) => next('route'), (req, res) => res.send('not reached'));
const router = webapp.Router();
router.get('/out', (req, res, next) => next('router'));
app.use('/r', router);
for (let i = 0; i < 150; i++) app.use('/deep', (req, res, next) => next());
app.get('/deep', (req, res) => res.send('deep'));
app.get('/other', (req, res) => res.send('other'));
const server = app.listen(0, '127.0.0.1', async () => {
  const answers = {};
  for (const path of ['/error', '/thrown', '/skip', '/r/out', '/deep', '/missing']) {
    const res = await fetch('http://127.0.0.1:' + server.address().port + path);
    answers[path] = [res.status, (await res.text()).split('\\n')[0]];
  }
  server.close();
  process.stdout.write(JSON.stringify(answers));
});
`;

describe('without a global setImmediate (Jest jsdom environment)', () => {
  it('answers 404s, errors without a handler, next("route"), next("router") and long chains', () => {
    const child = spawnSync(process.execPath, ['-e', CHILD], {
      encoding: 'utf8',
      timeout: 20_000,
      env: withoutCoverage(),
    });
    assert.equal(child.stderr, '');
    assert.deepEqual(JSON.parse(child.stdout), {
      '/error': [500, '<!DOCTYPE html>'],
      '/thrown': [418, '<!DOCTYPE html>'],
      '/skip': [404, '<!DOCTYPE html>'],
      '/r/out': [404, '<!DOCTYPE html>'],
      '/deep': [200, 'deep'],
      '/missing': [404, '<!DOCTYPE html>'],
    });
  });
});
