/** res.location(url): Location encoded without double-encoding; `back` is the Referer or `/`. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { encodeUrl } from '../../src/http/encode-url';
import { appWith } from './support';

describe('res.location', () => {
  const app = appWith((a) => {
    a.get('/to', (req, res) => {
      res.location(String(req.query.url)).end();
    });
    a.get('/back', (_req, res) => {
      res.location('back').end();
    });
    a.get('/chain', (_req, res) => {
      assert.equal(res.location('/x'), res);
      res.end();
    });
  });
  const to = (url: string) => request(app).get('/to?url=' + encodeURIComponent(url));

  it('encodes what a URL may not contain and keeps valid escapes', async () => {
    await to('/a b/ü?q=ä ö#f g').expect('Location', '/a%20b/%C3%BC?q=%C3%A4%20%C3%B6#f%20g');
    await to('/already%20encoded/%E2%82%AC').expect('Location', '/already%20encoded/%E2%82%AC');
    await to('/half%2').expect('Location', '/half%252');
  });

  it('does not decode or reparse the host (CVE-2024-29041)', async () => {
    await to('http://example.com\\@evil.com/').expect('Location', 'http://example.com\\@evil.com/');
    await to('http://google.com\\\\@apple.com').expect('Location', 'http://google.com\\\\@apple.com');
    await to('https://exam\u00e7ple.com/p').expect('Location', 'https://exam%C3%A7ple.com/p');
  });

  it('maps back to the Referer (either spelling) or /', async () => {
    await request(app).get('/back').set('Referer', '/prev page').expect('Location', '/prev%20page');
    await request(app).get('/back').set('Referrer', 'http://x/y').expect('Location', 'http://x/y');
    await request(app).get('/back').expect('Location', '/');
  });

  it('encodes exactly as encodeurl 2 does (generated strings)', () => {
    const reference: (url: string) => string = require('encodeurl');
    const alphabet = [
      '%',
      '2',
      'a',
      'G',
      ' ',
      '/',
      '\\',
      '?',
      '#',
      '\uD800',
      '\uDC00',
      '\u00e9',
      '\u{1F600}',
      '"',
      '<',
      '^',
      '`',
      '{',
      '|',
      '\u0000',
    ];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 20000; i++) {
      let url = '';
      for (let j = Math.floor(random() * 8); j > 0; j--) url += alphabet[Math.floor(random() * alphabet.length)];
      assert.equal(encodeUrl(url), reference(url), JSON.stringify(url));
    }
  });

  it('is chainable', async () => {
    await request(app).get('/chain').expect('Location', '/x');
  });
});
