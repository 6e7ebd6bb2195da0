/** res.cookie(name, value, [options]): Set-Cookie with every option, JSON values, signatures. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Request } from 'express';
import request from 'supertest';
import { unsign } from '../../src/http/cookie-signature';
import { cookieValue, serializeOptions } from '../../src/response/cookies';
import { appWith } from './support';

describe('cookie values and options', () => {
  it('stores objects (and null) as j: JSON, the rest as strings', () => {
    assert.equal(cookieValue({ a: [1] }), 'j:{"a":[1]}');
    assert.equal(cookieValue(null), 'j:null');
    assert.equal(cookieValue(12), '12');
    assert.equal(cookieValue(undefined), 'undefined');
  });

  it('turns maxAge (ms) into Expires and Max-Age (s), and defaults the path', () => {
    const opts = serializeOptions({ maxAge: 1500 }, () => 1_000_000);
    assert.equal(opts.maxAge, 1);
    assert.equal((opts.expires as Date).getTime(), 1_001_500);
    assert.equal(opts.path, '/');
    assert.equal(serializeOptions({ path: '/x' }, () => 0).path, '/x');
    assert.equal(serializeOptions({ maxAge: 'soon' as unknown as number }, () => 0).maxAge, 'soon');
    assert.equal(serializeOptions({ maxAge: '2000' as unknown as number }, () => 0).maxAge, 2);
  });

  it("does not modify the caller's options", () => {
    const options = { maxAge: 1000 };
    serializeOptions(options, () => 0);
    assert.deepEqual(options, { maxAge: 1000 });
  });
});

describe('res.cookie', () => {
  const app = appWith((a) => {
    a.use((req, _res, next) => {
      if (req.query.secret) (req as Request & { secret?: string }).secret = String(req.query.secret);
      next();
    });
    a.get('/', (req, res) => {
      res
        .cookie('name', req.query.v ?? 'tobi')
        .cookie('obj', { a: 1 })
        .end();
    });
    a.get('/options', (_req, res) => {
      res
        .cookie('all', 'v', {
          domain: 'example.com',
          path: '/admin',
          httpOnly: true,
          secure: true,
          sameSite: 'lax',
          priority: 'high',
          partitioned: true,
          expires: new Date(Date.UTC(2030, 0, 1)),
        })
        .end();
    });
    a.get('/max-age', (_req, res) => {
      res.cookie('m', 'v', { maxAge: 60_000 }).end();
    });
    a.get('/encode', (_req, res) => {
      res
        .cookie('e', 'a%b', { encode: (v: string) => v.toUpperCase() })
        .cookie('d', 'a b;c')
        .end();
    });
    a.get('/signed', (_req, res) => {
      res.cookie('s', 'value', { signed: true }).cookie('so', { x: 1 }, { signed: true }).end();
    });
    a.get('/inject', (req, res) => {
      res.cookie('x', 'y', { [String(req.query.opt)]: String(req.query.val) }).end();
    });
    a.get('/bad-name', (_req, res) => {
      res.cookie('a=b; Secure', 'y').end();
    });
  });

  it('sets one Set-Cookie per call, path / by default, objects as j: JSON', async () => {
    const res = await request(app).get('/').expect(200);
    assert.deepEqual(res.headers['set-cookie'], ['name=tobi; Path=/', 'obj=j%3A%7B%22a%22%3A1%7D; Path=/']);
  });

  it('writes every option', async () => {
    const res = await request(app).get('/options');
    assert.deepEqual(res.headers['set-cookie'], [
      'all=v; Domain=example.com; Path=/admin; Expires=Tue, 01 Jan 2030 00:00:00 GMT; ' +
        'HttpOnly; Secure; Partitioned; Priority=High; SameSite=Lax',
    ]);
  });

  it('writes Max-Age in seconds and an Expires that far ahead', async () => {
    const before = Date.now();
    const res = await request(app).get('/max-age');
    const cookie = (res.headers['set-cookie'] as unknown as string[])[0];
    assert.match(cookie, /^m=v; Max-Age=60; Path=\/; Expires=/);
    const expires = Date.parse(/Expires=([^;]+)/.exec(cookie)![1]);
    assert.ok(expires >= Math.floor(before / 1000) * 1000 + 59_000 && expires <= Date.now() + 61_000);
  });

  it('encodes the value with encodeURIComponent unless told otherwise', async () => {
    const res = await request(app).get('/encode');
    assert.deepEqual(res.headers['set-cookie'], ['e=A%B; Path=/', 'd=a%20b%3Bc; Path=/']);
  });

  it('rejects an encoder output that is not a valid cookie value', async () => {
    const bad = appWith((a) =>
      a.get('/', (_req, res) => {
        res.cookie('e', 'a b', { encode: String }).end();
      }),
    );
    const res = await request(bad).get('/').expect(500);
    assert.equal(JSON.parse(res.text).message, 'argument val is invalid');
  });

  it('signs with req.secret as s:<value>.<hmac>', async () => {
    const res = await request(app).get('/signed?secret=keyboard%20cat').expect(200);
    const [plain, object] = res.headers['set-cookie'] as unknown as string[];
    const value = decodeURIComponent(plain.split(';')[0].slice('s='.length));
    assert.ok(value.startsWith('s:'));
    assert.equal(unsign(value.slice(2), 'keyboard cat'), 'value');
    assert.equal(unsign(value.slice(2), 'other'), false);
    assert.equal(
      unsign(decodeURIComponent(object.split(';')[0].slice('so='.length)).slice(2), 'keyboard cat'),
      'j:{"x":1}',
    );
  });

  it('refuses to sign without a secret, and keeps serving', async () => {
    const res = await request(app).get('/signed').expect(500);
    assert.equal(JSON.parse(res.text).message, 'cookieParser("secret") required for signed cookies');
    await request(app).get('/').expect(200);
  });

  it('rejects attribute injection through options and names (CVE-2024-47764)', async () => {
    for (const [opt, val] of [
      ['domain', 'a.com; Secure'],
      ['path', '/;HttpOnly'],
      ['priority', 'urgent'],
      ['sameSite', 'sometimes'],
    ]) {
      const res = await request(app)
        .get(`/inject?opt=${opt}&val=${encodeURIComponent(val)}`)
        .expect(500);
      assert.match(JSON.parse(res.text).message, /invalid/, opt);
      assert.equal(res.headers['set-cookie'], undefined);
    }
    const name = await request(app).get('/bad-name').expect(500);
    assert.match(JSON.parse(name.text).message, /argument name is invalid/);
    await request(app).get('/').expect(200);
  });
});
