/** req.param (deprecated): params, then body, then query, then the default. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeRequest } from './fake';

function withSources(params?: object, body?: object, query?: object) {
  const req = fakeRequest();
  req.params = params;
  req.body = body;
  req.query = query;
  return req;
}

describe('req.param', () => {
  it('looks in params, body and query in that order', () => {
    assert.equal(withSources({ id: 'p' }, { id: 'b' }, { id: 'q' }).param('id'), 'p');
    assert.equal(withSources({}, { id: 'b' }, { id: 'q' }).param('id'), 'b');
    assert.equal(withSources({}, {}, { id: 'q' }).param('id'), 'q');
  });

  it('skips null values and inherited params', () => {
    assert.equal(withSources({ id: null }, { id: 'b' }).param('id'), 'b');
    assert.equal(withSources(Object.create({ id: 'inherited' }), undefined, { id: 'q' }).param('id'), 'q');
  });

  it('returns the default, or undefined', () => {
    assert.equal(withSources().param('id', 'dflt'), 'dflt');
    assert.equal(withSources().param('id'), undefined);
  });
});
