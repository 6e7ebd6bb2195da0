'use strict';
// Password hashing with node:crypto's scrypt: memory-hard, built in, no native addon.
// Stored as `scrypt$N$r$p$salt$hash` so the cost can be raised later without breaking
// existing hashes.
const { scrypt, randomBytes, timingSafeEqual } = require('node:crypto');

const cost = { N: 16384, r: 8, p: 1 };
const keyLength = 32;

function derive(password, salt, { N, r, p }) {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, { N, r, p, maxmem: 64 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

async function hashPassword(password) {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** True when `password` matches `stored`; a malformed hash never matches. */
async function verifyPassword(password, stored) {
  const [scheme, N, r, p, salt, hash] = String(stored).split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), { N: Number(N), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

module.exports = { hashPassword, verifyPassword };
