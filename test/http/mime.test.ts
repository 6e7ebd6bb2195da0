import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { charsetOf, contentType, lookupType, lookupType3 } from '../../src/http/mime';

// mime 1.6 (installed with express@4, used by send and res.type) is the oracle: Express 4 looks types up there.
const mime1 = require('mime') as {
  lookup(path: string, fallback?: string): string;
  types: Record<string, string>;
  charsets: { lookup(type: string, fallback?: string): string | undefined };
};
const mimeTypes = require('mime-types') as { types: Record<string, string> };

describe('lookupType', () => {
  it('finds the type of an extension, a dotted extension or a path', () => {
    assert.equal(lookupType('html'), 'text/html');
    assert.equal(lookupType('.json'), 'application/json');
    assert.equal(lookupType('/a/b/c.PNG'), 'image/png');
    assert.equal(lookupType('C:\\dir\\file.css'), 'text/css');
    assert.equal(lookupType('archive.tar.gz'), 'application/gzip');
  });

  it('is false for unknown extensions and bad input', () => {
    assert.equal(lookupType('file.unknownext'), false);
    assert.equal(lookupType(''), false);
    assert.equal(lookupType('a.'), false);
    assert.equal(lookupType(undefined as unknown as string), false);
    assert.equal(lookupType('constructor'), false);
    assert.equal(lookupType('__proto__'), false);
  });

  it('answers as Express 4 (mime 1.6) where mime-db has moved on', () => {
    assert.equal(lookupType('favicon.ico'), 'image/x-icon');
    assert.equal(lookupType('sound.wav'), 'audio/wav');
    assert.equal(lookupType('image.avif'), false);
    assert.equal(lookupType('lib.cjs'), false);
  });

  it('agrees with mime 1.6 on every extension of both databases', () => {
    const extensions = new Set([...Object.keys(mimeTypes.types), ...Object.keys(mime1.types)]);
    assert.ok(extensions.size > 1000);
    for (const ext of extensions) {
      assert.equal(lookupType(ext), mime1.lookup(ext, 'FALLBACK') === 'FALLBACK' ? false : mime1.lookup(ext), ext);
      assert.equal(lookupType('dir/file.' + ext.toUpperCase()), lookupType(ext), ext);
    }
  });
});

describe('names with a line terminator', () => {
  // mime 1.3.4 (Express 3.21) is the other oracle: its expression lacks mime 1.6's `^`.
  const mime134 = require('express3/node_modules/mime') as { lookup(path: string, fallback?: string): string };
  const asLookup = (type: string) => (type === 'FALLBACK' ? false : type);

  it('cut the name where mime 1.6 and 1.3.4 do: what follows keeps the line break, of no known type', () => {
    const parts = ['', 'a', 'b.', '.html', 'dir/', 'x\\', 'page.HTML', 'txt'];
    const breaks = ['\n', '\r', '\r\n', '\u2028', '\u2029'];
    let compared = 0;
    for (const head of parts)
      for (const line of breaks)
        for (const middle of parts)
          for (const second of [...breaks, ''])
            for (const tail of parts) {
              const name = head + line + middle + second + tail;
              assert.equal(lookupType(name), asLookup(mime1.lookup(name, 'FALLBACK')), JSON.stringify(name));
              assert.equal(lookupType3(name), asLookup(mime134.lookup(name, 'FALLBACK')), JSON.stringify(name));
              compared++;
            }
    assert.ok(compared > 2000);
    assert.equal(lookupType('evil\r.html'), false);
    assert.equal(lookupType3('a\rb.html'), false);
  });
});

describe('charsetOf', () => {
  it('is UTF-8 for text, JavaScript and JSON types, as Express 4 says', () => {
    for (const type of [
      'text/html',
      'text/plain',
      'application/javascript',
      'application/json',
      'application/json-patch+json',
      'image/png',
      'application/xml',
      '',
    ]) {
      assert.equal(charsetOf(type), mime1.charsets.lookup(type) ?? false, type);
    }
  });
});

describe('contentType', () => {
  it('adds the charset to text types and leaves others alone', () => {
    assert.equal(contentType('html'), 'text/html; charset=utf-8');
    assert.equal(contentType('json'), 'application/json; charset=utf-8');
    assert.equal(contentType('text/plain'), 'text/plain; charset=utf-8');
    assert.equal(contentType('png'), 'image/png');
    assert.equal(contentType('application/octet-stream'), 'application/octet-stream');
  });

  it('keeps an explicit charset', () => {
    assert.equal(contentType('text/html; charset=iso-8859-1'), 'text/html; charset=iso-8859-1');
    assert.equal(contentType('text/html;charset=latin1'), 'text/html;charset=latin1');
  });

  it('is false for unknown extensions and bad input', () => {
    assert.equal(contentType('nope-no-such'), false);
    assert.equal(contentType(''), false);
    assert.equal(contentType(null as unknown as string), false);
  });
});
