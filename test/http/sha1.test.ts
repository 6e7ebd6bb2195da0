/**
 * The one-block SHA-1 that ETags of short bodies use instead of node:crypto,
 * checked against node:crypto on every length it takes, for strings (UTF-8 of
 * every width, lone surrogates) and bytes.
 */
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import crypto from 'node:crypto';
import { describe, it } from 'node:test';
import { ONE_BLOCK_MAX_BYTES, sha1OneBlockBase64 } from '../../src/http/sha1';
import { pick, prng, type Random } from '../support/prng';

const expected = (message: string | Buffer): string =>
  crypto.createHash('sha1').update(message).digest('base64').substring(0, 27);

/** Characters of one to four UTF-8 bytes, and lone surrogates (which UTF-8 writes as U+FFFD). */
const ENCODED_CHARACTERS = ['a', 'Z', '0', ' ', '"', '\u0000', '\u007f', 'é', 'ß', '\u07ff', '€', '☃', '\uffff', '😀'];
const CHARACTERS = [...ENCODED_CHARACTERS, '\ud800', '\udfff'];

function randomString(random: Random, maxBytes: number): string {
  let text = '';
  for (;;) {
    const next = text + pick(random, CHARACTERS);
    if (Buffer.byteLength(next) > maxBytes || random() < 0.05) return text;
    text = next;
  }
}

describe('sha1OneBlockBase64', () => {
  it('gives the FIPS 180 digest of "abc" and of the empty message', () => {
    assert.equal(sha1OneBlockBase64('abc', 3), 'qZk+NkcGgWq6PiVxeFDCbJzQ2J0');
    assert.equal(sha1OneBlockBase64('', 0), '2jmj7l5rSw0yVb/vlWAYkK/YBwk');
  });

  it('agrees with node:crypto for bytes of every length up to one block', () => {
    const random = prng(0x5a1);
    assert.equal(ONE_BLOCK_MAX_BYTES, 55);
    for (let length = 0; length <= ONE_BLOCK_MAX_BYTES; length++) {
      for (let round = 0; round < 20; round++) {
        const bytes = Buffer.alloc(length);
        for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
        assert.equal(sha1OneBlockBase64(bytes, length), expected(bytes), bytes.toString('hex'));
      }
      const full = Buffer.alloc(length, 0xff);
      assert.equal(sha1OneBlockBase64(full, length), expected(full), `${length} bytes of 0xff`);
    }
  });

  it('agrees with node:crypto for strings of every width, hashed as UTF-8', () => {
    const random = prng(0x5a2);
    for (let round = 0; round < 3000; round++) {
      const text = randomString(random, ONE_BLOCK_MAX_BYTES);
      assert.equal(sha1OneBlockBase64(text, Buffer.byteLength(text)), expected(text), JSON.stringify(text));
    }
    const longest = 'x'.repeat(ONE_BLOCK_MAX_BYTES);
    assert.equal(sha1OneBlockBase64(longest, ONE_BLOCK_MAX_BYTES), expected(longest));
  });

  it('leaves nothing of a longer message behind for the next one', () => {
    // The block is reused: a short message after a long one must not hash the long one's tail.
    assert.equal(sha1OneBlockBase64('y'.repeat(55), 55), expected('y'.repeat(55)));
    assert.equal(sha1OneBlockBase64('y', 1), expected('y'));
    assert.equal(sha1OneBlockBase64(Buffer.alloc(40, 7), 40), expected(Buffer.alloc(40, 7)));
    assert.equal(sha1OneBlockBase64(Buffer.alloc(3, 7), 3), expected(Buffer.alloc(3, 7)));
  });
});
