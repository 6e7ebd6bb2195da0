/**
 * webapp/v3 against express@3.21.2 where an audit found differences: fractional
 * error statuses, nameless cookies, qs 4's array indexes. What stays different on
 * purpose is asserted on webapp alone and documented in docs/migrating-from-express-3.md.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { assertSameResponses, withoutStackFrames, type RequestSpec } from '../support/differential';
import { express3Pair as pair } from '../support/legacy-oracles';
import webapp3 = require('../../src/v3/index');

type Any = any;

const get = (path: string): RequestSpec => ({ path });

describe('webapp/v3 edge cases against express@3', () => {
  it('a fractional status answers its integer part (Node truncates it), from an error or from res.status', async () => {
    const statuses = ['404.5', '400.2', '599.9', '450.5', '399.5', '500.5', '404'];
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.get('/status/:v', (q: Any, _s: Any, n: Any) =>
          n(Object.assign(new Error('e'), { status: Number(q.params.v) })),
        );
        app.get('/status-code/:v', (q: Any, _s: Any, n: Any) =>
          n(Object.assign(new Error('e'), { statusCode: Number(q.params.v) })),
        );
        app.get('/res-status/:v', (q: Any, s: Any) => s.status(Number(q.params.v)).send('x'));
        app.get('/send/:v', (q: Any, s: Any) => s.send(Number(q.params.v)));
        app.get('/send-body/:v', (q: Any, s: Any) => s.send(Number(q.params.v), 'body'));
        app.get('/json/:v', (q: Any, s: Any) => s.json(Number(q.params.v), { a: 1 }));
        return app;
      },
      ['/status/', '/status-code/', '/res-status/', '/send/', '/send-body/', '/json/'].flatMap((route) =>
        statuses.map((status) => get(route + status)),
      ),
      pair,
      withoutStackFrames,
    );
  });

  it('the production error page names the status as 3.21 did ("undefined" for one Node has no name for)', async () => {
    // 3.21 read NODE_ENV once, when Connect loaded, so this is not differential:
    // under NODE_ENV=production 3.21 answers `404 undefined\n` and `450 undefined\n`.
    const app = webapp3();
    app.set('env', 'production');
    app.get('/:v', (q: Any, _s: Any, n: Any) => n(Object.assign(new Error('e'), { status: Number(q.params.v) })));
    await request(app).get('/404.5').expect(404, 'undefined\n');
    await request(app).get('/450').expect(450, 'undefined\n');
    await request(app).get('/404').expect(404, 'Not Found\n');
    await request(app).get('/1000').expect(500, 'Internal Server Error\n');
  });

  it('res.clearCookie("") and res.cookie("", v) write a nameless cookie', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.get('/clear', (_q: Any, s: Any) => s.clearCookie('').send('ok'));
        app.get('/clear-path', (_q: Any, s: Any) => s.clearCookie('', { path: '/a' }).send('ok'));
        app.get('/set', (_q: Any, s: Any) => s.cookie('', 'v a;l').send('ok'));
        return app;
      },
      ['/clear', '/clear-path', '/set'].map(get),
      pair,
    );
  });

  it('refuses a cookie name that would add attributes (3.21 wrote `a=x; Max-Age=9; b=; Path=/`)', async () => {
    const app = webapp3();
    app.get('/', (q: Any, s: Any) => s.clearCookie(q.query.n).send('ok'));
    app.use((err: Any, _q: Any, s: Any, _n: Any) => s.send(500, err.message));
    for (const name of [';', 'a=x; Max-Age=9; b', 'a b', 'a=b']) {
      const res = await request(app).get('/').query({ n: name }).expect(500, 'argument name is invalid');
      assert.equal(res.headers['set-cookie'], undefined);
    }
  });

  it('req.query makes arrays of indexes up to 20 included, as qs 4', async () => {
    const repeated = (n: number) => Array.from({ length: n }, (_, i) => 'a=' + i).join('&');
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.get('/', (q: Any, s: Any) => s.json(q.query));
        return app;
      },
      [
        '/?a[20]=1',
        '/?a[19]=1',
        '/?a[21]=1',
        '/?a[1]=x&a[20]=y',
        '/?a[20]=x&a[]=y',
        '/?a[20][b]=1',
        '/?' + repeated(20),
        '/?' + repeated(21),
      ].map(get),
      pair,
    );
  });

  it('req.query: the qs 4 results webapp does not reproduce (documented)', async () => {
    // express@3.21's answer, then webapp/v3's: a value naming an Object.prototype member
    // does not become a key of an object (shadowing its method), and `__proto__` sets no
    // prototype. Every other answer is qs 4's (test/querystring/qs4-dialect.test.ts).
    const table: Array<[string, unknown, unknown]> = [
      ['a[b]=2&a=toString', { a: { b: '2', toString: true } }, { a: { b: '2' } }],
      ['a[__proto__][b]=1', { a: {} }, { a: {} }],
    ];
    const app = webapp3();
    app.get('/', (q: Any, s: Any) =>
      s.json({ query: q.query, plain: Object.getPrototypeOf(q.query.a) === Object.prototype }),
    );
    for (const [query, , ours] of table) {
      const res = await request(app).get('/?' + query);
      assert.deepEqual(res.body, { query: ours, plain: true }, query);
    }
  });
});
