/** res.json(body): JSON text per the app's `json replacer`, `json spaces` and `json escape`. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { stringifyJson } from '../../src/response/send';
import { appWith } from './support';

describe('stringifyJson', () => {
  it('uses replacer and spaces only when given, escapes <, > and & on request', () => {
    assert.equal(stringifyJson({ a: [1] }, undefined, undefined, undefined), '{"a":[1]}');
    assert.equal(stringifyJson({ a: 1 }, undefined, 2, false), '{\n  "a": 1\n}');
    assert.equal(stringifyJson({ a: 1, b: 2 }, ['b'], 0, false), '{"b":2}');
    assert.equal(stringifyJson('<a href="x&y">', undefined, undefined, true), '"\\u003ca href=\\"x\\u0026y\\"\\u003e"');
    assert.equal(stringifyJson(undefined, undefined, undefined, true), undefined);
    assert.equal(
      stringifyJson(() => 1, undefined, undefined, false),
      undefined,
    );
  });
});

describe('res.json', () => {
  it('sends application/json with the settings applied', async () => {
    const app = appWith((a) => {
      a.set('json spaces', 1);
      a.set('json replacer', (key: string, value: unknown) => (key === 'password' ? undefined : value));
      a.set('json escape', true);
      a.get('/', (_req, res) => {
        res.json({ user: '<b>tobi</b>', password: 'x' });
      });
    });
    const res = await request(app).get('/').expect(200).expect('Content-Type', 'application/json; charset=utf-8');
    assert.equal(res.text, '{\n "user": "\\u003cb\\u003etobi\\u003c/b\\u003e"\n}');
  });

  it('keeps a Content-Type already set', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        res.type('application/vnd.api+json').json({});
      }),
    );
    await request(app).get('/').expect('Content-Type', 'application/vnd.api+json; charset=utf-8').expect('{}');
  });

  it('sends JSON for primitives and nothing for undefined', async () => {
    const app = appWith((a) => {
      a.get('/null', (_req, res) => {
        res.json(null);
      });
      a.get('/number', (_req, res) => {
        res.json(3);
      });
      a.get('/string', (_req, res) => {
        res.json('s');
      });
      a.get('/undefined', (_req, res) => {
        res.json(undefined);
      });
    });
    await request(app)
      .get('/null')
      .expect('Content-Type', /application\/json/)
      .expect('null');
    await request(app).get('/number').expect('3');
    await request(app).get('/string').expect('"s"');
    const res = await request(app)
      .get('/undefined')
      .expect(200)
      .expect('Content-Type', 'application/json; charset=utf-8');
    assert.equal(res.text, '');
  });

  it('keeps the deprecated json(obj, status) and json(status, obj) forms', async () => {
    const app = appWith((a) => {
      a.get('/a', (_req, res) => {
        (res.json as (...args: unknown[]) => void)({ a: 1 }, 201);
      });
      a.get('/b', (_req, res) => {
        (res.json as (...args: unknown[]) => void)(202, { b: 1 });
      });
    });
    await request(app).get('/a').expect(201, '{"a":1}');
    await request(app).get('/b').expect(202, '{"b":1}');
  });

  it('passes a JSON.stringify error (a cycle) to the error handler and keeps serving', async () => {
    const app = appWith((a) => {
      a.get('/cycle', (_req, res) => {
        const o: Record<string, unknown> = {};
        o.self = o;
        res.json(o);
      });
      a.get('/ok', (_req, res) => {
        res.json({ ok: true });
      });
    });
    const res = await request(app).get('/cycle').expect(500);
    assert.match(JSON.parse(res.text).message, /circular/i);
    await request(app).get('/ok').expect(200, '{"ok":true}');
  });
});
