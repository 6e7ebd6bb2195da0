/**
 * webapp keeps a few caches Express has not (ETags of recent bodies, header names, long
 * policy header values, Content-Types): bounded in entries, they must also hold no more
 * memory than their entries' own text. A substring V8 cut from a request body (a
 * urlencoded field that needs no decoding, a line of a text body) is a view that keeps
 * the whole body alive: stored as a cache key, each entry kept a body of up to the
 * parser's limit (1 GB of heap for 127 bodies of 8 MB, where Express stays flat).
 *
 * A child process started with --expose-gc sends an app per case 40 bodies of 1 MB,
 * each with a different value taken from it, and reports how the heap grew, measured
 * after collecting: under a MB with the caches detached, 40 MB when each entry keeps
 * its body.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { before, describe, it } from 'node:test';
import { withoutCoverage } from '../support/without-coverage';

const CHILD = `
const http = require('node:http');
const webapp = require(${JSON.stringify(require.resolve('../../src/index'))});
const bodies = 40;
const uses = {
  etag: [(req, res) => res.send(req.body.v), (i) => 'visitor-number-' + i],
  type: [(req, res) => res.type(req.body.v).send('typed'), (i) => 'application/x-example-type-' + i],
  'policy header': [
    (req, res) => res.set('Cache-Control', req.body.v).send('cached'),
    (i) => 'public, max-age=' + i + ', stale-while-revalidate=60',
  ],
  'header name': [(req, res) => res.set(req.body.v, '1').send('named'), (i) => 'X-Example-Header-' + i],
  charset: [(req, res) => res.set('Content-Type', req.body.v).send('charset added'), (i) => 'text/x-example-' + i],
};
const pad = 'x'.repeat(1024 * 1024);
const heap = () => {
  for (let i = 0; i < 4; i++) global.gc();
  return process.memoryUsage().heapUsed;
};

/** Sends the app of one use its bodies; the statuses answered and the heap's growth. */
async function measure([handler, valueOf]) {
  const app = webapp();
  app.use(webapp.urlencoded({ extended: false, limit: '2mb' }));
  app.post('/', handler);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = (i) =>
    new Promise((resolve, reject) => {
      const request = http.request(
        { host: '127.0.0.1', port: server.address().port, method: 'POST', path: '/', agent,
          headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode));
        },
      );
      request.on('error', reject);
      request.end('v=' + valueOf(i) + '&pad=' + pad);
    });
  const statuses = new Set([await post(0)]);
  const before = heap();
  for (let i = 1; i <= bodies; i++) statuses.add(await post(i));
  const grown = heap() - before;
  agent.destroy();
  await new Promise((resolve) => server.close(resolve));
  return { statuses: [...statuses], grownMB: grown / 1024 / 1024 };
}

(async () => {
  const results = {};
  for (const [name, use] of Object.entries(uses)) results[name] = await measure(use);
  console.log(JSON.stringify(results));
})();
`;

type Growth = { statuses: number[]; grownMB: number };

/** Every use's growth, measured one after the other in one child process. */
function heapGrowths(): Record<string, Growth> {
  const child = spawnSync(process.execPath, ['--expose-gc', '--require', 'tsx/cjs', '-e', CHILD], {
    encoding: 'utf8',
    timeout: 120_000,
    // Not measured for coverage: the paths it runs are the miss paths the in-process tests run.
    env: withoutCoverage(),
  });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout.trim().split('\n').pop()!);
}

describe('caches keep no request body alive', () => {
  let growths: Record<string, Growth>;
  before(() => {
    growths = heapGrowths();
  });

  for (const use of ['etag', 'type', 'policy header', 'header name', 'charset']) {
    it(`a value taken from a 1 MB body: ${use}`, () => {
      const { statuses, grownMB } = growths[use];
      assert.deepEqual(statuses, [200]);
      // 40 bodies of 1 MB: kept by their entries, the heap grew by 40 MB or more.
      assert.ok(grownMB < 12, `the heap grew by ${grownMB.toFixed(1)} MB`);
    });
  }
});
