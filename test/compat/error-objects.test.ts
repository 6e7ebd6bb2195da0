/**
 * The error objects webapp passes to an app's error handler read as Express's
 * (http-errors 2): the same `JSON.stringify(err)`, own keys, name and class name.
 * Apps answer with `res.json(err)` or log `{ ...err }`, so these are visible.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertSameResponses, type Framework } from '../support/differential';

type Any = any;

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'webapp-errors-'));
  writeFileSync(join(root, 'file.txt'), 'file');
});
after(() => rmSync(root, { recursive: true, force: true }));

/** What an app sees of an error: its JSON, own keys, names and the fields Express reads. */
const showError = (err: Any, _req: Any, res: Any, _next: Any) => {
  res.status(typeof err.status === 'number' ? err.status : 500).json({
    json: JSON.parse(JSON.stringify(err)),
    own: Object.keys(err),
    name: err.name,
    className: err.constructor.name,
    fields: [err.status, err.statusCode, err.expose, err.type],
    isError: err instanceof Error,
  });
};

function define(framework: Framework) {
  const app: Any = framework();
  app.post('/json', framework.json({ limit: 10 }));
  app.post('/text', framework.text({ type: '*/*' }));
  app.post('/form', framework.urlencoded({ extended: true, parameterLimit: 2 }));
  app.post('/raw', framework.raw({ inflate: false }));
  app.get('/file/:name', (req: Any, res: Any, next: Any) => res.sendFile(req.params.name, { root }, next));
  app.use('/static', framework.static(root, { fallthrough: false }));
  app.use(showError);
  return app;
}

const post = (path: string, type: string, body: string, headers: Record<string, string> = {}) => ({
  method: 'POST',
  path,
  body,
  headers: { 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), ...headers },
});

describe('error objects compared with express@4', () => {
  it('body parsers, res.sendFile and static: the same JSON, keys and names', async () => {
    const answers = await assertSameResponses(define, [
      post('/json', 'application/json', '{"a":"long enough"}'),
      post('/json', 'application/json', '{bad'),
      post('/json', 'application/json; charset=latin1', '{}'),
      post('/json', 'application/json', '{}', { 'Content-Encoding': 'compress' }),
      post('/text', 'text/plain; charset=bogus', 'x'),
      post('/form', 'application/x-www-form-urlencoded', 'a=1&b=2&c=3'),
      post('/raw', 'application/octet-stream', 'x', { 'Content-Encoding': 'gzip' }),
      { path: '/file/missing.txt' },
      { path: '/file/..%2Fescape' },
      { path: '/static/missing.txt' },
      { path: '/static/%2e%2e/x' },
    ]);
    const tooLarge = JSON.parse(answers[0].body);
    assert.deepEqual(tooLarge.json, {
      message: 'request entity too large',
      expected: 19,
      length: 19,
      limit: 10,
      type: 'entity.too.large',
    });
    assert.deepEqual(
      [tooLarge.name, tooLarge.className, tooLarge.fields],
      ['PayloadTooLargeError', 'PayloadTooLargeError', [413, 413, true, 'entity.too.large']],
    );
  });
});
