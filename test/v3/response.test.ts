/** webapp/v3 response API, differential against express@3.21.2. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertSameResponses, type RequestSpec } from '../support/differential';
import webapp3 = require('../../src/v3/index');
import { itWithLiveOracle } from '../support/oracle-recording';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const express3 = require('express3');
const pair = { oracle: express3, subject: webapp3 };
type Any = any;

function routes(table: Record<string, (req: Any, res: Any) => void>) {
  return (framework: Any) => {
    const app = framework();
    app.set('json spaces', 0);
    for (const [path, handler] of Object.entries(table)) app.get(path, handler);
    return app;
  };
}
const get = (path: string, headers?: Record<string, string>): RequestSpec => ({ path, headers });

describe('webapp/v3 response compatibility with express@3', () => {
  it('send: status-first, number alone, strings, buffers, objects, null, HEAD, 304', async () => {
    await assertSameResponses(
      routes({
        '/str': (_q, s) => s.send('<p>hi</p>'),
        '/status-body': (_q, s) => s.send(201, 'created'),
        '/body-status': (_q, s) => s.send('late', 202),
        '/num': (_q, s) => s.send(404),
        '/ok': (_q, s) => s.send(200),
        '/buf': (_q, s) => s.send(Buffer.from('bytes')),
        '/obj': (_q, s) => s.send({ a: [1, 2] }),
        '/null': (_q, s) => s.send(null),
        '/typed': (_q, s) => s.type('text').send('plain'),
        '/charset': (_q, s) => {
          s.charset = 'iso-8859-1';
          s.set('Content-Type', 'text/plain');
          s.end('x');
        },
      }),
      [
        get('/str'), get('/status-body'), get('/body-status'), get('/num'), get('/ok'), get('/buf'), get('/obj'), get('/null'), get('/typed'),
        get('/charset'), { method: 'HEAD', path: '/str' }, get('/str', { 'If-None-Match': 'W/"9-0"' }),
      ],
      pair,
    );
  });

  it('json and jsonp with status-first forms and callbacks', async () => {
    await assertSameResponses(
      routes({
        '/json': (_q, s) => s.json({ a: 1 }),
        '/json-status': (_q, s) => s.json(201, { created: true }),
        '/json-num': (_q, s) => s.json(5),
        '/jsonp': (_q, s) => s.jsonp({ a: '\u2028' }),
        '/jsonp-status': (_q, s) => s.jsonp(400, ['x']),
      }),
      [get('/json'), get('/json-status'), get('/json-num'), get('/jsonp'), get('/jsonp?callback=cb'), get('/jsonp?callback=a.b[0]<script>'), get('/jsonp-status?callback=f')],
      pair,
    );
  });

  // A cleared cookie's Expires is the clock's now: Express 3's recorded answer cannot match a later run.
  itWithLiveOracle('set/get/type/links/attachment/vary/cookies accumulate as Connect 2 did', 'an Expires taken from the clock', async () => {
    await assertSameResponses(
      routes({
        '/headers': (_q, s) => {
          s.set({ 'X-A': 1, 'X-B': ['2', '3'] });
          s.type('json');
          s.links({ next: '/p2' });
          s.links({ last: '/p9' });
          s.vary('Accept').vary(['Origin', 'accept']);
          s.attachment('report.pdf');
          s.cookie('a', '1');
          s.cookie('obj', { x: 1 }, { maxAge: 0, httpOnly: true });
          s.clearCookie('old');
          s.end(String(s.get('X-A')));
        },
        '/unknown-type': (_q, s) => s.type('nosuchext').end(),
      }),
      [get('/headers'), get('/unknown-type')],
      pair,
    );
  });

  it('redirect and location: relative to the mount point, back, status-first, bodies by Accept', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        const blog = framework();
        blog.get('/r', (_q: Any, s: Any) => s.redirect('admin'));
        blog.get('/dot', (_q: Any, s: Any) => s.redirect('./sub'));
        app.use('/blog', blog);
        app.get('/abs', (_q: Any, s: Any) => s.redirect('http://example.com/x'));
        app.get('/status', (_q: Any, s: Any) => s.redirect(301, '/moved'));
        app.get('/back', (_q: Any, s: Any) => s.redirect('back'));
        app.get('/html-safe', (_q: Any, s: Any) => s.redirect('/a?b=c&d=e'));
        return app;
      },
      [
        get('/blog/r'), get('/blog/dot'), get('/abs'), get('/status'), get('/back'), get('/back', { Referer: '/prev' }),
        get('/html-safe', { Accept: 'text/html' }), get('/html-safe', { Accept: 'text/plain' }), get('/html-safe', { Accept: 'image/png' }), { method: 'HEAD', path: '/status' },
      ],
      pair,
    );
  });

  it('format picks by Accept, falls back to default, or 406', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.get('/f', (_q: Any, s: Any) => s.format({ text: () => s.send('text'), json: () => s.send({ json: true }) }));
        app.get('/d', (_q: Any, s: Any) => s.format({ html: () => s.send('<b>html</b>'), default: () => s.send(406, 'fallback') }));
        app.use((err: Any, _q: Any, s: Any, _n: Any) => s.send(err.status, err.message + ' ' + JSON.stringify(err.types)));
        return app;
      },
      [get('/f', { Accept: 'text/plain' }), get('/f', { Accept: 'application/json' }), get('/f', { Accept: 'image/png' }), get('/d', { Accept: 'image/png' }), get('/d')],
      pair,
    );
  });
});

describe('webapp/v3 security fixes over express@3', () => {
  it('percent-encodes redirect locations (3.x sent them raw; non-ASCII crashed the response)', async () => {
    const app = webapp3();
    app.get('/r', (_q: Any, s: Any) => s.redirect('/a?b=<c>&d'));
    app.get('/u', (_q: Any, s: Any) => s.redirect('/café'));
    const request = (await import('supertest')).default;
    const res = await request(app).get('/r').set('Accept', 'text/html').expect(302);
    assert.equal(res.headers.location, '/a?b=%3Cc%3E&d');
    assert.equal(res.text, '<p>Found. Redirecting to <a href="/a?b=%3Cc%3E&amp;d">/a?b=%3Cc%3E&amp;d</a></p>');
    const unicode = await request(app).get('/u').expect(302);
    assert.equal(unicode.headers.location, '/caf%C3%A9');
  });
});
