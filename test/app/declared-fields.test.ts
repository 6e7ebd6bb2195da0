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
import { resolve } from 'node:path';
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
