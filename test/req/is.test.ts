/** req.is. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeRequest } from './fake';

const withBody = (type?: string) =>
  fakeRequest({
    method: 'POST',
    headers: { 'content-length': '2', ...(type === undefined ? {} : { 'content-type': type }) },
  });

describe('req.is', () => {
  it('matches type names, extensions and full types, returning the argument', () => {
    const r = withBody('application/json; charset=utf-8');
    assert.equal(r.is('json'), 'json');
    assert.equal(r.is('application/json'), 'application/json');
    assert.equal(r.is(['html', 'json']), 'json');
    assert.equal(r.is('html', 'json'), 'json');
    assert.equal(r.is('html'), false);
  });

  it('wildcards and +suffixes return the actual type', () => {
    assert.equal(withBody('application/json').is('*/json'), 'application/json');
    assert.equal(withBody('text/html').is('text/*'), 'text/html');
    assert.equal(withBody('application/vnd.api+json').is('+json'), 'application/vnd.api+json');
    assert.equal(withBody('application/vnd.api+json').is('application/*+json'), 'application/vnd.api+json');
  });

  it('knows urlencoded and multipart', () => {
    assert.equal(withBody('application/x-www-form-urlencoded').is('urlencoded'), 'urlencoded');
    assert.equal(withBody('multipart/form-data; boundary=x').is('multipart'), 'multipart');
  });

  it('with no types gives the media type; false for a body without a valid type', () => {
    assert.equal(withBody('Text/HTML; charset=utf-8').is(), 'text/html');
    assert.equal(withBody().is('json'), false);
    assert.equal(withBody('not a type').is('json'), false);
  });

  it('is null when the request has no body', () => {
    const r = fakeRequest({ headers: { 'content-type': 'application/json' } });
    assert.equal(r.is('json'), null);
    assert.equal(
      fakeRequest({ headers: { 'transfer-encoding': 'chunked', 'content-type': 'text/plain' } }).is('text'),
      'text',
    );
  });
});

describe('req method arities', () => {
  it('match Express 4 (fn.length is API)', () => {
    const req = fakeRequest();
    const lengths = Object.fromEntries(
      [
        'get',
        'header',
        'accepts',
        'acceptsCharsets',
        'acceptsEncodings',
        'acceptsLanguages',
        'acceptsCharset',
        'acceptsEncoding',
        'acceptsLanguage',
        'range',
        'param',
        'is',
      ].map((name) => [name, req[name].length]),
    );
    assert.deepEqual(lengths, {
      get: 1,
      header: 1,
      accepts: 0,
      acceptsCharsets: 0,
      acceptsEncodings: 0,
      acceptsLanguages: 0,
      acceptsCharset: 0,
      acceptsEncoding: 0,
      acceptsLanguage: 0,
      range: 2,
      param: 2,
      is: 1,
    });
  });
});
