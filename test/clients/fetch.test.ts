/**
 * Node's own fetch (undici) against the same app on express@4 and on webapp:
 * streamed request bodies (`duplex: 'half'`), and AbortController aborts in the
 * middle of a body upload, of a file download and before a slow handler answers.
 * The answers, what the server saw and did (events, callbacks), and what it holds
 * afterwards (descriptors, connections) must be the same.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createFiles, onBoth, openFilesUnder, settles, type Files, type Side } from './support';

let files: Files;
before(() => {
  files = createFiles();
});
after(() => files.cleanup());

/** A request body of `chunks`, streamed; `beforeChunk(i)` may hold chunk i back (or abort). */
function streamOf(chunks: Buffer[], beforeChunk?: (i: number) => Promise<void>): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    async pull(controller) {
      await beforeChunk?.(i);
      if (i === chunks.length) controller.close();
      else controller.enqueue(new Uint8Array(chunks[i++]));
    },
  });
}

/** What a fetch answer shows, but the headers the two legitimately differ in. */
async function shown(res: Response): Promise<{ status: number; headers: Array<[string, string]>; body: string }> {
  const headers = [...res.headers].filter(([name]) => name !== 'date' && name !== 'x-powered-by');
  return { status: res.status, headers, body: await res.text() };
}

/** fetch with a streamed body, as undici asks for it (no length: sent chunked). */
function post(url: string, type: string, body: ReadableStream<Uint8Array>, signal?: AbortSignal): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': type }, body, signal, duplex: 'half' } as RequestInit);
}

describe('fetch (undici) against express@4 and webapp', () => {
  it('streamed request bodies: parsed, over the limit (413), large raw ones; the connection serves on', async () => {
    const { express, webapp } = await onBoth(files, async ({ port, log }: Side) => {
      const base = `http://127.0.0.1:${port}`;
      const json = (text: string) => text.match(/.{1,700}/g)!.map((part) => Buffer.from(part));
      return {
        answers: [
          await shown(await post(base + '/json', 'application/json', streamOf(json('{"a":[1,2,3],"b":"c"}')))),
          await shown(
            await post(base + '/json', 'application/json', streamOf(json(JSON.stringify({ t: 'x'.repeat(3000) })))),
          ),
          await shown(
            await post(base + '/raw', 'application/octet-stream', streamOf(Array(40).fill(Buffer.alloc(16384, 1)))),
          ),
          await shown(await post(base + '/form', 'application/x-www-form-urlencoded', streamOf(json('a[b]=1&c=2')))),
          await shown(await fetch(base + '/json')),
        ],
        log: log.entries,
      };
    });
    assert.deepEqual(webapp, express);
    assert.deepEqual(
      webapp.answers.map((answer) => answer.status),
      [200, 413, 200, 200, 200],
    );
  });

  for (const [path, type] of [
    ['/json-large', 'application/json'],
    ['/form', 'application/x-www-form-urlencoded'],
    ['/raw', 'application/octet-stream'],
  ] as const) {
    it(`aborted in the middle of a streamed body to ${path}: 400 request.aborted to the error handler`, async () => {
      const { express, webapp } = await onBoth(files, async ({ port, log }: Side) => {
        const base = `http://127.0.0.1:${port}`;
        const controller = new AbortController();
        // The third chunk never comes: the server has the head and two chunks when the client leaves.
        const body = streamOf([Buffer.from('{"a":"'), Buffer.alloc(1000, 'b'), Buffer.from('"}')], async (i) => {
          if (i < 2) return;
          await log.seen(`start @ POST ${path}`);
          controller.abort();
        });
        const outcome = await post(base + path, type, body, controller.signal).then(
          (res) => `answered ${res.status}`,
          (err: Error) => err.name,
        );
        await log.seen(`req close @ POST ${path}`);
        await log.seen('error');
        const next = await shown(await fetch(base + '/json'));
        return { outcome, log: log.entries, next };
      });
      assert.deepEqual(webapp, express);
      assert.equal(webapp.outcome, 'AbortError');
      assert.ok(
        webapp.log.includes(`error 400 request.aborted ECONNABORTED request aborted @ POST ${path}`),
        webapp.log.join('\n'),
      );
    });
  }

  it('aborted before a slow handler answers: the same events, the answer written to nobody', async () => {
    const { express, webapp } = await onBoth(files, async ({ port, log, gate }: Side) => {
      const controller = new AbortController();
      const answer = fetch(`http://127.0.0.1:${port}/slow`, { signal: controller.signal });
      await log.seen('slow waiting');
      controller.abort();
      const outcome = await answer.then(
        () => 'answered',
        (err: Error) => err.name,
      );
      await log.seen('req close @ GET /slow');
      gate.open();
      await log.seen('slow answers');
      return { outcome, log: log.entries };
    });
    assert.deepEqual(webapp, express);
    assert.ok(webapp.log.includes('slow answers destroyed=true @ GET /slow'), webapp.log.join('\n'));
  });

  it('aborted mid-download (static, sendFile, download, a range, res.write): callbacks, no file open', async () => {
    const downloads: Array<[string, Record<string, string>, string]> = [
      ['/static/large.bin', {}, 'res close @ GET /static/large.bin'],
      ['/file/large.bin', {}, 'sendFile'],
      ['/download/large.bin', {}, 'download'],
      ['/file/large.bin', { range: 'bytes=1000-' }, 'sendFile'],
      ['/static/large.bin', { range: 'bytes=5-40000000' }, 'res close @ GET /static/large.bin'],
      ['/stream', {}, 'stream stopped'],
    ];
    const { express, webapp } = await onBoth(files, async ({ port, log }: Side) => {
      const base = `http://127.0.0.1:${port}`;
      const seen: string[] = [];
      log.entries.length = 0;
      for (const [path, headers, done] of downloads) {
        const controller = new AbortController();
        const res = await fetch(base + path, { headers, signal: controller.signal });
        const reader = res.body!.getReader();
        await reader.read();
        controller.abort();
        await reader.read().catch(() => undefined);
        await log.seen(done);
        seen.push(`${res.status} ${path}: ${log.entries.find((entry) => entry.startsWith(done))}`);
        log.entries.length = 0;
      }
      const closed = await settles(() => openFilesUnder(files.root) === 0);
      return { seen, closed: closed || `${openFilesUnder(files.root)} files still open` };
    });
    assert.deepEqual(webapp, express);
    assert.equal(webapp.closed, true);
  });
});
