/**
 * basicAuth against Connect 2.30 (basic-auth-connect 1.0) over generated, mostly
 * malformed Authorization headers: other schemes and cases, missing or extra
 * spaces, bad base64, no colon, empty parts, colons in the password, UTF-8 and
 * latin1 credentials, long values; fixed credentials, sync and async checkers,
 * realms.
 */
import { describe } from 'node:test';
import { basicAuth } from '../../src/middleware/basic-auth';
import { echo, type Handler } from './support';
import {
  assertSameGenerated,
  between,
  chance,
  HEADER_TEXT,
  pick,
  prng,
  repeat,
  type Random,
} from './generated-support';
import { itWithLiveOracle } from '../support/oracle-recording';

const connect = require('connect');

const LIVE = 'generated Authorization headers';

const show = echo((req) => ({ user: req.user ?? null, remote: req.remoteUser ?? null }));

/** Errors as their name, message, status and own keys: what errorHandler would show. */
const describeError: Handler = (err: any, _req: any, res: any, _next: any) => {
  res.statusCode = typeof err.status === 'number' ? err.status : 500;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ name: err.name, message: err.message, own: Object.keys(err) }));
};

const USERS = [
  'tj',
  'TJ',
  '',
  'tj ',
  ' tj',
  'a:b',
  'caf\u00e9',
  '\u2603',
  '\u00e9',
  'x'.repeat(200),
  'boom',
  '__proto__',
];
const PASSWORDS = ['tobi', 'Tobi', '', 'to:bi', ':', 'tobi:', ' tobi', '\u00e9', '\ud83d\ude00', 'p'.repeat(500)];

function base64(random: Random, text: string): string {
  const encoding = pick(random, ['utf8', 'utf8', 'latin1'] as const);
  let out = Buffer.from(text, encoding).toString('base64');
  const roll = random();
  if (roll < 0.1) out = out.replace(/=+$/, '');
  else if (roll < 0.15) out = out.replace(/\+/g, '-').replace(/\//g, '_');
  else if (roll < 0.2) out = out + '=';
  else if (roll < 0.25) out = out.slice(0, Math.max(0, out.length - between(random, 1, 3)));
  else if (roll < 0.3) out = '=' + out;
  else if (roll < 0.33) out = out.slice(0, 2) + '!' + out.slice(2);
  return out;
}

function credentials(random: Random): string {
  const roll = random();
  if (roll < 0.55) return base64(random, pick(random, USERS) + ':' + pick(random, PASSWORDS));
  if (roll < 0.65) return base64(random, pick(random, USERS));
  if (roll < 0.75) return base64(random, pick(random, HEADER_TEXT));
  if (roll < 0.85) return pick(random, HEADER_TEXT);
  if (roll < 0.9) return repeat(between(random, 1, 3000), () => pick(random, ['A', 'b', '6', '+', '/', '=']));
  return pick(random, ['!!!', '====', 'dGo6dG9iaQ', 'dGo6dG9iaQ==', 'dGo6dG9iaQ===', '%64%47', '\u00e9\u00e9']);
}

function authorization(random: Random): string | undefined {
  if (chance(random, 0.05)) return undefined;
  const scheme = pick(random, ['Basic', 'Basic', 'Basic', 'basic', 'BASIC', 'Bearer', 'Digest', '', 'Basic:', 'B']);
  const separator = pick(random, [' ', ' ', ' ', '', '  ', '\t', ' \t']);
  let value = scheme + separator + credentials(random);
  if (chance(random, 0.08)) value += pick(random, [' ', ' x', '  ', ' Basic', '\t']);
  if (chance(random, 0.04)) value = ' ' + value;
  return value;
}

interface Case {
  authorization: string | undefined;
  presetUser: boolean;
}

function cases(seed: number, count: number): Case[] {
  const random = prng(seed);
  return Array.from({ length: count }, () => ({
    authorization: authorization(random),
    presetUser: chance(random, 0.03),
  }));
}

const preset: Handler = (req, _res, next) => {
  if (req.headers['x-preset-user']) req.user = 'already';
  next();
};

const request = (item: Case) => ({
  path: '/',
  headers: {
    ...(item.authorization === undefined ? {} : { authorization: item.authorization }),
    ...(item.presetUser ? { 'x-preset-user': '1' } : {}),
  },
});

/** Sync and async checkers that look at what they are given, the same on both sides. */
const syncCheck = (user: string, pass: string) => user === 'tj' && pass.startsWith('to');
const truthySync = (user: string, pass: string) => (user.length + pass.length) % 3;
const asyncCheck = (user: string, pass: string, done: (err: unknown, user?: unknown) => void) => {
  if (user === 'boom') return done(new Error('db down'));
  // Synchronous and deferred answers both.
  const answer = () => done(null, pass === 'tobi' ? { name: user, pass } : pass === ':' ? 'colon' : null);
  if (user.length % 2) answer();
  else setImmediate(answer);
};

const setups: Array<{ name: string; make: (basic: any) => Handler }> = [
  { name: 'fixed credentials', make: (basic) => basic('tj', 'tobi') },
  { name: 'fixed credentials with a realm', make: (basic) => basic('tj', 'to:bi', 'Admin "area"') },
  { name: 'empty fixed credentials', make: (basic) => basic('', '', '') },
  { name: 'sync checker', make: (basic) => basic(syncCheck) },
  { name: 'sync checker answering numbers, realm', make: (basic) => basic(truthySync, 'Zone \u00e9') },
  { name: 'async checker', make: (basic) => basic(asyncCheck, 'Async') },
];

describe('basicAuth: generated Authorization headers against Connect 2.30', () => {
  for (const [index, setup] of setups.entries()) {
    itWithLiveOracle(setup.name, LIVE, async () => {
      await assertSameGenerated(
        (side) => [preset, setup.make(side === 'connect' ? connect.basicAuth : basicAuth), show, describeError],
        cases(0xba51c + index, 700),
        { request },
      );
    });
  }
});
