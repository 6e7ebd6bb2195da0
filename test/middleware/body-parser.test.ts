import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { bodyParser } from '../../src/middleware/body-parser';
import { captureStderr, deprecationMessages } from '../support/capture-stderr';
import { assertSameAsConnect, echo, requestAll, type Handler, type RawResponse, type RequestSpec } from './support';
import { oracleRunValue } from '../support/oracle-recording';

const connect = require('connect');

const BOUNDARY = 'webappBodyParserBoundary';

function multipartBody(parts: Array<{ name: string; value: string; filename?: string; type?: string }>): string {
  let body = '';
  for (const part of parts) {
    body += `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) body += `; filename="${part.filename}"`;
    body += '\r\n';
    if (part.type) body += `Content-Type: ${part.type}\r\n`;
    body += '\r\n' + part.value + '\r\n';
  }
  return body + `--${BOUNDARY}--\r\n`;
}

const post = (body: string, type: string): RequestSpec => ({
  method: 'POST',
  path: '/',
  headers: { 'content-type': type },
  body,
});
const form = (parts: Parameters<typeof multipartBody>[0]) =>
  post(multipartBody(parts), 'multipart/form-data; boundary=' + BOUNDARY);

/**
 * req.body, and req.files with each file reduced to what both servers agree on
 * (a missing req.files, as Connect leaves it after JSON, shows as {}).
 */
const show = echo((req) => {
  const files: Record<string, unknown> = {};
  for (const key of Object.keys(req.files || {}).sort()) {
    const file = req.files[key];
    files[key] = {
      name: file.name,
      type: file.type,
      size: file.size,
      content: fs.readFileSync(file.path, 'utf8'),
      dir: path.dirname(file.path),
    };
  }
  return { body: req.body, files };
});

function quietly<T>(fn: () => T): T {
  let value: T;
  captureStderr(() => {
    value = fn();
  });
  return value!;
}

const ours = (options?: Parameters<typeof bodyParser>[0]): Handler => quietly(() => bodyParser(options));
// Connect's multiparty needs an uploadDir on current Node (its default calls the removed os.tmpDir()).
const theirs = (options: Record<string, unknown>): Handler => quietly(() => connect.bodyParser(options));

function json(res: RawResponse): any {
  assert.equal(res.status, 200, res.body);
  return JSON.parse(res.body);
}

async function withUploadDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  // The upload dir shows in the answers: a run value, so recorded oracle answers replay with this run's.
  const dir = oracleRunValue('upload dir', fs.mkdtempSync(path.join(os.tmpdir(), 'webapp-body-parser-')));
  try {
    return await fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('bodyParser (3.x)', () => {
  it('has arity 1 and returns a 3-argument middleware', () => {
    assert.equal(bodyParser.length, 1);
    assert.equal(ours().length, 3);
  });

  it('prints the multipart deprecation notice when created, as Connect 2.30 does', () => {
    const lines = captureStderr(() => bodyParser());
    assert.deepEqual(deprecationMessages(lines), [
      'multipart: use parser (multiparty, busboy, formidable) npm module instead',
    ]);
    assert.match(lines[0], /body-parser\.test\.ts:\d+:\d+\n$/, 'the notice points at the caller');
  });

  it('parses JSON, urlencoded (extended) and multipart bodies', () =>
    withUploadDir(async (dir) => {
      const [fromJson, fromForm, fromMultipart] = await requestAll(
        [ours({ uploadDir: dir }), show],
        [
          post('{"user":{"name":"tj"}}', 'application/json'),
          post('user[name]=tj&tags[]=a&tags[]=b', 'application/x-www-form-urlencoded'),
          form([
            { name: 'user[name]', value: 'tj' },
            { name: 'avatar', value: 'png bytes', filename: 'me.png', type: 'image/png' },
          ]),
        ],
      );
      assert.deepEqual(json(fromJson), { body: { user: { name: 'tj' } }, files: {} });
      assert.deepEqual(json(fromForm), { body: { user: { name: 'tj' }, tags: ['a', 'b'] }, files: {} });
      assert.deepEqual(json(fromMultipart), {
        body: { user: { name: 'tj' } },
        files: { avatar: { name: 'me.png', type: 'image/png', size: 9, content: 'png bytes', dir } },
      });
    }));

  it('req.body and req.files default to {} for any other request', async () => {
    const responses = await requestAll(
      [ours(), show],
      [
        { method: 'GET', path: '/' },
        post('plain text', 'text/plain'),
        { method: 'DELETE', path: '/', headers: { 'content-type': 'application/json' } },
      ],
    );
    for (const res of responses) assert.deepEqual(json(res), { body: {}, files: {} });
  });

  it('passes the same options to every parser: limit applies to JSON, forms and multipart', async () => {
    const big = 'x'.repeat(2000);
    const responses = await requestAll(
      [ours({ limit: '1kb' }), show],
      [
        post(JSON.stringify({ big }), 'application/json'),
        post('big=' + big, 'application/x-www-form-urlencoded'),
        form([{ name: 'big', value: big }]),
      ],
    );
    assert.deepEqual(
      responses.map((res) => res.status),
      [413, 413, 413],
    );
  });

  it('400 for a malformed JSON or multipart body; the next request is served', async () => {
    const [badJson, badMultipart, ok] = await requestAll(
      [ours(), show],
      [
        post('{nope', 'application/json'),
        post(`--${BOUNDARY}\r\nbroken`, 'multipart/form-data; boundary=' + BOUNDARY),
        post('{"a":1}', 'application/json'),
      ],
    );
    assert.equal(badJson.status, 400);
    assert.equal(badMultipart.status, 400);
    assert.deepEqual(json(ok).body, { a: 1 });
  });

  it('behaves as Connect 2.30 on every kind of body', () =>
    withUploadDir(async (dir) => {
      const requests: RequestSpec[] = [
        post('{"a":[1,2,{"b":null}]}', 'application/json'),
        post('{"a":1}', 'application/vnd.api+json'),
        post('a[b][c]=1&a[d]=2&e=3&e=4', 'application/x-www-form-urlencoded'),
        form([
          { name: 'title', value: 'hello' },
          { name: 'list[]', value: 'one' },
          { name: 'list[]', value: 'two' },
          { name: 'doc', value: 'file body', filename: 'doc.txt', type: 'text/plain' },
        ]),
        post('text', 'text/plain'),
        { method: 'GET', path: '/' },
        { method: 'HEAD', path: '/' },
      ];
      await assertSameAsConnect([theirs({ uploadDir: dir }), show], [ours({ uploadDir: dir }), show], requests);
    }));

  it('req.files is {} after a JSON or urlencoded body too (Connect left it undefined)', async () => {
    const responses = await requestAll(
      [ours(), echo((req) => req.files)],
      [post('{"a":1}', 'application/json'), post('a=1', 'application/x-www-form-urlencoded')],
    );
    for (const res of responses) assert.deepEqual(json(res), {});
  });

  it('fails as Connect 2.30 does (status) on bad and oversized bodies', () =>
    withUploadDir(async (dir) => {
      const requests: RequestSpec[] = [
        post('{nope', 'application/json'),
        post('"just a string"', 'application/json'),
        post(JSON.stringify({ big: 'x'.repeat(2000) }), 'application/json'),
        post('big=' + 'x'.repeat(2000), 'application/x-www-form-urlencoded'),
        form([{ name: 'big', value: 'x'.repeat(2000) }]),
        post(`--${BOUNDARY}\r\nbroken`, 'multipart/form-data; boundary=' + BOUNDARY),
      ];
      // Error messages differ by parser (Connect's multiparty vs busboy); status codes must not.
      const statusOnly = (res: RawResponse): RawResponse => ({ status: res.status, headers: {}, body: '' });
      await assertSameAsConnect(
        [theirs({ limit: '1kb', uploadDir: dir }), show],
        [ours({ limit: '1kb', uploadDir: dir }), show],
        requests,
        statusOnly,
      );
    }));
});
