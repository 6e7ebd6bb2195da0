/**
 * SHA-1 (FIPS 180-4) of a message that fits one block, in JavaScript.
 *
 * Why: an ETag is the only thing a typical first response needs from
 * `node:crypto`, and loading that module costs 5 to 8 ms and 2.4 MB of RSS on
 * Node 26 (2 ms and 1 MB on Node 20) before the first answer. Short bodies
 * ("OK", `{"ok":true}`, "Hello World") are one 64-byte block once padded, and
 * hashing one block here takes about what `crypto.hash` takes for it, call
 * included; longer messages are left to `node:crypto`.
 */
import { Buffer } from 'node:buffer';

/** The longest message that is one block once padded: 64 bytes less the 0x80 marker and the 8-byte length. */
export const ONE_BLOCK_MAX_BYTES = 55;

// The block, its message schedule and the digest, reused: hashing is synchronous, so no two calls overlap.
const block = Buffer.alloc(64);
const blockWords = new DataView(block.buffer, block.byteOffset, 64);
const schedule = new Int32Array(80);
const digest = Buffer.alloc(20);
const digestWords = new DataView(digest.buffer, digest.byteOffset, 20);

/**
 * The first 27 base64 characters of the SHA-1 of `message` (all of the digest's
 * 160 bits; the 28th character would be the `=` pad), as an ETag writes it.
 * `byteLength` is the message's length in bytes (UTF-8 for a string), at most
 * ONE_BLOCK_MAX_BYTES.
 */
export function sha1OneBlockBase64(message: string | Uint8Array, byteLength: number): string {
  block.fill(0);
  if (typeof message === 'string') block.write(message, 0, 'utf8');
  else block.set(message);
  block[byteLength] = 0x80;
  blockWords.setUint32(60, byteLength * 8);

  const w = schedule;
  for (let t = 0; t < 16; t++) w[t] = blockWords.getInt32(t * 4);
  for (let t = 16; t < 80; t++) w[t] = rotateLeft(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);

  let a = 0x67452301;
  let b = 0xefcdab89 | 0;
  let c = 0x98badcfe | 0;
  let d = 0x10325476;
  let e = 0xc3d2e1f0 | 0;
  let t = 0;
  // The four rounds differ only in their function and constant: four loops keep each one branch-free.
  for (; t < 20; t++) {
    const next = (rotateLeft(a, 5) + ((b & c) | (~b & d)) + e + 0x5a827999 + w[t]) | 0;
    e = d;
    d = c;
    c = rotateLeft(b, 30);
    b = a;
    a = next;
  }
  for (; t < 40; t++) {
    const next = (rotateLeft(a, 5) + (b ^ c ^ d) + e + 0x6ed9eba1 + w[t]) | 0;
    e = d;
    d = c;
    c = rotateLeft(b, 30);
    b = a;
    a = next;
  }
  for (; t < 60; t++) {
    const next = (rotateLeft(a, 5) + ((b & c) | (b & d) | (c & d)) + e + (0x8f1bbcdc | 0) + w[t]) | 0;
    e = d;
    d = c;
    c = rotateLeft(b, 30);
    b = a;
    a = next;
  }
  for (; t < 80; t++) {
    const next = (rotateLeft(a, 5) + (b ^ c ^ d) + e + (0xca62c1d6 | 0) + w[t]) | 0;
    e = d;
    d = c;
    c = rotateLeft(b, 30);
    b = a;
    a = next;
  }
  digestWords.setInt32(0, (0x67452301 + a) | 0);
  digestWords.setInt32(4, (0xefcdab89 + b) | 0);
  digestWords.setInt32(8, (0x98badcfe + c) | 0);
  digestWords.setInt32(12, (0x10325476 + d) | 0);
  digestWords.setInt32(16, (0xc3d2e1f0 + e) | 0);
  return digest.toString('base64', 0, 20).substring(0, 27);
}

function rotateLeft(word: number, bits: number): number {
  return (word << bits) | (word >>> (32 - bits));
}
