/**
 * Requests and responses keep the hidden class they are born with through the app's
 * own work (src/server-classes.ts, declareRequestFields): the fields Express gives
 * every request (`req.next`, `baseUrl`, `originalUrl`, `_parsedUrl`, `res`, `params`,
 * `res.locals`) exist from construction, so setting them adds no class. Otherwise the
 * reads of `req` and `res` in Node and in middleware see more classes than V8 keeps
 * apart, and turn megamorphic (bench/README.md, "A production stack").
 *
 * Hidden classes are V8's business, so this asks V8 itself (`%HaveSameMap`, under
 * --allow-natives-syntax) in a child process on the built package: a request held in
 * the app's first middleware, after the router and the init layer did their work,
 * against the next request before the app sees it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const entry = resolve(__dirname, '../../dist/cjs/index.js');

/** How many held requests are compared with the next one. */
const ROUNDS = 3;

function compareWithUntouched(): { sameRequestMap: boolean[]; sameResponseMap: boolean[]; bodies: string[] } {
  const source = `
    const http = require('node:http');
    const webapp = require(${JSON.stringify(entry)});
    const app = webapp();
    let held = null;
    const sameRequestMap = [];
    const sameResponseMap = [];
    // The first middleware holds each request (but the last) until the next one arrives.
    app.use((req, res, next) => {
      if (req.headers['x-last']) return next();
      held = { req, res, next };
    });
    app.get('/', (req, res) => res.send('ok ' + req.baseUrl + req.originalUrl));
    const server = app.listen(0, '127.0.0.1', async () => {
      const agent = new http.Agent({ keepAlive: false });
      const get = (headers) =>
        new Promise((resolve, reject) => {
          http.get({ host: '127.0.0.1', port: server.address().port, path: '/', headers, agent }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk) => (body += chunk));
            res.on('end', () => resolve(body));
          }).on('error', reject);
        });
      const untilHeld = () => new Promise((resolve) => {
        const poll = () => (held !== null ? resolve() : setImmediate(poll));
        poll();
      });
      const bodies = [];
      let previous = get({});
      for (let round = 0; round < ${ROUNDS}; round++) {
        await untilHeld();
        const following = get(round === ${ROUNDS} - 1 ? { 'x-last': '1' } : {});
        bodies.push(await previous);
        previous = following;
      }
      bodies.push(await previous);
      server.close();
      console.log(JSON.stringify({ sameRequestMap, sameResponseMap, bodies }));
    });
    // Before the app: the next request as Node made it, compared with the one held. (In
    // the server's emit: a request listener beside the app would make the server Node's.)
    const emit = server.emit;
    server.emit = function (event, req, res) {
      if (event === 'request' && held !== null) {
        sameRequestMap.push(%HaveSameMap(req, held.req));
        sameResponseMap.push(%HaveSameMap(res, held.res));
        const release = held.next;
        held = null;
        release();
      }
      return emit.apply(this, arguments);
    };
  `;
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '-e', source], {
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
    timeout: 30_000,
  });
  return JSON.parse(out.trim().split('\n').pop()!);
}

describe('fields every request gets exist from construction', () => {
  it("a request and its response have, after the app's own work, the class they were born with", () => {
    const result = compareWithUntouched();
    assert.deepEqual(result.bodies, Array(ROUNDS + 1).fill('ok /'));
    assert.deepEqual(result.sameRequestMap, Array(ROUNDS).fill(true), 'request maps');
    assert.deepEqual(result.sameResponseMap, Array(ROUNDS).fill(true), 'response maps');
  });
});

/**
 * Whether each response, once done, still has its properties in fast mode, for routes
 * that wait on the response's end (files, downloads, static): a `delete` of a property
 * that is not the object's last turned it into a dictionary (about 17,000 instructions,
 * a sixth of a short file's request on Node 26), and a long file's later writes and
 * events then ran through it.
 */
function fastAfterFiles(root: string): Record<string, boolean | string> {
  const source = `
    const http = require('node:http');
    const webapp = require(${JSON.stringify(entry)});
    const root = ${JSON.stringify(root)};
    const app = webapp();
    const fast = {};
    app.use((req, res, next) => {
      // After the response's own 'close' listeners (onFinished's among them) have run.
      res.on('close', () => setImmediate(() => (fast[req.originalUrl] = %HasFastProperties(res))));
      next();
    });
    app.get('/short', (req, res) => res.sendFile(root + '/short.txt'));
    app.get('/long', (req, res) => res.sendFile(root + '/long.txt'));
    app.get('/callback', (req, res) => res.sendFile(root + '/short.txt', (err) => err && res.end()));
    app.get('/download', (req, res) => res.download(root + '/long.txt'));
    app.use('/static', webapp.static(root));
    const server = app.listen(0, '127.0.0.1', async () => {
      const get = (path) =>
        new Promise((resolve, reject) => {
          http.get({ host: '127.0.0.1', port: server.address().port, path }, (res) => {
            let length = 0;
            res.on('data', (chunk) => (length += chunk.length));
            res.on('end', () => resolve(length));
          }).on('error', reject);
        });
      const paths = ['/short', '/long', '/callback', '/download', '/static/short.txt', '/static/long.txt'];
      for (const path of paths) fast[path + ' bytes'] = String(await get(path));
      const settled = () => new Promise((resolve) => {
        const poll = () => (paths.every((path) => path in fast) ? resolve() : setImmediate(poll));
        poll();
      });
      await settled();
      server.close();
      console.log(JSON.stringify(fast));
    });
  `;
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '-e', source], {
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
    timeout: 30_000,
  });
  return JSON.parse(out.trim().split('\n').pop()!) as Record<string, boolean | string>;
}

describe('responses that send files stay fast objects', () => {
  it('sendFile, download and static leave the response with fast properties', () => {
    const root = mkdtempSync(join(tmpdir(), 'webapp-fast-'));
    try {
      writeFileSync(join(root, 'short.txt'), 'short');
      writeFileSync(join(root, 'long.txt'), Buffer.alloc(200_000, 'x'));
      assert.deepEqual(fastAfterFiles(root), {
        '/short bytes': '5',
        '/long bytes': '200000',
        '/callback bytes': '5',
        '/download bytes': '200000',
        '/static/short.txt bytes': '5',
        '/static/long.txt bytes': '200000',
        '/short': true,
        '/long': true,
        '/callback': true,
        '/download': true,
        '/static/short.txt': true,
        '/static/long.txt': true,
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
