import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sign } from '../../src/http/cookie-signature';
import { cookieParser } from '../../src/middleware/cookie-parser';
import { cookieSession } from '../../src/middleware/cookie-session';
import webapp = require('../../src/index');
import { assertSameAsConnect, rawRequest, requestAll, withServer, type Handler } from './support';

type Any = any;

const connect = require('connect');

/** Counts visits; `/clear` drops the session, `/same` leaves it alone. */
const app: Handler = (req, res) => {
  if (req.url === '/clear') req.session = null;
  else if (req.url !== '/same' && req.url !== '/other/x') req.session.count = (req.session.count || 0) + 1;
  res.end(JSON.stringify(req.session));
};

const signed = (value: string, secret = 'sekrit') => encodeURIComponent('s:' + sign(value, secret));

const requests = [
  { path: '/' },
  { path: '/', headers: { cookie: 'sess=' + signed('j:{"count":4}') } },
  { path: '/same', headers: { cookie: 'sess=' + signed('j:{"count":4}') } },
  { path: '/clear', headers: { cookie: 'sess=' + signed('j:{"count":4}') } },
  { path: '/', headers: { cookie: 'sess=' + signed('j:{"count":4}', 'wrong') } },
  { path: '/', headers: { cookie: 'sess=' + signed('not json') } },
  { path: '/', headers: { cookie: 'sess=garbage' } },
];

describe('cookieSession', () => {
  it("keeps Connect 2.30's arity", () => {
    assert.equal(cookieSession.length, 1);
    assert.equal(cookieSession().length, 3);
  });

  it('with its own secret, matches Connect 2.30', async () => {
    await assertSameAsConnect(
      [connect.cookieParser(), connect.cookieSession({ key: 'sess', secret: 'sekrit' }), app],
      [cookieParser(), cookieSession({ key: 'sess', secret: 'sekrit' }), app],
      requests,
    );
  });

  it("with cookieParser's secret, matches Connect 2.30", async () => {
    await assertSameAsConnect(
      [connect.cookieParser('sekrit'), connect.cookieSession({ key: 'sess' }), app],
      [cookieParser('sekrit'), cookieSession({ key: 'sess' }), app],
      // A signed non-JSON value made the 3.x session a string; here it is a fresh object.
      requests.filter((spec) => !String(spec.headers?.cookie).includes(signed('not json'))),
    );
  });

  it('cookie options: path scoping, domain, secure with and without proxy', async () => {
    const cases = [
      { cookie: { path: '/other', domain: 'example.test' } },
      { cookie: { secure: true } },
      { cookie: { secure: true }, proxy: true },
      { cookie: { httpOnly: false } },
    ];
    for (const extra of cases) {
      await assertSameAsConnect(
        [connect.cookieParser(), connect.cookieSession({ key: 'sess', secret: 's', ...extra }), app],
        [cookieParser(), cookieSession({ key: 'sess', secret: 's', ...extra }), app],
        [{ path: '/' }, { path: '/other/x' }, { path: '/', headers: { 'x-forwarded-proto': 'https, http' } }],
      );
    }
  });

  it('default key webapp.sess, path /, HttpOnly, no expiry', async () => {
    const [res] = await requestAll([cookieParser(), cookieSession({ secret: 's' }), app], [{ path: '/' }]);
    assert.match(
      String(res.headers['set-cookie']),
      /^webapp\.sess=s%3Aj%3A%7B%22count%22%3A1%7D\.[^;]+; Path=\/; HttpOnly$/,
    );
  });

  it('maxAge sets Expires', async () => {
    const [res] = await requestAll(
      [cookieParser(), cookieSession({ secret: 's', cookie: { maxAge: 60000 } }), app],
      [{ path: '/' }],
    );
    assert.match(String(res.headers['set-cookie']), /; Expires=\w{3}, \d{2} \w{3} \d{4} [\d:]+ GMT; HttpOnly$/);
  });

  it('rejects an unsigned session cookie (security fix: 3.x accepted it)', async () => {
    const forged = { path: '/same', headers: { cookie: 'sess=' + encodeURIComponent('j:{"admin":true}') } };
    const [res] = await requestAll([cookieParser(), cookieSession({ key: 'sess', secret: 's' }), app], [forged]);
    assert.equal(JSON.parse(res.body).admin, undefined);
  });

  it("adds its cookie to those the app set, as Connect 2.30's response added them up", async () => {
    const withTheme: Handler = (req, res, next) => {
      res.setHeader('Set-Cookie', ['theme=dark; Path=/', 'lang=en; Path=/']);
      app(req, res, next);
    };
    await assertSameAsConnect(
      [connect.cookieParser(), connect.cookieSession({ key: 'sess', secret: 'sekrit' }), withTheme],
      [cookieParser(), cookieSession({ key: 'sess', secret: 'sekrit' }), withTheme],
      requests.slice(0, 4),
    );
  });

  it("in a 4.x app, the app's res.cookie lines stay beside the session's", async () => {
    const webappApp: Any = webapp();
    webappApp.use(cookieParser('sekrit'), cookieSession({ key: 'sess' }));
    webappApp.get('/visit', (req: Any, res: Any) => {
      req.session.n = 1;
      res.cookie('theme', 'dark').send('visited');
    });
    webappApp.get('/leave', (req: Any, res: Any) => {
      req.session = null;
      res.cookie('theme', 'light').send('left');
    });
    await withServer(webappApp, async (port) => {
      const visit = await rawRequest(port, { path: '/visit' });
      assert.deepEqual(
        (visit.headers['set-cookie'] as string[]).map((line) => line.split('=')[0]),
        ['theme', 'sess'],
      );
      const leave = await rawRequest(port, { path: '/leave' });
      assert.deepEqual(leave.headers['set-cookie'], [
        'theme=light; Path=/',
        'sess=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly',
      ]);
    });
  });

  it('requires a secret', async () => {
    const [res] = await requestAll([cookieParser(), cookieSession(), app], [{ path: '/' }]);
    assert.equal(res.status, 500);
    assert.equal(res.body, '`secret` option required for cookie sessions');
  });
});
