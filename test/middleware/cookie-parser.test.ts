import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sign } from '../../src/http/cookie-signature';
import { cookieParser, JSONCookie, signedCookie } from '../../src/middleware/cookie-parser';
import { assertSameAsConnect, echo, requestAll, type RequestSpec } from './support';

const connect = require('connect');

const show = echo((req) => ({ cookies: req.cookies, signed: req.signedCookies, secret: req.secret ?? null }));

describe('cookieParser', () => {
  it('matches Connect 2.30 for plain, JSON, signed, forged and odd cookies', async () => {
    const good = 's:' + sign('tobi', 'keyboard');
    const json = 'j:' + encodeURIComponent(JSON.stringify({ a: [1, 2] }));
    const signedJson = 's:' + sign('j:' + JSON.stringify({ n: 1 }), 'keyboard');
    const headers = [
      undefined,
      'a=1; b=two',
      `name=${encodeURIComponent(good)}`,
      'name=s:tobi.forged',
      `data=${json}`,
      `sj=${encodeURIComponent(signedJson)}`,
      'bad=j:{nope; quoted="x y"',
      'a=1; a=2; pct=%E0%A4%A',
      'j=j:null; z=j:0; f=j:false',
    ];
    const requests = headers.map((cookie) => ({ path: '/', headers: cookie ? { cookie } : {} }) as RequestSpec);
    await assertSameAsConnect([connect.cookieParser('keyboard'), show], [cookieParser('keyboard'), show], requests);
    await assertSameAsConnect([connect.cookieParser(), show], [cookieParser(), show], requests);
  });

  it('reads every header as cookie-parser 1.4 (what Express 4 apps use) does', async () => {
    const npmCookieParser = require('cookie-parser');
    const good = 's:' + sign('tobi', 'keyboard');
    const headers = [
      'session=abc123; theme=dark; lang=en-GB',
      ` a = "b" ;;c=%41%42; bad=%E0%A4%A; x; y=z=w; a=dup; s=${encodeURIComponent(good)}`,
      'j=j:{"n":[1,2]}; broken=j:{; empty=; =noname; t=\t"q"\t',
    ];
    const requests = headers.map((cookie) => ({ path: '/', headers: { cookie } }) as RequestSpec);
    const ours = await requestAll([cookieParser('keyboard'), show], requests);
    const theirs = await requestAll([npmCookieParser('keyboard'), show], requests);
    assert.deepEqual(
      ours.map((res) => JSON.parse(res.body)),
      theirs.map((res) => JSON.parse(res.body)),
    );
  });

  it('keeps req.cookies set by an earlier parser', async () => {
    const preset = (req: any, _res: unknown, next: () => void) => {
      req.cookies = { set: 'before' };
      next();
    };
    const [res] = await requestAll([preset, cookieParser('s'), show], [{ path: '/', headers: { cookie: 'a=b' } }]);
    assert.deepEqual(JSON.parse(res.body).cookies, { set: 'before' });
  });

  it('never lets a cookie reach a prototype (security fix)', async () => {
    const probe = echo((req) => ({
      polluted: ({} as any).polluted ?? null,
      inherited: ['toString', 'hasOwnProperty', 'valueOf', '__proto__'].filter((name) => name in req.cookies),
      ctor: req.cookies.constructor ?? null,
    }));
    const [res] = await requestAll(
      [cookieParser('s'), probe],
      [{ path: '/', headers: { cookie: '__proto__=j:{"polluted":1}; constructor=x' } }],
    );
    assert.deepEqual(JSON.parse(res.body), { polluted: null, inherited: [], ctor: 'x' });
  });

  it('exposes the parsing helpers', () => {
    assert.deepEqual(JSONCookie('j:{"a":1}'), { a: 1 });
    assert.equal(JSONCookie('j:{'), undefined);
    assert.equal(JSONCookie('plain'), undefined);
    assert.equal(signedCookie('s:' + sign('v', 'k'), 'k'), 'v');
    assert.equal(signedCookie('s:v.bad', 'k'), false);
    assert.equal(signedCookie('plain', 'k'), 'plain');
  });
});

describe("cookieParser's members", () => {
  it("JSONCookie(s) and signedCookie(s) are members, answering as Connect 2.30's (cookie-parser's)", () => {
    const ours = cookieParser as unknown as Record<string, (...args: unknown[]) => unknown>;
    const theirs = connect.cookieParser as Record<string, (...args: unknown[]) => unknown>;
    assert.deepEqual(Object.keys(ours).sort(), Object.keys(theirs).sort());
    const signed = 's:' + sign('tobi', 'keyboard cat');
    const plain = (value: unknown) => (value === undefined ? 'undefined' : JSON.parse(JSON.stringify(value)));
    for (const [name, args] of [
      ['signedCookie', [signed, 'keyboard cat']],
      ['signedCookie', [signed, 'wrong']],
      ['signedCookie', ['plain', 'keyboard cat']],
      ['signedCookies', [{ a: signed, b: 'plain', c: 's:forged.sig' }, 'keyboard cat']],
      ['JSONCookie', ['j:{"a":[1,2]}']],
      ['JSONCookie', ['j:{broken']],
      ['JSONCookie', ['plain']],
      ['JSONCookies', [{ a: 'j:{"b":1}', c: 'plain' }]],
    ] as const) {
      assert.deepEqual(
        plain(ours[name]!(...structuredClone(args))),
        plain(theirs[name]!(...structuredClone(args))),
        `${name}(${JSON.stringify(args)})`,
      );
    }
  });
});
