/**
 * The settings every response reads (`x-powered-by`, `etag fn`, `json replacer`,
 * `json spaces`, `json escape`): webapp reads them by name while the app's `get`,
 * `set` and `enabled` are its own (src/settings.ts, hotSettings), and through
 * those methods otherwise. Each case runs on express@4 and on webapp over HTTP.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { describe, it } from 'node:test';
import { assertSameResponses, frameworks, rawRequest, withServer, type Framework } from '../support/differential';

type App = ReturnType<Framework>;

function routes(app: App): App {
  app.get('/json', (_req, res) => res.json({ tag: '<b>&</b>', list: [1, 2] }));
  app.get('/text', (_req, res) => res.send('plain text'));
  return app;
}

const requests = [{ path: '/json' }, { path: '/text' }];

/** The names an app reads through `app.set(name)` (what `get` and `enabled` call) while answering `path`. */
async function settingsRead(framework: Framework, path: string): Promise<string[]> {
  const app = routes(framework());
  const reads: string[] = [];
  const set = app.set;
  app.set = function (this: App, ...args: unknown[]) {
    if (args.length === 1) reads.push(args[0] as string);
    return (set as (...a: unknown[]) => unknown).apply(this, args);
  } as App['set'];
  await withServer(app as unknown as http.RequestListener, async (port) => {
    const res = await rawRequest(port, { path });
    assert.equal(res.status, 200);
  });
  // Express reads `env` for every request, to build its final handler's options;
  // webapp reads it only when that handler runs (a 404 or an unhandled error).
  return reads.filter((name) => name !== 'env').sort();
}

describe('settings read while answering', () => {
  it('go through a replaced app.set, the same names as in express@4', async () => {
    for (const path of ['/json', '/text']) {
      const theirs = await settingsRead(frameworks[0][1], path);
      const ours = await settingsRead(frameworks[1][1], path);
      assert.deepEqual(ours, theirs, path);
      assert.ok(ours.includes('x-powered-by') && ours.includes('etag fn'), ours.join());
    }
  });

  it('come from a replaced app.get and app.enabled', async () => {
    const define = (framework: Framework) => {
      const app = routes(framework());
      const get = app.get;
      app.get = function (this: App, ...args: unknown[]) {
        if (args.length === 1 && args[0] === 'json spaces') return 3;
        if (args.length === 1 && args[0] === 'etag fn') return () => '"custom"';
        return (get as (...a: unknown[]) => unknown).apply(this, args);
      } as App['get'];
      app.enabled = (setting: string) => setting !== 'x-powered-by';
      return app as unknown as http.RequestListener;
    };
    const answers = await assertSameResponses(define, requests);
    assert.equal(answers[0].headers.etag, '"custom"');
    assert.match(answers[0].body, /^\{\n {3}"tag"/);
    for (const answer of answers) assert.equal(answer.headers['x-powered-by'], undefined);
  });

  it('are the app’s own or its parent’s, never a polluted Object.prototype', async () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto['json spaces'] = 8;
    proto['json escape'] = true;
    proto['etag fn'] = () => '"polluted"';
    proto['x-powered-by'] = false;
    try {
      const define = (framework: Framework) => {
        const parent = framework();
        const child = routes(framework());
        parent.set('json spaces', 1);
        parent.set('json escape', true);
        parent.set('etag', 'strong');
        parent.use('/child', child);
        return routes(parent) as unknown as http.RequestListener;
      };
      const answers = await assertSameResponses(define, [
        ...requests,
        { path: '/child/json' },
        { path: '/child/text' },
      ]);
      assert.match(answers[2].body, /^\{\n "tag": "\\u003cb\\u003e\\u0026/);
      assert.match(String(answers[1].headers.etag), /^"a-/, 'the parent’s strong tags');
      assert.match(String(answers[3].headers.etag), /^W\/"a-/, 'the child’s own weak tags');
      for (const answer of answers) assert.equal(answer.headers['x-powered-by'], 'webapp');
    } finally {
      delete proto['json spaces'];
      delete proto['json escape'];
      delete proto['etag fn'];
      delete proto['x-powered-by'];
    }
  });

  it('follow a change made after the first request', async () => {
    const app = routes(frameworks[1][1]());
    await withServer(app as unknown as http.RequestListener, async (port) => {
      const before = await rawRequest(port, { path: '/json' });
      app.disable('x-powered-by');
      app.set('json spaces', 2);
      app.set('etag', false);
      const after = await rawRequest(port, { path: '/json' });
      assert.equal(before.headers['x-powered-by'], 'webapp');
      assert.equal(after.headers['x-powered-by'], undefined);
      assert.ok(before.headers.etag);
      assert.equal(after.headers.etag, undefined);
      assert.match(after.body, /^\{\n {2}"tag"/);
    });
  });
});
