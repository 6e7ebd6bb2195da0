/**
 * File names with a line break in them (`evil\r.html`, `new\nline.txt`), as an upload
 * stored under its original name gives: Express looks their type up with `mime` 1.x,
 * whose expression stops at a line terminator, and serves them as
 * `application/octet-stream`. Read as a whole name they would be served as HTML or
 * text from the app's own origin. Differential against express@4 and express@3.21 for
 * the static middleware, `res.sendFile`/`sendfile`, `res.download`, `res.type` and the
 * `mime` object, with every line terminator JavaScript's `.` stops at.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertSameResponses, type Framework, type RequestSpec } from '../support/differential';
import { express3Pair } from '../support/legacy-oracles';

type Any = any;

/** Names whose last line ends in a known extension, and one whose first line does. */
const NAMES = [
  'new\nline.txt',
  'evil\r.html',
  'page\u2028.html',
  'page\u2029.html',
  'a.b\n.html',
  'first.html\nsecond',
  'two\r\nlines.css',
  'plain.html',
];

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'webapp-line-names-'));
  // A fixed date: Last-Modified and ETag are the same in every run (recorded answers replay on other lines).
  const modified = new Date('2025-01-02T03:04:05Z');
  for (const name of NAMES) {
    writeFileSync(join(root, name), '<script>alert(1)</script>');
    utimesSync(join(root, name), modified, modified);
  }
});
after(() => rmSync(root, { recursive: true, force: true }));

const encoded = (name: string) => encodeURIComponent(name);

/** The same requests for every name: static, sendFile, download, and `res.type` of the name. */
function requests(): RequestSpec[] {
  return NAMES.flatMap((name) => [
    { path: '/static/' + encoded(name) },
    { path: '/file/' + encoded(name) },
    { path: '/download/' + encoded(name) },
    { path: '/type/' + encoded(name) },
    { path: '/lookup/' + encoded(name) },
  ]);
}

describe('file names with a line terminator', () => {
  it('are served with the type Express 4 gives them (none known: application/octet-stream)', async () => {
    const answers = await assertSameResponses((framework: Framework) => {
      const app = framework();
      app.use('/static', framework.static(root));
      app.get('/file/:name', (req, res) => res.sendFile(req.params.name, { root }));
      app.get('/download/:name', (req, res) => res.download(join(root, req.params.name)));
      app.get('/type/:name', (req, res) => res.type(req.params.name).send('typed'));
      app.get('/lookup/:name', (req, res) => res.send(String((framework.static as Any).mime.lookup(req.params.name))));
      return app;
    }, requests());
    // What the oracle answered, named: a file with a line break in its name is never
    // served as a type a browser renders, and `mime.lookup` knows no type for it.
    const kinds = ['static', 'file', 'download', 'type', 'lookup'];
    NAMES.forEach((name, n) => {
      const answer = (kind: string) => answers[n * kinds.length + kinds.indexOf(kind)];
      const broken = /[\n\r\u2028\u2029]/.test(name);
      for (const kind of ['static', 'file', 'download']) {
        const type = String(answer(kind).headers['content-type']);
        assert.equal(type.startsWith('application/octet-stream'), broken, `${kind} ${JSON.stringify(name)}: ${type}`);
      }
      assert.equal(answer('lookup').body === 'application/octet-stream', broken, JSON.stringify(name));
    });
  });

  it('are served with the type Express 3.21 gives them, through webapp/v3', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.use('/static', framework.static(root));
        app.get('/file/:name', (req: Any, res: Any) => res.sendfile(req.params.name, { root }));
        app.get('/download/:name', (req: Any, res: Any) => res.download(join(root, req.params.name)));
        app.get('/type/:name', (req: Any, res: Any) => res.type(req.params.name).send('typed'));
        app.get('/lookup/:name', (req: Any, res: Any) => res.send(String(framework.mime.lookup(req.params.name))));
        return app;
      },
      requests(),
      express3Pair,
    );
  });
});
