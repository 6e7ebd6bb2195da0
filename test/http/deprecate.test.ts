/**
 * Deprecation notices name the caller's line as depd does for Express: the file
 * relative to the working directory, its line and column.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { relative } from 'node:path';
import { describe, it } from 'node:test';
import { deprecate } from '../../src/http/deprecate';
import { captureStderr, captureStderrOf } from '../support/capture-stderr';
import { answersOf } from '../support/compare';
import type { RawResponse } from '../support/raw-http';
import webapp = require('../../src/index');
import webapp3 = require('../../src/v3/index');

const express = require('express');

describe('deprecation notices', () => {
  it('name the calling file relative to the working directory, as depd names it', () => {
    const here = relative(process.cwd(), __filename);
    const [ours] = captureStderr(() => deprecate('something old: use something new'));
    assert.match(ours, / webapp deprecated something old: use something new at (\S+):\d+:\d+\n$/);
    assert.equal(/ at (\S+):\d+:\d+\n$/.exec(ours)![1], here);

    // express@4 (depd) for a deprecated call made from this file: the same form of site.
    const app = express();
    const [theirs] = captureStderr(() => app.del('/old', () => undefined));
    assert.equal(/ at (\S+):\d+:\d+\n$/.exec(theirs)![1], here);
  });

  it('res.status with values a client chose prints once per caller, as Express does, not once per value', () => {
    const statusOnce = (response: { status(code: unknown): unknown }) =>
      captureStderr(() => {
        for (const code of ['200.5', '0200', '404.0', '00000000000000000301.7'])
          response.status.call({ statusCode: 0 }, code);
      });
    const ours = statusOnce(webapp.response);
    assert.equal(ours.length, statusOnce(express.response).length);
    assert.equal(ours.length, 1);
    assert.match(ours[0]!, /deprecated res.status\("200.5"\): use res.status\(200\) instead at /);
  });

  it('a call whose notice has printed captures no more of the stack than depd does', () => {
    // What an app of the Express 3 era does: req.param several times a request, for good.
    // Each call finds its site again; capturing 40 frames and writing each as text made
    // each call cost two to four times depd's, which captures 10 (or the process's limit).
    const capture = Error.captureStackTrace;
    const limits: number[] = [];
    Error.captureStackTrace = function (target: object, below?: (...args: never[]) => unknown) {
      limits.push(Error.stackTraceLimit);
      capture.call(Error, target, below);
    };
    try {
      const req = Object.assign(Object.create(webapp.request), { params: { id: '7' }, query: {}, body: {} });
      const notices = captureStderr(() => {
        for (let i = 0; i < 100; i++) assert.equal(req.param('id'), '7');
      });
      assert.equal(notices.length, 1);
      assert.match(notices[0]!, /deprecated req\.param\(name\): Use req\.params, req\.body, or req\.query instead at /);
      assert.equal(limits.length, 100);
      assert.deepEqual(new Set(limits), new Set([Math.max(10, Error.stackTraceLimit)]));
    } finally {
      Error.captureStackTrace = capture;
    }
  });

  it("are silenced by NO_DEPRECATION as depd reads it, and by `express` for webapp's own", () => {
    // Each call a message of its own: a notice prints once per message and call site.
    const notices = (value: string, namespace?: string) =>
      captureStderr(() => {
        process.env.NO_DEPRECATION = value;
        deprecate(`notice under ${value} for ${namespace}`, namespace);
      });
    for (const value of ['webapp', 'express', 'EXPRESS', 'other, Webapp', 'a b express', '*'])
      assert.deepEqual(notices(value), [], value);
    assert.equal(notices('body-parser').length, 1);
    assert.equal(notices('expressive').length, 1);
    assert.deepEqual(notices('Body-Parser', 'body-parser'), []);
    assert.equal(notices('express', 'body-parser').length, 1);
  });
  it('go to process deprecation listeners as a DeprecationError instead of stderr, as depd does', () => {
    const received: Error[] = [];
    const listener = (err: Error) => received.push(err);
    process.on('deprecation', listener);
    try {
      const printed = captureStderr(() => {
        deprecate('an old way: use the new one');
        // Express's own (depd): the same shape of error, for a call made from this file.
        express().del('/gone', () => undefined);
      });
      assert.deepEqual(printed, []);
    } finally {
      process.removeListener('deprecation', listener);
    }
    const [ours, theirs] = received as (Error & { namespace: string })[];
    for (const err of [ours, theirs]) {
      assert.equal(err.name, 'DeprecationError');
      assert.ok(err instanceof Error);
      assert.deepEqual(Object.keys(err), []);
      // The stack begins with the caller's own line: this file.
      assert.match(
        err.stack!.split('\n')[1]!,
        new RegExp(`^    at .*${__filename.replace(/[.\\/]/g, '\\$&')}:\\d+:\\d+\\)?$`),
      );
    }
    assert.equal(ours!.namespace, 'webapp');
    assert.equal(theirs!.namespace, 'express');
    assert.equal(ours!.message, 'an old way: use the new one');
    assert.match(ours!.stack!, /^DeprecationError: webapp deprecated an old way: use the new one\n {4}at /);
    assert.match(theirs!.stack!, /^DeprecationError: express deprecated app\.del: Use app\.delete instead\n {4}at /);
  });

  it('print the caller stack instead of its line under TRACE_DEPRECATION and --trace-deprecation', () => {
    const previous = process.env.TRACE_DEPRECATION;
    process.env.TRACE_DEPRECATION = 'webapp';
    try {
      const [traced] = captureStderr(() => deprecate('traced through the environment'));
      const lines = traced!.trimEnd().split('\n');
      assert.match(lines[0]!, / webapp deprecated traced through the environment$/);
      assert.ok(lines.length > 1);
      assert.ok(lines.slice(1).every((line) => line.startsWith('    at ')));
      assert.ok(lines[1]!.includes(__filename));
    } finally {
      if (previous === undefined) delete process.env.TRACE_DEPRECATION;
      else process.env.TRACE_DEPRECATION = previous;
    }
    const flagged = spawnSync(
      process.execPath,
      [
        '--trace-deprecation',
        '--require',
        'tsx/cjs',
        '-e',
        `require(${JSON.stringify(require.resolve('../../src/http/deprecate'))}).deprecate('flagged')`,
      ],
      { encoding: 'utf8', env: { ...process.env, NO_DEPRECATION: '' } },
    );
    assert.match(flagged.stderr, / webapp deprecated flagged\n {4}at /);
  });

  describe("under a process's own Error.prepareStackTrace", () => {
    // What APM agents and tools install: call sites, an object, or a function that throws.
    const foreign: Array<[string, (error: Error, sites: NodeJS.CallSite[]) => unknown]> = [
      ['call sites', (_error, sites) => sites],
      ['an object', () => ({ frames: 0 })],
      [
        'a throw',
        () => {
          throw new Error('no stacks here');
        },
      ],
      // Text, in a format of its own (frames without a column).
      [
        'its own text',
        (_error, sites) => sites.map((site) => `  --> ${site.getFileName()}:${site.getLineNumber()}`).join('\n'),
      ],
    ];
    const withForeign = <T>(prepare: (typeof foreign)[number][1], fn: () => T): T => {
      const previous = Error.prepareStackTrace;
      Error.prepareStackTrace = prepare;
      try {
        return fn();
      } finally {
        Error.prepareStackTrace = previous;
      }
    };

    for (const [name, prepare] of foreign) {
      it(`name the caller's line as depd does (${name})`, () => {
        const here = relative(process.cwd(), __filename);
        const [ours] = withForeign(prepare, () => captureStderr(() => deprecate(`under ${name}`)));
        assert.equal(/ at (\S+):\d+:\d+\n$/.exec(ours!)?.[1], here);
        // depd names it under its own prepareStackTrace (and prints once per call site: the first kind only).
        if (name !== foreign[0]![0]) return;
        const [theirs] = withForeign(prepare, () => captureStderr(() => express().del(`/${name}`, () => undefined)));
        assert.equal(/ at (\S+):\d+:\d+\n$/.exec(theirs!)?.[1], here);
      });
    }

    it("name the caller's line under --frozen-intrinsics, where Error cannot be changed", () => {
      const child = spawnSync(
        process.execPath,
        [
          '--frozen-intrinsics',
          '--require',
          'tsx/cjs',
          '-e',
          `const { deprecate } = require(${JSON.stringify(require.resolve('../../src/http/deprecate'))});\n` +
            `deprecate('frozen');`,
        ],
        { encoding: 'utf8', env: { ...process.env, NO_DEPRECATION: '' } },
      );
      assert.match(child.stderr, / webapp deprecated frozen at \[eval\]:2:1\n/);
    });

    it('deprecated calls answer as in Express instead of failing', async () => {
      const app = (framework: typeof express) => {
        const app = framework();
        app.get('/send', (_req: any, res: any) => res.send(201, 'old send'));
        app.get('/param', (req: any, res: any) => res.send(`param ${req.param('x')}`));
        app.use((err: Error, _req: any, res: any, _next: unknown) => res.status(500).send(`error: ${err.message}`));
        return app;
      };
      const requests = [{ path: '/send' }, { path: '/param?x=1' }];
      const previous = Error.prepareStackTrace;
      try {
        for (const [name, prepare] of foreign) {
          Error.prepareStackTrace = prepare;
          const { result, lines } = await captureStderrOf(async () => ({
            expected: await answersOf(app(express), requests),
            actual: await answersOf(app(webapp), requests),
          }));
          const answers = (responses: RawResponse[]) => responses.map((res) => [res.status, res.body]);
          assert.deepEqual(answers(result.actual), answers(result.expected), name);
          assert.deepEqual(answers(result.actual), [
            [201, 'old send'],
            [200, 'param 1'],
          ]);
          // Both printed their notices (each once per call site, so only under the first).
          if (name === foreign[0]![0]) assert.equal(lines.filter((line) => / webapp deprecated /.test(line)).length, 2);
        }
        // webapp/v3's bodyParser() prints multipart's notice as the app is set up.
        captureStderr(() => webapp3.bodyParser());
      } finally {
        Error.prepareStackTrace = previous;
      }
    });
  });
});
