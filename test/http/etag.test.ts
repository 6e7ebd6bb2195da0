/** Body entity tags, differential against the `etag` package Express 4 uses. */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, it } from 'node:test';
import * as ours from '../../src/http/etag';
const theirs: (entity: string | Buffer, options?: { weak?: boolean }) => string = require('etag');

// Bodies of up to 55 bytes are hashed in JavaScript (one SHA-1 block), longer ones by node:crypto:
// both sides of that line, in characters and in UTF-8 bytes.
const bodies: Array<string | Buffer> = [
  '',
  'hello',
  'héllo wörld ☃',
  'x'.repeat(55),
  'x'.repeat(56),
  'é'.repeat(27) + 'x',
  'é'.repeat(28),
  '\ud800 lone surrogate',
  'x'.repeat(70_000),
  Buffer.alloc(0),
  Buffer.from([0, 255, 128, 7]),
  Buffer.alloc(55, 0xab),
  Buffer.alloc(56, 0xab),
  Buffer.alloc(5000, 0xab),
];

function assertSameTags(module: typeof ours): void {
  for (const body of bodies) {
    const label = `${Buffer.isBuffer(body) ? 'buffer' : 'string'} of ${body.length}`;
    assert.equal(module.entityTag(body), theirs(body), label);
    assert.equal(module.etag(body, true), theirs(body, { weak: true }), label);
    assert.equal(module.etag(body, false), theirs(body, { weak: false }), label);
  }
}

describe('etag', () => {
  it('tags bodies as the etag package does', () => {
    assertSameTags(ours);
  });

  it('tags bodies sent again as the first time: short and long, alternating, strong and weak', () => {
    // Bodies are found again by content (short ones in a map, a long one against the last
    // long body): each is made afresh, as a render makes its page, so no two are the same object.
    const page = (n: number, last: string) =>
      Array.from({ length: n }, (_, i) => `<li>item ${i} & co</li>`).join('') + last;
    const texts = [
      () => 'ok',
      () => page(2, 'short'),
      () => page(40, 'a'), // about 800 characters
      () => page(40, 'b'), // the same length, a different last character
      () => page(41, 'a'),
      () => 'é'.repeat(300),
      () => page(700, 'z'), // above the 16 KB kept
      () => page(2, 'shore'), // as long as text 1, another last character (the last short body is compared first)
      () => JSON.stringify({ hello: 'world', n: 1 }),
    ];
    const order = [0, 1, 2, 2, 3, 2, 4, 3, 3, 5, 2, 6, 6, 1, 0, 2, 1, 7, 7, 1, 8, 8, 0, 8];
    for (const weak of [false, true, false]) {
      for (const index of order) {
        const body = texts[index]();
        assert.equal(ours.etag(body, weak), theirs(body, { weak }), `text ${index} (${body.length}), weak ${weak}`);
      }
    }
  });

  it('keeps answering after many distinct short bodies fill and empty the map', () => {
    for (let i = 0; i < 300; i++) {
      const body = `status ${i}`;
      assert.equal(ours.etag(body, i % 2 === 0), theirs(body, { weak: i % 2 === 0 }));
    }
    assert.equal(ours.etag('status 1', false), theirs('status 1'));
  });

  it('tags the same on Node lines without the one-shot crypto.hash (before 20.12)', () => {
    // A fresh copy of the module tags while crypto.hash is absent, as on Node 20.0 to 20.11;
    // it looks for crypto.hash when its first long body loads node:crypto.
    const path = require.resolve('../../src/http/etag');
    const descriptor = Object.getOwnPropertyDescriptor(crypto, 'hash');
    // On such a line the module loaded above is that copy already.
    if (descriptor === undefined) return assertSameTags(ours);
    delete require.cache[path];
    delete (crypto as { hash?: unknown }).hash;
    try {
      const fallback: typeof ours = require(path);
      assert.notEqual(fallback, ours);
      assertSameTags(fallback);
    } finally {
      Object.defineProperty(crypto, 'hash', descriptor);
      delete require.cache[path];
    }
  });
});
