/** webapp/v3 request API, differential against express@3.21.2. */
import { describe, it } from 'node:test';
import { assertSameResponses, type RequestSpec } from '../support/differential';
import { express3Pair as pair } from '../support/legacy-oracles';

type Any = any;

/** Answers with what `probe(req)` computes, as JSON written by hand (no res helpers involved). */
function probing(probe: (req: Any) => unknown) {
  return (framework: Any) => {
    const app = framework();
    app.enable('trust proxy');
    app.use((req: Any, res: Any) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(probe(req) ?? null));
    });
    return app;
  };
}

const withHeaders = (headers: Record<string, string>, path = '/'): RequestSpec => ({ path, headers });

describe('webapp/v3 request compatibility with express@3', () => {
  it('auth: Basic credentials as { username, password }; the password may hold ":"; else undefined', async () => {
    const basic = (credentials: string) => 'Basic ' + Buffer.from(credentials).toString('base64');
    await assertSameResponses(
      probing((req) => ({ auth: req.auth ?? 'undefined' })),
      [
        withHeaders({}),
        withHeaders({ Authorization: basic('tobi:ferret') }),
        withHeaders({ Authorization: basic('tobi:fer:r:et') }),
        withHeaders({ Authorization: basic(':') }),
        withHeaders({ Authorization: basic('nocolon') }),
        withHeaders({ Authorization: basic('user:') }),
        withHeaders({ Authorization: basic('é:ü') }),
        withHeaders({ Authorization: basic('line\nbreak:pass') }),
        withHeaders({ Authorization: basic('user:line\nbreak') }),
        withHeaders({ Authorization: '  bAsIc   ' + Buffer.from('a:b').toString('base64') + '  ' }),
        withHeaders({ Authorization: 'Basic' + Buffer.from('a:b').toString('base64') }),
        withHeaders({ Authorization: 'Bearer ' + Buffer.from('a:b').toString('base64') }),
        withHeaders({ Authorization: 'Basic !!!' }),
        withHeaders({ Authorization: 'Basic ' + Buffer.from('a:b').toString('base64url').replace(/=+$/, '') + '_' }),
        withHeaders({ Authorization: 'Basic' }),
        withHeaders({ Authorization: 'Basic dG9iaTpmZXJyZXQ=extra' }),
      ],
      pair,
    );
  });

  it('accepts returns the best type or undefined; accepted lists by quality', async () => {
    await assertSameResponses(
      probing((req) => ({
        one: req.accepts('html') ?? 'undefined',
        list: req.accepts('json, html') ?? 'undefined',
        array: req.accepts(['text/plain', 'application/json']) ?? 'undefined',
        args: req.accepts('png', 'gif') ?? 'undefined',
        accepted: req.accepted,
      })),
      [
        withHeaders({}),
        withHeaders({ Accept: 'application/json' }),
        withHeaders({ Accept: 'text/*;q=0.5, application/json;q=0.9, */*;q=0.1' }),
        withHeaders({ Accept: 'image/png' }),
        withHeaders({ Accept: 'text/html;level=1, text/plain;q=0' }),
        withHeaders({ Accept: 'foo/bar' }),
      ],
      pair,
    );
  });

  it('acceptedLanguages/Charsets and the Boolean accepts* checks', async () => {
    await assertSameResponses(
      probing((req) => ({
        languages: req.acceptedLanguages,
        charsets: req.acceptedCharsets,
        en: req.acceptsLanguage('en'),
        fr: req.acceptsLanguage('fr'),
        utf8: req.acceptsCharset('utf-8'),
        gzip: req.acceptsEncoding('gzip'),
        encodings: req.acceptedEncodings,
      })),
      [
        withHeaders({}),
        withHeaders({ 'Accept-Language': 'en;q=0.8, fr, de;q=0' }),
        withHeaders({ 'Accept-Charset': 'utf-8, iso-8859-1;q=0.5', 'Accept-Encoding': 'gzip, deflate' }),
      ],
      pair,
    );
  });

  it('is() returns Booleans; host, subdomains, protocol, ip and ips behind a trusted proxy', async () => {
    await assertSameResponses(
      probing((req) => ({
        json: req.is('json'),
        appJson: req.is('application/json'),
        wildcard: req.is('*/json'),
        text: req.is('text/*'),
        html: req.is('html'),
        host: req.host ?? 'none',
        subdomains: req.subdomains,
        protocol: req.protocol,
        secure: req.secure,
        ip: req.ip,
        ips: req.ips,
        xhr: req.xhr,
        path: req.path,
        referrer: req.get('Referrer') ?? 'none',
      })),
      [
        withHeaders({ 'Content-Type': 'application/json; charset=utf-8', Host: 'a.b.example.com:8080' }),
        withHeaders({ 'Content-Type': 'text/html', Host: '[::1]:3000', Referer: '/from' }, '/p/q?x=1'),
        withHeaders({
          'X-Forwarded-Host': 'tobi.ferrets.example.com',
          'X-Forwarded-Proto': 'https, http',
          'X-Forwarded-For': '1.1.1.1, 2.2.2.2',
          'X-Requested-With': 'XMLHttpRequest',
        }),
        withHeaders({ Host: '127.0.0.1' }),
      ],
      pair,
    );
  });

  it('range() is undefined without a Range header; param() looks in params, body, query', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.get('/r/:id', (req: Any, res: Any) => {
          req.body = { b: 'from-body', id: 'body-id' };
          res.setHeader('Content-Type', 'application/json');
          res.end(
            JSON.stringify({
              range: req.range(1000) ?? 'undefined',
              id: req.param('id'),
              b: req.param('b'),
              q: req.param('q'),
              missing: req.param('zz', 'default'),
            }),
          );
        });
        return app;
      },
      [
        { path: '/r/7?q=query&id=query-id' },
        { path: '/r/8', headers: { Range: 'bytes=0-99,200-299' } },
        { path: '/r/9', headers: { Range: 'bytes=5000-' } },
      ],
      pair,
    );
  });

  it('range() as range-parser 1.0 (a bad part: -1), fresh as fresh 0.3 (`*` anywhere in If-None-Match)', async () => {
    const probe = (framework: Any) => {
      const app = framework();
      app.get('/', (req: Any, res: Any) => {
        res.setHeader('ETag', 'W/"abc"');
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ range: req.range(100) ?? 'undefined', fresh: req.fresh }));
      });
      return app;
    };
    await assertSameResponses(
      probe,
      [
        withHeaders({ Range: 'bytes=0-1,200-300' }),
        withHeaders({ Range: 'bytes=0-1,5-1' }),
        withHeaders({ Range: 'bytes=0-0,bytes=0-0' }),
        withHeaders({ Range: 'items=0-1' }),
        withHeaders({ Range: 'bytes=-0' }),
        withHeaders({ 'If-None-Match': '"x", *' }),
        withHeaders({ 'If-None-Match': '"abc"' }),
        withHeaders({ 'If-None-Match': '*', 'Cache-Control': 'no-cache-please' }),
      ],
      pair,
    );
  });
});
