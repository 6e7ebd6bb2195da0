/**
 * Nothing leaks over a long run: thousands of requests through much of the 4.x API
 * (routers with params, content negotiation, views, static files with ranges and
 * conditional requests, sendFile, download, sessions, signed cookies, body parsers
 * with good and bad bodies, compression, redirects, streamed answers, thrown and
 * rejected errors, 404s, HEAD), and through a 3.x app of webapp/v3 with the bundled
 * middleware (logger, compress, static, body parsers, methodOverride, cookieParser,
 * session in memory, errorHandler), over keep-alive connections, and the 4.x app again
 * as HTTP/2 streams to `http2.createSecureServer({ allowHTTP1: true }, app)`. Some calls
 * are given up by the client before or during the answer; the client keeps its
 * cookies, so sessions are reused. Between the end of a warm-up and the end of the
 * run, the objects the process holds, its open descriptors and its sockets' listeners
 * stay where they were, and nothing printed a warning.
 *
 * The run (test/app/fixtures/long-run.ts) is a process of its own, so the count is the
 * app's and not the test runner's. It runs a second time with a middleware that keeps
 * every request, to show that the count sees a leak.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { withoutCoverage } from '../support/without-coverage';

const run = promisify(execFile);

interface LongRun {
  requests: number;
  objectsBefore: number;
  objectsAfter: number;
  descriptorsBefore: number;
  descriptorsAfter: number;
  mostListeners: number;
  warnings: string[];
}

async function longRun(rounds: number, ...args: string[]): Promise<LongRun> {
  const fixture = join(__dirname, 'fixtures', 'long-run.ts');
  // Not under coverage: the run counts objects, and what it goes through is covered by
  // the tests of each API; coverage's counters would slow its thousands of requests.
  const { stdout } = await run(process.execPath, ['--require', 'tsx/cjs', fixture, ...args], {
    env: withoutCoverage({ ...process.env, WARM: '40', ROUNDS: String(rounds) }),
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as LongRun;
}

/** At most one object kept per this many requests: a leak keeps one or more per request. */
const REQUESTS_PER_KEPT_OBJECT = 20;

describe('a long run', () => {
  for (const [name, args] of [
    ['a 4.x app', []],
    ['a 4.x app over HTTP/2', ['--http2']],
    ['a 3.x app of webapp/v3', ['--v3']],
  ] as const) {
    it(`${name} keeps no object, descriptor or listener per request, and warns of nothing`, async () => {
      const result = await longRun(100, ...args);
      assert.ok(result.requests >= 1800, `${result.requests} requests`);
      const kept = result.objectsAfter - result.objectsBefore;
      assert.ok(
        kept <= result.requests / REQUESTS_PER_KEPT_OBJECT,
        `${kept} more objects after ${result.requests} requests (${result.objectsBefore} → ${result.objectsAfter})`,
      );
      assert.ok(
        result.descriptorsAfter <= result.descriptorsBefore,
        `open descriptors ${result.descriptorsBefore} → ${result.descriptorsAfter}`,
      );
      // Node warns past 10 listeners of one event on one emitter; a keep-alive socket
      // that gained one per request would pass that within the run.
      assert.ok(result.mostListeners <= 5, `a socket had ${result.mostListeners} listeners of one event`);
      assert.deepEqual(result.warnings, []);
    });
  }

  it('sees a leak: with a middleware that keeps every request, the count grows with the requests', async () => {
    const result = await longRun(10, '--leak');
    const kept = result.objectsAfter - result.objectsBefore;
    assert.ok(kept >= result.requests, `${kept} more objects after ${result.requests} requests`);
  });
});
