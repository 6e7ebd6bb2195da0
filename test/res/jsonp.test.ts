/** res.jsonp(body): JSON wrapped in a sanitised callback when the query names one. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { jsonpBody } from '../../src/response/send';
import { appWith } from './support';

describe('jsonpBody', () => {
  it('wraps in the Rosetta-Flash-safe guard', () => {
    assert.equal(jsonpBody('cb', '{"a":1}'), '/**/ typeof cb === \'function\' && cb({"a":1});');
  });
  it('keeps only word characters, $, ., [ and ] of the callback', () => {
    assert.equal(jsonpBody('a.b[0]$_', '1'), "/**/ typeof a.b[0]$_ === 'function' && a.b[0]$_(1);");
    assert.equal(jsonpBody('alert(1)//<x>', '1'), "/**/ typeof alert1x === 'function' && alert1x(1);");
  });
  it('escapes U+2028 and U+2029 and passes nothing for undefined', () => {
    assert.equal(jsonpBody('f', '"\u2028\u2029"'), '/**/ typeof f === \'function\' && f("\\u2028\\u2029");');
    assert.equal(jsonpBody('f', undefined), "/**/ typeof f === 'function' && f();");
  });
});

describe('res.jsonp', () => {
  const app = appWith((a) => {
    a.get('/', (_req, res) => {
      res.jsonp({ count: 1 });
    });
    a.get('/typed', (_req, res) => {
      res.type('text/plain').jsonp({ count: 1 });
    });
  });

  it('sends plain JSON with nosniff without a callback', async () => {
    await request(app)
      .get('/')
      .expect(200)
      .expect('Content-Type', 'application/json; charset=utf-8')
      .expect('X-Content-Type-Options', 'nosniff')
      .expect('{"count":1}');
  });

  it('sends text/javascript with the callback', async () => {
    await request(app)
      .get('/?callback=handle')
      .expect('Content-Type', 'text/javascript; charset=utf-8')
      .expect('X-Content-Type-Options', 'nosniff')
      .expect('/**/ typeof handle === \'function\' && handle({"count":1});');
  });

  it('sanitises the callback and takes the first of several', async () => {
    await request(app)
      .get('/?callback=evil()%3C%2Fscript%3E')
      .expect('/**/ typeof evilscript === \'function\' && evilscript({"count":1});');
    await request(app)
      .get('/?callback=one&callback=two')
      .expect('/**/ typeof one === \'function\' && one({"count":1});');
    await request(app).get('/?callback=').expect('{"count":1}');
    await request(app).get('/?callback[a]=b').expect('{"count":1}');
  });

  it('uses the `jsonp callback name` setting', async () => {
    const named = appWith((a) => {
      a.set('jsonp callback name', 'cb');
      a.get('/', (_req, res) => {
        res.jsonp([1]);
      });
    });
    await request(named).get('/?cb=fn').expect("/**/ typeof fn === 'function' && fn([1]);");
    await request(named).get('/?callback=fn').expect('[1]');
  });

  it('replaces a Content-Type set earlier when a callback is given', async () => {
    await request(app).get('/typed?callback=f').expect('Content-Type', 'text/javascript; charset=utf-8');
    const res = await request(app).get('/typed').expect('Content-Type', 'text/plain; charset=utf-8');
    assert.equal(res.headers['x-content-type-options'], undefined);
  });

  it('escapes line separators inside the JSON', async () => {
    const lines = appWith((a) =>
      a.get('/', (_req, res) => {
        res.jsonp('a\u2028b\u2029');
      }),
    );
    await request(lines).get('/?callback=f').expect('/**/ typeof f === \'function\' && f("a\\u2028b\\u2029");');
  });
});
