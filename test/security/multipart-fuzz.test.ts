/**
 * One multipart request must never stop the server or leave a file behind.
 * Seeded random and malformed multipart bodies (bad boundaries, truncated and
 * unterminated parts, odd charsets and transfer encodings, hostile field and
 * file names, huge part headers, flipped bytes) go through `multipart` and
 * `bodyParser` of `webapp/middleware`. After every answer: it is not a 5xx, and
 * `uploadDir` holds no file that `req.files` did not name (the app deletes those).
 * After the run: the server still answers and file descriptors are back where
 * they started.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import webapp = require('../../src/index');
import { bodyParser } from '../../src/middleware/body-parser';
import { multipart } from '../../src/middleware/multipart';
import { captureStderr } from '../support/capture-stderr';
import { chance, pick, prng, type Random } from '../support/prng';
import { rawRequest, withServer, type RequestSpec } from '../support/raw-http';

const SEED = 0x5eed11;
/** Bodies per middleware (two thousand in all): about four seconds each on an idle machine. */
const CASES = 1000;

type Any = any;

const NAMES = [
  'a',
  'field',
  'user[name]',
  'user[pets][]',
  'photos[]',
  'list[0]',
  'list[25]',
  'x[y][z][w][v][u][t]',
  '__proto__',
  'a[__proto__][x]',
  '__proto__[x]',
  'constructor',
  'constructor[prototype][x]',
  'prototype',
  'hasOwnProperty',
  'toString',
  'a[constructor][prototype]',
  '[',
  ']',
  '[]',
  'a]',
  'a[',
  'a[b',
  '',
  ' ',
  'ünï',
  '名前',
  'a"b',
  'a\\"b',
  'a;b',
  'a%5Bb%5D',
  '%',
  'a'.repeat(300),
];
const FILENAMES = [
  'a.txt',
  '',
  '../../etc/passwd',
  'C:\\Users\\me\\secret.doc',
  '.htaccess',
  'a%22b.txt',
  '&#1234;.txt',
  'x.tar.gz',
  'noext',
  'ü.png',
  'a\\',
  'a'.repeat(400) + '.txt',
  'a."b"',
  '....',
  '.',
  '/',
];
const CHARSETS = [
  'utf-8',
  'UTF-8',
  'latin1',
  'iso-8859-1',
  'utf-16le',
  'utf-16be',
  'x-bogus',
  'utf-7',
  '',
  '"',
  '__proto__',
  'constructor',
  'shift_jis',
  'base64',
];
const ENCODINGS = ['7bit', '8bit', 'binary', 'base64', 'BASE64', 'quoted-printable', 'x-bogus', ''];
const TYPES = ['text/plain', 'application/octet-stream', 'image/png', 'application/json', 'text/html', 'bogus', ''];

function bytes(random: Random, max: number): Buffer {
  const out = Buffer.alloc(Math.floor(random() * max));
  for (let i = 0; i < out.length; i++)
    out[i] = chance(random, 0.7) ? 0x61 + Math.floor(random() * 26) : Math.floor(random() * 256);
  return out;
}

function partHead(random: Random): string {
  const lines: string[] = [];
  const dispositionType = chance(random, 0.95) ? 'form-data' : pick(random, ['attachment', 'inline', 'bogus']);
  let disposition = `Content-Disposition: ${dispositionType}`;
  if (chance(random, 0.95)) disposition += `; name="${pick(random, NAMES)}"`;
  if (chance(random, 0.4)) disposition += `; filename="${pick(random, FILENAMES)}"`;
  if (chance(random, 0.05))
    disposition += `; filename*=${pick(random, ["utf-8''%C3%BC.txt", "x-bogus''a.txt", "utf-16be''%00a", "''"])}`;
  if (chance(random, 0.05)) disposition += `; name*=${pick(random, ["utf-8''%C3%BC", "x-bogus''a"])}`;
  if (chance(random, 0.9)) lines.push(disposition);
  if (chance(random, 0.5)) {
    let type = 'Content-Type: ' + pick(random, TYPES);
    if (chance(random, 0.6)) type += '; charset=' + pick(random, CHARSETS);
    lines.push(type);
  }
  if (chance(random, 0.15)) lines.push('Content-Transfer-Encoding: ' + pick(random, ENCODINGS));
  if (chance(random, 0.05)) lines.push('X-Huge: ' + 'h'.repeat(2000 + Math.floor(random() * 40_000)));
  if (chance(random, 0.05))
    lines.push(...Array.from({ length: 50 + Math.floor(random() * 3000) }, (_, i) => `X-Many-${i}: v`));
  if (chance(random, 0.03)) lines.push('no colon here');
  if (chance(random, 0.03)) lines.push(' folded continuation');
  if (chance(random, 0.03)) lines.push(disposition);
  return lines.join('\r\n');
}

interface Case {
  label: string;
  spec: RequestSpec;
}

/** One request: a body built from random parts, then maybe broken in one of several ways. */
function generate(random: Random, index: number): Case {
  const boundary = pick(random, ['----webappFuzz' + index, 'x', 'a'.repeat(70), 'b o u n d', 'q"uote', '--', '=?']);
  const parts: Buffer[] = [];
  const count = Math.floor(random() * 6);
  if (chance(random, 0.1)) parts.push(bytes(random, 40)); // a preamble
  for (let i = 0; i < count; i++) {
    const value = chance(random, 0.2) ? Buffer.from(bytes(random, 300).toString('base64')) : bytes(random, 600);
    parts.push(Buffer.from(`--${boundary}\r\n${partHead(random)}\r\n\r\n`), value, Buffer.from('\r\n'));
  }
  if (chance(random, 0.85)) parts.push(Buffer.from(`--${boundary}--\r\n`));
  if (chance(random, 0.1)) parts.push(bytes(random, 40)); // an epilogue
  let body = Buffer.concat(parts);

  const breakage = pick(random, ['none', 'none', 'none', 'truncate', 'flip', 'lf-only', 'nested-boundary', 'empty']);
  if (breakage === 'truncate') body = body.subarray(0, Math.floor(random() * body.length));
  if (breakage === 'flip')
    for (let i = 0; i < 1 + random() * 8 && body.length > 0; i++) body[Math.floor(random() * body.length)] ^= 0xff;
  if (breakage === 'lf-only') body = Buffer.from(body.toString('latin1').replace(/\r\n/g, '\n'), 'latin1');
  if (breakage === 'nested-boundary')
    body = Buffer.concat([body, Buffer.from(`--${boundary}\r\n--${boundary}\r\n\r\n`)]);
  if (breakage === 'empty') body = Buffer.alloc(0);

  const declared = pick(random, [
    `multipart/form-data; boundary=${boundary}`,
    `multipart/form-data; boundary="${boundary}"`,
    `multipart/form-data; boundary=${boundary}; charset=${pick(random, CHARSETS)}`,
    'multipart/form-data',
    'multipart/form-data; boundary=',
    `multipart/form-data; boundary=${boundary}x`,
    `multipart/mixed; boundary=${boundary}`,
    `multipart/related; boundary=${boundary}`,
    `multipart/form-data; boundary=${'z'.repeat(200)}`,
  ]);
  const spec: RequestSpec = {
    method: pick(random, ['POST', 'POST', 'PUT', 'PATCH']),
    path: '/',
    headers: { 'content-type': declared },
    body,
  };
  return { label: `#${index} ${declared.slice(0, 60)} ${breakage} ${body.length}B`, spec };
}

/** Every uploaded file object in a (nested) `req.files`. */
function filesIn(value: unknown, out: Any[] = []): Any[] {
  if (value === null || typeof value !== 'object') return out;
  if (typeof (value as Any).path === 'string' && 'fieldName' in (value as Any)) out.push(value);
  else for (const item of Object.values(value as object)) filesIn(item, out);
  return out;
}

function openDescriptors(): number {
  return fs.readdirSync('/proc/self/fd').length;
}

/**
 * Descriptors of closed sockets and files are released as their handles close,
 * some turns of the event loop after the last answer (more on a busy machine):
 * wait for the count to come back, checking every few milliseconds, a bounded
 * number of times. A leak never comes back, however long the wait.
 */
async function settledDescriptors(target: number): Promise<number> {
  let count = openDescriptors();
  for (let check = 0; check < 1000 && count > target; check++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    count = openDescriptors();
  }
  return count;
}

let uploadDir: string;
before(() => {
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), 'webapp-multipart-fuzz-'));
});
after(() => fs.rmSync(uploadDir, { recursive: true, force: true }));

/**
 * The app a user would write: the parser, a handler that takes (and deletes) what req.files names,
 * an error handler.
 */
function appWith(parser: http.RequestListener | Any): http.RequestListener {
  const app = webapp();
  app.use(parser);
  app.use((req: Any, res: Any) => {
    const named = new Set(filesIn(req.files).map((file) => path.basename(file.path)));
    const stray = fs.readdirSync(uploadDir).filter((name) => !named.has(name));
    for (const name of named) fs.rmSync(path.join(uploadDir, name), { force: true });
    res.json({ files: named.size, stray });
  });
  app.use((err: Any, _req: Any, res: Any, _next: Any) => {
    res.status(err.status || 500).send(err.status ? String(err.message) : 'crashed: ' + String(err.stack));
  });
  return app;
}

function build<T>(make: () => T): T {
  let made: T | undefined;
  captureStderr(() => {
    made = make();
  });
  return made as T;
}

describe('security: multipart fuzzing', () => {
  const parsers: Array<[string, () => Any]> = [
    ['multipart', () => multipart({ uploadDir, maxFieldsSize: 64 * 1024, limit: '256kb' })],
    ['bodyParser', () => bodyParser({ uploadDir, hash: 'sha1', maxFields: 8 })],
  ];

  for (const [name, make] of parsers) {
    it(`${name}: ${CASES} seeded malformed bodies, no 5xx, no stray file, no leaked descriptor`, async () => {
      const random = prng(SEED + name.length);
      const descriptorsBefore = openDescriptors();
      const statuses = new Map<number, number>();
      await withServer(appWith(build(make)), async (port) => {
        for (let i = 0; i < CASES; i++) {
          const fuzz = generate(random, i);
          const res = await rawRequest(port, fuzz.spec);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          assert.ok(res.status < 500, `${fuzz.label}: ${res.status} ${res.body.slice(0, 300)}`);
          if (res.status === 200)
            assert.deepEqual(JSON.parse(res.body).stray, [], `${fuzz.label}: files not in req.files`);
          assert.deepEqual(fs.readdirSync(uploadDir), [], `${fuzz.label}: files left in uploadDir`);
        }
        // Still serving after all of it.
        const sane = await rawRequest(port, {
          method: 'POST',
          path: '/',
          headers: { 'content-type': 'multipart/form-data; boundary=ok' },
          body: '--ok\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\nhello\r\n--ok--\r\n',
        });
        assert.deepEqual(JSON.parse(sane.body), { files: 1, stray: [] });
      });
      // Both successes and client errors were exercised, not just one kind of answer.
      assert.ok((statuses.get(200) ?? 0) > CASES / 10, JSON.stringify([...statuses]));
      assert.ok((statuses.get(400) ?? 0) > CASES / 10, JSON.stringify([...statuses]));
      // Fewer is no leak: a descriptor the runner held before (on Node 22 and 24) may close meanwhile.
      const descriptorsAfter = await settledDescriptors(descriptorsBefore);
      assert.ok(
        descriptorsAfter <= descriptorsBefore,
        `${descriptorsAfter} descriptors open, ${descriptorsBefore} before`,
      );
    });
  }
});
