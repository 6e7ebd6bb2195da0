/**
 * A file's validators (Last-Modified and the weak ETag), whose texts webapp remembers
 * by the file's modification time (src/static/validators.ts): the same as express@4's
 * for times before, at and after the epoch, with and without milliseconds, asked
 * again, and after the file's time changed between two requests; and, past the
 * number of times remembered, still the texts of each time.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastModifiedOf, statTag } from '../../src/static/validators';
import { assertSameFlow, rawRequest, type Framework } from '../support/differential';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'webapp-validators-'));
  writeFileSync(join(dir, 'a.txt'), 'first file');
  writeFileSync(join(dir, 'b.txt'), 'second, longer file');
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Modification times a file system holds: the epoch, before it, milliseconds, two in one second, far ahead. */
const TIMES = [
  new Date(0),
  new Date(-1_500),
  new Date('1999-12-31T23:59:59.999Z'),
  new Date('2020-01-02T03:04:05.123Z'),
  new Date('2020-01-02T03:04:05.456Z'),
  new Date('2020-01-02T03:04:06.000Z'),
  new Date('2106-02-07T06:28:16.000Z'),
];

function app(framework: Framework) {
  const served = framework();
  served.use(framework.static(dir));
  served.get('/sent/:name', (req, res) => res.sendFile(join(dir, req.params.name)));
  return served;
}

interface Seen {
  status: number;
  lastModified: string | undefined;
  etag: string | undefined;
}

const seenOf = (res: { status: number; headers: Record<string, unknown> }): Seen => ({
  status: res.status,
  lastModified: res.headers['last-modified'] as string | undefined,
  etag: res.headers.etag as string | undefined,
});

describe('file validators', () => {
  it("are express@4's for each modification time, asked again and after the time changed", async () => {
    const seen = await assertSameFlow(app, async (port) => {
      const answers: Seen[] = [];
      for (const time of TIMES) {
        // Both files get the time: two paths, one time value.
        utimesSync(join(dir, 'a.txt'), time, time);
        utimesSync(join(dir, 'b.txt'), time, time);
        for (const path of ['/a.txt', '/a.txt', '/b.txt', '/sent/a.txt', '/sent/b.txt']) {
          const res = await rawRequest(port, { path });
          answers.push(seenOf(res));
          const etag = res.headers.etag as string;
          const modified = res.headers['last-modified'] as string;
          answers.push(seenOf(await rawRequest(port, { path, headers: { 'if-none-match': etag } })));
          answers.push(seenOf(await rawRequest(port, { path, headers: { 'if-modified-since': modified } })));
        }
      }
      return answers;
    });
    // The flow saw what it should: a 200 with the time's own texts, then two 304s.
    for (let i = 0; i < TIMES.length; i++) {
      const first = seen[i * 15];
      assert.equal(first.status, 200);
      assert.equal(first.lastModified, TIMES[i].toUTCString());
      assert.match(first.etag!, new RegExp(`^W/"a-${TIMES[i].getTime().toString(16)}"$`));
      assert.equal(seen[i * 15 + 1].status, 304);
      assert.equal(seen[i * 15 + 2].status, 304);
    }
  });

  it("are each time's own texts past the number of times remembered, in either order", () => {
    const times: Date[] = [new Date(Number.NaN)];
    for (let i = 0; i < 3_000; i++) times.push(new Date(1_700_000_000_000 + i * 1_234_567 - (i % 2) * 1e15));
    for (const order of [times, [...times].reverse()]) {
      for (const mtime of order) {
        const stat = { mtime, size: 4096 };
        assert.equal(lastModifiedOf(stat), mtime.toUTCString());
        assert.equal(statTag(stat), `"1000-${mtime.getTime().toString(16)}"`);
      }
    }
  });
});
