/** The deprecated request members print Express 4's notices, under the webapp namespace, once per call site. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { captureStderr } from '../support/capture-stderr';
import { fakeRequest } from './fake';

describe('request deprecations', () => {
  it('req.host, req.param and the singular accepts* aliases name their replacements', () => {
    const req = fakeRequest({ headers: { host: 'a.com' } });
    const lines = captureStderr(() => {
      void req.host;
      req.param('x');
      req.param('x', 1);
      req.acceptsCharset('utf-8');
      req.acceptsEncoding('gzip');
      req.acceptsLanguage('en');
    });
    const messages = lines.map((line) => line.replace(/^.*? webapp deprecated /, '').replace(/ at .*\n$/, ''));
    assert.deepEqual(messages, [
      'req.host: Use req.hostname instead',
      'req.param(name): Use req.params, req.body, or req.query instead',
      'req.param(name, default): Use req.params, req.body, or req.query instead',
      'req.acceptsCharset: Use acceptsCharsets instead',
      'req.acceptsEncoding: Use acceptsEncodings instead',
      'req.acceptsLanguage: Use acceptsLanguages instead',
    ]);
  });

  it('prints once per call site', () => {
    const req = fakeRequest({ headers: { host: 'a.com' } });
    const lines = captureStderr(() => {
      for (let i = 0; i < 3; i++) void req.host;
    });
    assert.equal(lines.length, 1);
  });
});
