/**
 * A 3.x app built from the bundled middleware as 3.x apps were (bodyParser with
 * uploads, directory, static, methodOverride, cookieParser, errorHandler), run on
 * express@3.21.2 and on webapp/v3 with the same requests.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { assertSameResponses, type RequestSpec } from '../support/differential';
import { express3Pair as pair } from '../support/legacy-oracles';
import webapp3 = require('../../src/v3/index');

type Any = any;

let root: string;
let uploads: string;

before(() => {
  root = mkdtempSync(join(tmpdir(), 'webapp-v3-app-'));
  uploads = join(root, 'uploads');
  mkdirSync(uploads);
  mkdirSync(join(root, 'public/docs'), { recursive: true });
  writeFileSync(join(root, 'public/hello.txt'), 'hello from static\n');
  writeFileSync(join(root, 'public/docs/a & b.txt'), 'a and b');
  writeFileSync(join(root, 'public/docs/notes.md'), '# notes');
});
after(() => rmSync(root, { recursive: true, force: true }));

/** What a handler may show of an uploaded file: everything but the random temp path. */
function describeFile(file: Any) {
  return {
    fieldName: file.fieldName,
    originalFilename: file.originalFilename,
    name: file.name,
    type: file.type,
    size: file.size,
    hash: file.hash,
    inUploads: file.path.startsWith(uploads),
  };
}

function legacyApp(express: Any) {
  const app = express();
  app.set('env', 'production');
  app.use(express.bodyParser({ uploadDir: uploads, hash: 'sha1' }));
  app.use(express.methodOverride());
  app.use(express.cookieParser('s3cret'));
  app.use('/files', express.directory(join(root, 'public')));
  app.use('/files', express.static(join(root, 'public')));
  app.use(app.router);
  app.use(express.errorHandler());
  app.post('/form', (req: Any, res: Any) => {
    const files: Record<string, unknown> = {};
    // Sorted: 3.x lists files (and files of one name) in the order their writes finished, which varies.
    for (const [key, value] of Object.entries(req.files || {}).sort(([a], [b]) => a.localeCompare(b)))
      files[key] = Array.isArray(value)
        ? value.map(describeFile).sort((a, b) => a.originalFilename.localeCompare(b.originalFilename))
        : describeFile(value);
    // 3.x leaves req.files undefined after a JSON or urlencoded body; webapp gives {} (tested below).
    res.json({ body: req.body, files });
  });
  app.put('/item', (req: Any, res: Any) => res.json({ method: req.method, body: req.body }));
  app.get('/cookies', (req: Any, res: Any) => res.json({ cookies: req.cookies, signed: req.signedCookies }));
  return app;
}

function multipartBody(
  boundary: string,
  parts: Array<{ name: string; value?: string; filename?: string; type?: string; content?: string }>,
): string {
  let body = '';
  for (const part of parts) {
    body += `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined)
      body += `; filename="${part.filename}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}`;
    body += `\r\n\r\n${part.filename !== undefined ? part.content : part.value}\r\n`;
  }
  return body + `--${boundary}--\r\n`;
}

function errorMessage(body: string): string {
  try {
    return String(JSON.parse(body).error.message);
  } catch {
    return '(html)';
  }
}

const boundary = 'legacyboundary';
const form = (body: string): RequestSpec => ({
  method: 'POST',
  path: '/form',
  headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  body,
});

describe('a bundled-middleware 3.x app on webapp/v3', () => {
  it('answers as express@3.21.2: uploads, forms, JSON, method override, cookies, listings, static files', async () => {
    await assertSameResponses(
      legacyApp,
      [
        form(
          multipartBody(boundary, [
            { name: 'user[name]', value: 'tobi' },
            { name: 'user[tags]', value: 'a' },
            { name: 'user[tags]', value: 'b' },
            { name: 'avatar', filename: 'me.png', type: 'image/png', content: 'PNGDATA' },
            { name: 'docs', filename: 'a.txt', type: 'text/plain', content: 'first' },
            { name: 'docs', filename: 'b.txt', type: 'text/plain', content: 'second' },
          ]),
        ),
        form(multipartBody(boundary, [{ name: 'only', value: 'field' }])),
        { method: 'POST', path: '/form', headers: { 'content-type': 'application/json' }, body: '{"a":{"b":[1,2]}}' },
        {
          method: 'POST',
          path: '/form',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'a[b]=1&a[c]=2',
        },
        { method: 'POST', path: '/form', headers: { 'content-type': 'application/json' }, body: '{"broken' },
        {
          method: 'POST',
          path: '/item',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: '_method=put&x=1',
        },
        { method: 'POST', path: '/item', headers: { 'x-http-method-override': 'PUT' } },
        { path: '/cookies', headers: { cookie: 'plain=1; j=j%3A%5B1%2C2%5D' } },
        { path: '/files/', headers: { accept: 'application/json' } },
        { path: '/files/docs/', headers: { accept: 'text/plain' } },
        { path: '/files/hello.txt' },
        { path: '/files/missing.txt' },
        { path: '/files/../../etc/passwd', headers: { accept: 'application/json' } },
      ],
      pair,
      (res) =>
        // Error pages differ by design (webapp's own template, its stack frames); their
        // status, type and JSON message must not.
        res.status >= 400
          ? { ...res, headers: { 'content-type': res.headers['content-type'] }, body: errorMessage(res.body) }
          : { ...res, headers: { ...res.headers, etag: undefined, 'last-modified': undefined } },
    );
  });

  it('leaves no temp files once requests with uploads fail', async () => {
    const before = readdirSync(uploads).length;
    await assertSameResponses(
      legacyApp,
      [form(`--${boundary}\r\nContent-Disposition: form-data; name="f"; filename="x.bin"\r\n\r\npartial`)],
      pair,
      (res) => ({ ...res, headers: { 'content-type': res.headers['content-type'] }, body: '' }),
    );
    // The successful uploads of the first test stay (as in 3.x, the app owns them); failed ones do not.
    assert.equal(readdirSync(uploads).length, before);
  });

  it('gives req.body and req.files as {} whatever the body (3.x left req.files undefined)', async () => {
    const app: Any = webapp3();
    app.use(webapp3.bodyParser({ uploadDir: uploads }));
    app.use((req: Any, res: Any) => res.json({ body: req.body, files: req.files }));
    await request(app).get('/').expect(200, { body: {}, files: {} });
    await request(app)
      .post('/')
      .send({ a: 1 })
      .expect(200, { body: { a: 1 }, files: {} });
    await request(app)
      .post('/')
      .type('form')
      .send('a=1')
      .expect(200, { body: { a: '1' }, files: {} });
  });
});
