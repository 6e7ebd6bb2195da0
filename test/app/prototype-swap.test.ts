/**
 * Requests whose prototype webapp swaps (src/prototypes.ts swapPrototype): those
 * entering a mounted sub-app, and those that reach the app through a wrapper of
 * the server's request listener. After the swap, middleware adds properties
 * (`req.user`, `res.locals`...). Two such requests must still share their hidden
 * classes: on V8 before 13 (Node 20 and 22) a plain swap gave each object a map
 * of its own, which made every property access in the app and in Node
 * megamorphic and a request several times slower.
 *
 * Hidden classes are V8's business, so this asks V8 itself (`%HaveSameMap`, under
 * --allow-natives-syntax) in a child process on the built package. The two
 * requests are held in their handlers at the same point, over two connections,
 * so that nothing Node does to a finished response can tell them apart.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';

const entry = resolve(__dirname, '../../dist/cjs/index.js');

type Setup = 'mounted sub-app' | 'wrapped listener' | 'app.listen';

/** Serves two concurrent requests under `setup`; V8's answer on whether their req and res share maps. */
function compareMaps(setup: Setup): { sameRequestMap: boolean; sameResponseMap: boolean; bodies: string[] } {
  const source = `
    const http = require('node:http');
    const webapp = require(${JSON.stringify(entry)});
    const setup = ${JSON.stringify(setup)};
    const app = webapp();
    const held = [];
    function handler(req, res) {
      // What middleware does after the app took the request over.
      req.user = { id: req.params.id };
      req.startedAt = 1;
      res.locals.title = 'x';
      res.timing = 2;
      held.push({ req, res });
      if (held.length < 2) return;
      const [a, b] = held;
      const result = {
        sameRequestMap: %HaveSameMap(a.req, b.req),
        sameResponseMap: %HaveSameMap(a.res, b.res),
      };
      for (const { req, res } of held) {
        res.json({ ...result, id: req.user.id, app: req.app === app ? 'parent' : 'sub' });
      }
    }
    if (setup === 'mounted sub-app') {
      const sub = webapp();
      sub.get('/item/:id', handler);
      app.use('/api', sub);
    } else {
      app.get('/api/item/:id', handler);
    }
    const server =
      setup === 'wrapped listener'
        ? http.createServer((req, res) => app(req, res))
        : http.createServer(app);
    // Under app.listen-style serving the objects are born with the app's prototypes
    // from the second request on (server-classes.ts); the first one here warms that up.
    server.listen(0, '127.0.0.1', async () => {
      const base = 'http://127.0.0.1:' + server.address().port + '/api/item/';
      const agent = new http.Agent({ keepAlive: false });
      const get = (id) =>
        new Promise((resolve, reject) => {
          http.get(base + id, { agent }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk) => (body += chunk));
            res.on('end', () => resolve(body));
          }).on('error', reject);
        });
      const warm = [get('w1'), get('w2')];
      await Promise.all(warm);
      held.length = 0;
      const bodies = await Promise.all([get('1'), get('2')]);
      server.close();
      const parsed = bodies.map((body) => JSON.parse(body));
      console.log(JSON.stringify({ ...parsed[0], bodies: parsed.map((p) => p.id + ' ' + p.app) }));
    });
  `;
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '-e', source], {
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
    timeout: 30_000,
  });
  return JSON.parse(out.trim().split('\n').pop()!);
}

describe(`requests whose prototype is swapped keep shared hidden classes (${process.version})`, () => {
  it('in a mounted sub-app, after middleware adds properties', () => {
    const result = compareMaps('mounted sub-app');
    assert.deepEqual(result.bodies, ['1 sub', '2 sub']);
    assert.equal(result.sameRequestMap, true, 'two requests in the sub-app have different request maps');
    assert.equal(result.sameResponseMap, true, 'two requests in the sub-app have different response maps');
  });

  it('behind a function that calls the app as its request listener', () => {
    const result = compareMaps('wrapped listener');
    assert.deepEqual(result.bodies, ['1 parent', '2 parent']);
    assert.equal(result.sameRequestMap, true, 'two wrapped requests have different request maps');
    assert.equal(result.sameResponseMap, true, 'two wrapped responses have different response maps');
  });

  it('and requests born with the app prototypes share them too', () => {
    const result = compareMaps('app.listen');
    assert.deepEqual(result.bodies, ['1 parent', '2 parent']);
    assert.equal(result.sameRequestMap, true);
    assert.equal(result.sameResponseMap, true);
  });
});
