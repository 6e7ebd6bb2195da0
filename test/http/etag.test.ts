/** Body entity tags, differential against the `etag` package Express 4 uses. */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, it } from 'node:test';
import * as ours from '../../src/http/etag';
const theirs: (entity: string | Buffer, options?: { weak?: boolean }) => string = require('etag');

const bodies: Array<string | Buffer> = [
  '',
  'hello',
  'héllo wörld ☃',
  'x'.repeat(70_000),
  Buffer.alloc(0),
  Buffer.from([0, 255, 128, 7]),
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

  it('tags the same on Node lines without the one-shot crypto.hash (before 20.12)', () => {
    // Loads a fresh copy of the module while crypto.hash is absent, as on Node 20.0 to 20.11.
    const path = require.resolve('../../src/http/etag');
    const descriptor = Object.getOwnPropertyDescriptor(crypto, 'hash');
    assert.ok(descriptor, 'this Node line has crypto.hash');
    delete require.cache[path];
    delete (crypto as { hash?: unknown }).hash;
    let fallback: typeof ours;
    try {
      fallback = require(path);
    } finally {
      Object.defineProperty(crypto, 'hash', descriptor);
      delete require.cache[path];
    }
    assert.notEqual(fallback, ours);
    assertSameTags(fallback);
  });
});
