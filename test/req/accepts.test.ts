/** req.accepts, acceptsCharsets, acceptsEncodings, acceptsLanguages and the deprecated singular aliases. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertSameResponses, withoutStackFrames, type Framework } from '../support/differential';
import { fakeRequest } from './fake';

const req = (headers: Record<string, string>) => fakeRequest({ headers });

describe('req.accepts', () => {
  it('returns the first offer without an Accept header', () => {
    assert.equal(req({}).accepts('json', 'html'), 'json');
    assert.equal(req({}).accepts(['text/plain']), 'text/plain');
  });

  it('maps extensions through the MIME database and returns the offer as given', () => {
    const r = req({ accept: 'text/*;q=0.5, application/json' });
    assert.equal(r.accepts('html'), 'html');
    assert.equal(r.accepts('text/html'), 'text/html');
    assert.equal(r.accepts(['html', 'json']), 'json');
    assert.equal(r.accepts('html', 'json'), 'json');
    assert.equal(r.accepts('png'), false);
    assert.equal(r.accepts('nosuchextension'), false);
  });

  it('lists the accepted types in preference order with no offers (or a falsy first argument)', () => {
    const r = req({ accept: 'text/html;q=0.5, application/json' });
    assert.deepEqual(r.accepts(), ['application/json', 'text/html']);
    assert.deepEqual(r.accepts(undefined, 'json'), ['application/json', 'text/html']);
    assert.deepEqual(r.accepts([]), ['application/json', 'text/html']);
  });

  it('honours q=0 and the most specific match', () => {
    assert.equal(req({ accept: 'text/html;level=1, text/plain;q=0' }).accepts('text'), false);
    assert.equal(req({ accept: '*/*, application/json;q=0' }).accepts('json', 'html'), 'html');
  });

  it('survives malformed Accept headers', () => {
    assert.equal(req({ accept: ',,;q=x, garbage' }).accepts('json'), false);
  });
});

describe('req.acceptsCharsets / Encodings / Languages', () => {
  it('negotiate their headers, false when nothing fits', () => {
    const r = req({
      'accept-charset': 'utf-8, iso-8859-1;q=0.5',
      'accept-encoding': 'gzip, br;q=0',
      'accept-language': 'en-US, fr;q=0.8, de;q=0',
    });
    assert.equal(r.acceptsCharsets('iso-8859-1', 'utf-8'), 'utf-8');
    assert.equal(r.acceptsCharsets('koi8-r'), false);
    assert.equal(r.acceptsEncodings(['br', 'gzip']), 'gzip');
    assert.equal(r.acceptsEncodings('identity'), 'identity');
    assert.equal(r.acceptsEncodings('br'), false);
    assert.equal(r.acceptsLanguages('fr', 'en-US'), 'en-US');
    assert.equal(r.acceptsLanguages('de'), false);
    assert.deepEqual(r.acceptsLanguages(), ['en-US', 'fr']);
  });

  it('without the header: any charset or language, but only identity for encodings', () => {
    const r = req({});
    assert.equal(r.acceptsCharsets('utf-8'), 'utf-8');
    assert.equal(r.acceptsEncodings('gzip', 'identity'), 'identity'); // only identity is implied
    assert.equal(r.acceptsLanguages('fr'), 'fr');
    assert.deepEqual(r.acceptsEncodings(), ['identity']);
  });

  it('keep the singular names Express 4 deprecates', () => {
    const r = req({ 'accept-charset': 'utf-8', 'accept-encoding': 'gzip', 'accept-language': 'en' });
    assert.equal(r.acceptsCharset('utf-8'), 'utf-8');
    assert.equal(r.acceptsEncoding('gzip'), 'gzip');
    assert.equal(r.acceptsLanguage('en'), 'en');
  });
});

describe('req.accepts with a comma-delimited list (SPEC 4.4)', () => {
  // The documented form; express@4's accepts package does not split it (it answers false).
  it('treats "json, html" as two offers', () => {
    assert.equal(req({ accept: 'text/*, application/json' }).accepts('json, text'), 'json');
    assert.equal(req({ accept: 'text/*;q=.5, application/json' }).accepts('html, json'), 'json');
    assert.equal(req({}).accepts('json, html'), 'json');
    assert.equal(req({ accept: 'image/png' }).accepts('json, html'), false);
  });

  it('splits only a single string: in an array or among arguments a comma is part of one type', async () => {
    await assertSameResponses(
      (framework: Framework) => {
        const app = framework();
        app.get('/array', (request, res) => res.json({ found: request.accepts(['png', 'gif, html']) }));
        app.get('/args', (request, res) => res.json({ found: request.accepts('text', 'json, html') }));
        app.get('/format', (_request, res) => res.format({ 'json, html': () => res.send('several') }));
        return app;
      },
      ['/array', '/args', '/format'].flatMap((path) => [
        { path },
        { path, headers: { accept: 'text/html' } },
        { path, headers: { accept: 'application/json' } },
      ]),
      undefined,
      withoutStackFrames,
    );
  });

  it('a string of only commas and spaces is one offer, as in Express, not "no offers"', async () => {
    await assertSameResponses(
      (framework: Framework) => {
        const app = framework();
        app.get('/', (request, res) =>
          res.json({
            comma: request.accepts(','),
            spaces: request.accepts(' , ,'),
            joined: request.accepts([''].join(',')),
          }),
        );
        return app;
      },
      [
        { path: '/' },
        { path: '/', headers: { accept: 'application/json' } },
        { path: '/', headers: { accept: '*/*' } },
      ],
    );
  });
});
