/** res.redirect([status,] url): Location, status, and a body worded by the Accept header. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { redirectBody } from '../../src/response/redirect';
import { appWith } from './support';

describe('redirectBody', () => {
  it('words text and HTML as Express 4.22 does, escaping the HTML', () => {
    assert.equal(redirectBody('text', 302, '/a'), 'Found. Redirecting to /a');
    assert.equal(redirectBody('html', 301, '/<b>&"'), '<p>Moved Permanently. Redirecting to /&lt;b&gt;&amp;&quot;</p>');
    assert.equal(redirectBody('none', 302, '/a'), '');
    assert.equal(redirectBody('text', 399, '/a'), 'undefined. Redirecting to /a');
  });
});

describe('res.redirect', () => {
  const app = appWith((a) => {
    a.get('/', (req, res) => {
      res.redirect(String(req.query.to ?? '/next'));
    });
    a.get('/status', (_req, res) => {
      res.redirect(301, '/moved');
    });
    a.get('/legacy', (_req, res) => {
      (res.redirect as (url: string, status: number) => void)('/old', 303);
    });
    a.get('/back', (_req, res) => {
      res.redirect('back');
    });
  });

  it('defaults to 302 with a text body (no Accept: the first of text/html)', async () => {
    const res = await request(app).get('/').expect(302).expect('Location', '/next').expect('Vary', 'Accept');
    assert.equal(res.text, 'Found. Redirecting to /next');
  });

  it('answers HTML, text, or an empty body by Accept', async () => {
    await request(app)
      .get('/')
      .set('Accept', 'text/html')
      .expect('Content-Type', 'text/html; charset=utf-8')
      .expect('<p>Found. Redirecting to /next</p>');
    await request(app)
      .get('/')
      .set('Accept', 'text/plain')
      .expect('Content-Type', 'text/plain; charset=utf-8')
      .expect('Found. Redirecting to /next');
    const json = await request(app)
      .get('/')
      .set('Accept', 'application/json')
      .expect(302)
      .expect('Content-Length', '0');
    assert.equal(json.headers['content-type'], undefined);
  });

  it('escapes the URL in the HTML body and names it without a link', async () => {
    const res = await request(app)
      .get('/?to=' + encodeURIComponent('/<script>alert("x")</script>'))
      .set('Accept', 'text/html');
    assert.equal(res.text, '<p>Found. Redirecting to /%3Cscript%3Ealert(%22x%22)%3C/script%3E</p>');
    const js = await request(app)
      .get('/?to=' + encodeURIComponent('javascript:a&b'))
      .set('Accept', 'text/html');
    assert.equal(js.text, '<p>Found. Redirecting to javascript:a&amp;b</p>');
  });

  it('takes the status first, and still the deprecated url-first form', async () => {
    await request(app).get('/status').expect(301).expect('Location', '/moved');
    await request(app).get('/legacy').expect(303).expect('Location', '/old').expect('See Other. Redirecting to /old');
  });

  it('sends no body for HEAD but the length of the one it would send', async () => {
    const res = await request(app).head('/').set('Accept', 'text/plain').expect(302).expect('Content-Length', '27');
    assert.equal(res.text, undefined);
  });

  it('redirects back to the Referer', async () => {
    await request(app).get('/back').set('Referer', '/from').expect(302).expect('Location', '/from');
    await request(app).get('/back').expect('Location', '/');
  });

  it('encodes unicode and keeps existing escapes', async () => {
    await request(app)
      .get('/?to=' + encodeURIComponent('/caf\u00e9?x=%20'))
      .expect('Location', '/caf%C3%A9?x=%20');
  });
});
