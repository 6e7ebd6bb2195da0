/**
 * Extended form bodies and query strings with high array indexes (`k[999][999]...`):
 * parsed within a small heap. qs, and so Express, gives each such container room
 * for every hole below the index (12 KB for `[999]`), and a 100 KB body of nested
 * keys held 230 MB until it was compacted: a few concurrent requests exhaust a
 * server's heap. webapp stores high indexes sparsely, with the same result as qs
 * (test/querystring/differential.test.ts compares them).
 *
 * The app runs in a child process with a 64 MB heap, where the old parser ended the
 * process on the first such body; the answers are checked against qs's parse.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import qs from 'qs';
import { watchChild, type WatchedChild } from '../support/child-output';

const HEAP_MB = 64;

/** As many parameters `unit(i)` as fit in `bytes` (at most 1,000, body-parser's limit), joined by `&`. */
function repeatUpTo(unit: (i: number) => string, bytes: number): string {
  const parameters: string[] = [];
  let length = 0;
  for (let i = 0; i < 1000; i++) {
    const next = unit(i);
    if (length + next.length + 1 > bytes) break;
    parameters.push(next);
    length += next.length + 1;
  }
  return parameters.join('&');
}

let child: ChildProcess;
let watched: WatchedChild;
let port: number;
let serverErrors = '';

async function post(body: string): Promise<{ status: number; keys?: number }> {
  let res: Response;
  try {
    res = await fetch(`http://127.0.0.1:${port}/form`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
  } catch (err) {
    // What the server said and how it ended, if it did: a heap it ran out of is the case tested.
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(
      `POST failed (${cause?.code ?? cause?.message ?? String(err)}); server exit code ${child.exitCode}, ` +
        `signal ${child.signalCode}; its stderr:\n${serverErrors}`,
    );
  }
  return { status: res.status, ...((await res.json()) as { keys?: number }) };
}

describe('high array indexes in a small heap', () => {
  before(async () => {
    child = spawn(
      process.execPath,
      [`--max-old-space-size=${HEAP_MB}`, '--require', 'tsx/cjs', join(__dirname, 'fixtures/small-heap-server.ts')],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => (serverErrors += chunk));
    watched = watchChild(child);
    port = Number((await watched.printed(/listening (\d+)/))[1]);
  });
  after(async () => {
    child.kill();
    await watched.exited;
  });

  it('parses 100 KB bodies of nested high indexes, three times, and keeps serving', async () => {
    const bodies = [
      repeatUpTo((i) => 'k' + i + '[999]'.repeat(31) + '=1', 100_000),
      repeatUpTo((i) => 'k' + (i >> 1) + (i % 2 ? '[b]' : '[998]') + '[999]'.repeat(30) + '=1', 100_000),
      repeatUpTo((i) => 'a[' + ((i * 7919) % 1000) + '][' + ((i * 31) % 999) + ']=' + i, 100_000),
    ];
    // qs's parse of these bodies takes seconds under coverage on a busy machine: done
    // before the first request, not between them, where the keep-alive connection fetch
    // reuses would sit idle past the server's timeout and be closed under the next POST.
    const cases = bodies.map((body) => {
      const parameters = body.split('&').length;
      // body-parser 1.20's settings for the same body.
      const expected = qs.parse(body, {
        allowPrototypes: true,
        arrayLimit: Math.max(100, parameters),
        depth: 32,
        parameterLimit: 1000,
        strictDepth: true,
      });
      return { body, keys: Object.keys(expected).length };
    });
    for (const { body, keys } of cases) {
      for (let round = 0; round < 3; round++) {
        const answer = await post(body);
        assert.deepEqual(answer, { status: 200, keys });
      }
    }
    assert.equal(child.exitCode, null, 'the server is still running');
  });

  it('parses a 16 KB query string of nested high indexes', async () => {
    const query = repeatUpTo((i) => 'q' + i + '[999]'.repeat(5) + '=1', 16_000);
    const res = await fetch(`http://127.0.0.1:${port}/query?${query}`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { keys: Object.keys(qs.parse(query, { depth: 5, arrayLimit: 20 })).length });
  });
});
