/**
 * pmx, PM2's HTTP probe (`require('pmx').init({ http: true })` in an app's entry file):
 * it wraps `Module._load` and patches `http.Server` when it sees a module loaded by the
 * name `http`, then reports each request to PM2 as an `http:transaction` message over
 * the process's IPC channel. Express loads `http` by that name; webapp loaded only
 * `node:http`, so pmx patched nothing and PM2's HTTP metrics of an app on webapp stayed
 * empty. The same app runs on express@4 and on webapp, each in a child process with an
 * IPC channel as PM2 gives it, and the messages that arrive must be the same.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../support/scratch-project';
import { withoutCoverage } from '../support/without-coverage';

const APP = `
require('pmx').init({ http: true, http_latency: 0, http_code: 200 });
const express = require(process.argv[1]);
const app = express();
app.get('/users/:id', (req, res) => res.json({ id: req.params.id }));
app.get('/fail', () => { throw new Error('boom'); });
const server = app.listen(0, '127.0.0.1', async () => {
  const base = 'http://127.0.0.1:' + server.address().port;
  const statuses = [];
  for (const path of ['/users/7', '/users/8?x=1', '/fail', '/missing']) {
    statuses.push((await fetch(base + path)).status);
  }
  server.close();
  // pmx reports a request when its response ends: give the last one a turn to be sent.
  setTimeout(() => process.send({ type: 'done', statuses }, () => process.disconnect()), 100);
});
`;

interface Transaction {
  method: string;
  url: string;
  code: number;
}

function observe(framework: string): Promise<{ statuses: number[]; transactions: Transaction[] }> {
  const child = spawn(process.execPath, ['-e', APP, framework], {
    cwd: packageRoot,
    // `test`: neither framework logs the 500's stack.
    env: { ...withoutCoverage(), NODE_ENV: 'test' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const transactions: Transaction[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${framework}: no answer from the app`));
    }, 20_000);
    child.on('message', (message: { type?: string; data?: Transaction; statuses?: number[] }) => {
      if (message.type === 'http:transaction' && message.data) {
        const { method, url, code } = message.data;
        transactions.push({ method, url, code });
      }
      if (message.type === 'done') {
        clearTimeout(timer);
        resolve({ statuses: message.statuses!, transactions });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${framework} exited with ${code} before it was done`));
    });
  });
}

describe('pmx (PM2 HTTP probe)', () => {
  it('reports every request of an app on webapp, as of the same app on express@4', async () => {
    const express = await observe(join(packageRoot, 'node_modules/express'));
    const webapp = await observe(packageRoot);
    assert.deepEqual(express.statuses, [200, 200, 500, 404]);
    assert.deepEqual(webapp, express);
    assert.deepEqual(
      webapp.transactions.map((transaction) => `${transaction.method} ${transaction.url} ${transaction.code}`),
      ['GET /users/7 200', 'GET /users/8?x=1 200', 'GET /fail 500', 'GET /missing 404'],
    );
  });
});
