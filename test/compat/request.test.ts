/**
 * The 4.x request API: the same probes on express@4 and webapp, for every
 * property and method, across the header shapes that trip implementations up.
 */
import { describe, it } from 'node:test';
import { assertSameResponses, type Framework, type RequestSpec } from '../support/differential';

type Any = any;

/** An app that answers with what `probe(req)` computes, for each `trust proxy` value given. */
function probing(probe: (req: Any) => unknown, configure: (app: Any) => void = () => undefined) {
  return (framework: Framework) => {
    const app: Any = framework();
    configure(app);
    app.use((req: Any, res: Any) => {
      let value: unknown;
      try {
        value = probe(req);
      } catch (err) {
        value = 'throws ' + (err as Error).message;
      }
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(value === undefined ? 'undefined' : value));
    });
    return app;
  };
}
const headers = (h: Record<string, string>, path = '/'): RequestSpec => ({ path, headers: h });

const ACCEPT_HEADERS = (
  [
    {},
    { Accept: 'application/json' },
    { Accept: 'text/*;q=0.5, application/json;q=0.9, */*;q=0.1' },
    { Accept: 'image/png' },
    { Accept: 'text/html;level=1, text/plain;q=0' },
    { Accept: '*/*' },
    { Accept: 'application/*' },
    { Accept: ',,;q=x, garbage' },
    { Accept: 'TEXT/HTML' },
    { Accept: 'text/html;q=0.001, application/xml;q=0.0009' },
  ] as Array<Record<string, string>>
).map((h) => headers(h));

describe('request compatibility with express@4', () => {
  it('accepts with types, extensions, lists, arrays and no offers', async () => {
    await assertSameResponses(
      probing((req) => ({
        html: req.accepts('html'),
        list: req.accepts('json', 'html'),
        array: req.accepts(['text/plain', 'application/json']),
        ext: req.accepts(['png', 'gif']),
        all: req.accepts(),
        none: req.accepts('nosuchext'),
      })),
      ACCEPT_HEADERS,
    );
  });

  it('acceptsCharsets, acceptsEncodings, acceptsLanguages and the deprecated singular forms', async () => {
    await assertSameResponses(
      probing((req) => ({
        charsets: req.acceptsCharsets('utf-8', 'iso-8859-1'),
        allCharsets: req.acceptsCharsets(),
        encodings: req.acceptsEncodings(['gzip', 'br']),
        allEncodings: req.acceptsEncodings(),
        identity: req.acceptsEncodings('identity'),
        languages: req.acceptsLanguages('en', 'fr-CA'),
        allLanguages: req.acceptsLanguages(),
        lang: req.acceptsLanguage('de'),
        charset: req.acceptsCharset('utf-8'),
        encoding: req.acceptsEncoding('gzip'),
      })),
      [
        headers({}),
        headers({ 'Accept-Charset': 'utf-8, iso-8859-1;q=0.5' }),
        headers({ 'Accept-Encoding': 'gzip, deflate, br;q=0' }),
        headers({ 'Accept-Language': 'en-US, en;q=0.9, fr;q=0.8, de;q=0' }),
        headers({ 'Accept-Language': '*' }),
        headers({ 'Accept-Encoding': '*;q=0' }),
      ],
    );
  });

  it('is() with types, extensions, wildcards, +suffix; null without a body', async () => {
    const probe = (req: Any) => ({
      json: req.is('json'),
      appJson: req.is('application/json'),
      wildcard: req.is('*/json'),
      text: req.is('text/*'),
      html: req.is(['html', 'json']),
      suffix: req.is('+json'),
      urlencoded: req.is('urlencoded'),
      multipart: req.is('multipart'),
      none: req.is(),
      bad: req.is('nosuchext'),
    });
    await assertSameResponses(probing(probe), [
      { method: 'POST', path: '/', headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: '{}' },
      { method: 'POST', path: '/', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{}' },
      { method: 'POST', path: '/', headers: { 'Content-Type': 'text/html' }, body: 'x' },
      { method: 'POST', path: '/', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=1' },
      { method: 'POST', path: '/', headers: { 'Content-Type': 'multipart/form-data; boundary=x' }, body: '--x--' },
      { method: 'POST', path: '/', headers: { 'Content-Type': 'not a type' }, body: 'x' },
      { method: 'POST', path: '/', body: 'no type' },
      { method: 'GET', path: '/', headers: { 'Content-Type': 'application/json' } },
    ]);
  });

  const hostProbe = (req: Any) => ({
    hostname: req.hostname,
    subdomains: req.subdomains,
    protocol: req.protocol,
    secure: req.secure,
    ip: req.ip,
    ips: req.ips,
    xhr: req.xhr,
  });
  const forwardedRequests = [
    headers({ Host: 'tobi.ferrets.example.com:3000' }),
    headers({ Host: '[::1]:3000' }),
    headers({ Host: '[::1]' }),
    headers({ Host: '127.0.0.1' }),
    headers({
      Host: 'example.com',
      'X-Forwarded-Host': 'a.b.example.org, proxy.example.com',
      'X-Forwarded-Proto': 'https, http',
    }),
    headers({
      Host: 'example.com',
      'X-Forwarded-Host': '[2001:db8::1]:8080',
      'X-Forwarded-For': '10.0.0.1, 192.168.1.1, 203.0.113.9',
    }),
    headers({ 'X-Forwarded-For': '1.1.1.1', 'X-Forwarded-Proto': 'HTTPS ', 'X-Requested-With': 'xmlhttprequest' }),
    headers({ Host: 'localhost' }),
    {
      path: '/',
      headers: {
        Host: 'h.example.com',
        'X-Forwarded-Host': ['first.example.com:81', 'second.example.com'],
        'X-Forwarded-Proto': ['https', 'http'],
        'X-Forwarded-For': ['198.51.100.1', '10.1.1.1'],
      },
    },
    headers({ Host: 'h.example.com', 'X-Forwarded-Host': ' , x.example.com', 'X-Forwarded-For': '  ,, 10.2.2.2' }),
    headers({ Host: '[fe80::1%25eth0]:80', 'X-Forwarded-For': 'fe80::1, 2001:db8::1' }),
  ];

  for (const trust of [
    false,
    true,
    1,
    2,
    'loopback',
    '10.0.0.0/8, loopback',
    ['uniquelocal', 'loopback'],
    (addr: string) => addr === '127.0.0.1',
  ]) {
    const trustName = typeof trust === 'function' ? 'a function' : JSON.stringify(trust);
    it(`hostname, subdomains, protocol, ip and ips with trust proxy = ${trustName}`, async () => {
      await assertSameResponses(
        probing(hostProbe, (app) => app.set('trust proxy', trust)),
        forwardedRequests,
      );
    });
  }

  it('subdomain offset', async () => {
    await assertSameResponses(
      probing(
        (req) => req.subdomains,
        (app) => app.set('subdomain offset', 3),
      ),
      [headers({ Host: 'a.b.c.example.co.uk' })],
    );
  });

  it('get/header with Referer/Referrer, and errors for bad names', async () => {
    await assertSameResponses(
      probing((req) => ({
        referrer: req.get('Referrer'),
        referer: req.header('referer'),
        type: req.get('content-type'),
        missing: req.get('x-nope'),
        empty: (() => {
          try {
            return req.get('');
          } catch (e) {
            return (e as Error).message;
          }
        })(),
        number: (() => {
          try {
            return req.get(5);
          } catch (e) {
            return (e as Error).message;
          }
        })(),
      })),
      [headers({ Referer: '/from' }), headers({ Referrer: '/other', 'Content-Type': 'text/plain' })],
    );
  });

  it('range with and without combine', async () => {
    await assertSameResponses(
      probing((req) => ({
        plain: req.range(1000),
        combined: req.range(1000, { combine: true }),
        small: req.range(10),
      })),
      [
        headers({}),
        headers({ Range: 'bytes=0-99,50-150,900-' }),
        headers({ Range: 'bytes=2000-' }),
        headers({ Range: 'items=1-2' }),
        headers({ Range: 'garbage' }),
      ],
    );
  });

  it('path, query (extended, simple, off, custom) and param', async () => {
    for (const parser of ['extended', 'simple', false, (s: string) => ({ raw: s === undefined ? 'undefined' : s })]) {
      await assertSameResponses(
        probing(
          (req) => ({ path: req.path, query: req.query, param: req.param('a', 'dflt') }),
          (app) => app.set('query parser', parser),
        ),
        [
          { path: '/p/q?a[b]=1&a[c]=2&d=3&d=4' },
          { path: '/x?__proto__[polluted]=1&constructor[prototype][x]=1' },
          { path: '/y' },
          { path: '/z?a=%E2%82%AC&b=%ZZ' },
          { path: '/h#frag?x=1' },
          { path: '/e?' },
          { path: '/f?a=1#b=2' },
          // Around Express's arrayLimit of 1000: a sparse index counts up to it.
          { path: '/g?a[999]=x&a=y' },
          { path: '/g?a[998]=x&a=y' },
          { path: '/g?a[1000]=x&a=y' },
          { path: '/g?a[]=1&a[999]=x&a=y' },
        ],
      );
    }
  });

  it('fresh and stale: ETag and Last-Modified, methods and statuses', async () => {
    await assertSameResponses(
      (framework: Framework) => {
        const app: Any = framework();
        app.all('*', (req: Any, res: Any) => {
          res.setHeader('ETag', '"abc"');
          res.setHeader('Last-Modified', 'Tue, 01 Jan 2030 00:00:00 GMT');
          if (req.query.status) res.statusCode = Number(req.query.status);
          res.end(JSON.stringify({ fresh: req.fresh, stale: req.stale }));
        });
        return app;
      },
      [
        headers({ 'If-None-Match': '"abc"' }),
        headers({ 'If-None-Match': 'W/"abc"' }),
        headers({ 'If-None-Match': '"x", "abc"' }),
        headers({ 'If-Modified-Since': 'Wed, 01 Jan 2031 00:00:00 GMT' }),
        headers({ 'If-Modified-Since': 'Mon, 01 Jan 2029 00:00:00 GMT' }),
        headers({ 'If-None-Match': '"abc"', 'Cache-Control': 'no-cache' }),
        headers({ 'If-None-Match': '"abc"' }, '/?status=404'),
        { method: 'POST', path: '/', headers: { 'If-None-Match': '"abc"' } },
        headers({ 'If-None-Match': '*' }),
      ],
    );
  });
});
