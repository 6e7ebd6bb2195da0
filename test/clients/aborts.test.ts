/**
 * Clients that leave at every stage of an upload, against the same app on
 * express@4 and on webapp: after the head, in the middle of the body, and before
 * sending a body the server refuses by its announced length. The error the app's
 * error handler gets, and when (before or after the request's `aborted` and
 * `close`), must be Express's; and the server keeps serving.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  comparableTranscript,
  connectionCount,
  createFiles,
  curl,
  hasCurl,
  onBoth,
  settles,
  type Files,
  type Side,
} from './support';

let files: Files;
before(() => {
  files = createFiles();
});
after(() => files.cleanup());

const parsers = [
  ['/json-large', 'application/json'],
  ['/json', 'application/json'],
  ['/form', 'application/x-www-form-urlencoded'],
  ['/raw', 'application/octet-stream'],
  ['/text', 'text/plain'],
] as const;

/** How the client leaves: a reset, a close, or its side ended (a half-closed socket). */
type Leaving = 'reset' | 'destroy' | 'end';

/**
 * Sends the head of a POST announcing `length` bytes and `sent` of them, waits until
 * the app has the request, then leaves; resolves once the server has seen the request
 * closed and the error handler has run, with the log and what the client received.
 */
async function leaveDuringUpload(side: Side, path: string, type: string, length: number, sent: string, how: Leaving) {
  const from = side.log.entries.length;
  const socket = net.connect({ port: side.port, host: '127.0.0.1', noDelay: true });
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined);
  const closed = new Promise((resolve) => socket.on('close', resolve));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n\r\n`,
  );
  if (sent) socket.write(sent);
  await side.log.seenAfter(from, `start @ POST ${path}`);
  if (how === 'reset') socket.resetAndDestroy();
  else if (how === 'destroy') socket.destroy();
  else socket.end();
  await closed;
  await side.log.seenAfter(from, `req close @ POST ${path}`);
  await side.log.seenAfter(from, 'error');
  return { log: side.log.entries.slice(from), received: comparableTranscript(received, side.port) };
}

describe('uploads the client leaves, against express@4 and webapp', () => {
  for (const [path, type] of parsers) {
    for (const how of ['reset', 'destroy', 'end'] as const) {
      it(`${path}, ${how}: after the head, mid-body, and over the limit by its Content-Length`, async () => {
        const { express, webapp } = await onBoth(files, async (side) => ({
          afterHead: await leaveDuringUpload(side, path, type, 100, '', how),
          midBody: await leaveDuringUpload(side, path, type, 100, '{"a":"bbbbbbbbbbbb', how),
          // 7000 bytes is over the 2 KB limits (not /json-large's, nor /text's 100 KB).
          overLimit: await leaveDuringUpload(side, path, type, 7000, '{"a":1}', how),
          // Every connection the clients left is closed on the server too.
          connectionsClosed: await settles(async () => (await connectionCount(side.server)) === 0),
        }));
        assert.equal(webapp.connectionsClosed, true);
        assert.deepEqual(webapp, express);
      });
    }
  }

  it('the server keeps serving: many uploads cut by curl --max-time, then an answer', { skip: !hasCurl }, async () => {
    const { express, webapp } = await onBoth(files, async ({ port, log }) => {
      const base = `http://127.0.0.1:${port}`;
      const cut: Array<Promise<unknown>> = [];
      for (const [path, type] of parsers) {
        cut.push(
          curl([
            '--limit-rate',
            '8K',
            '--max-time',
            '0.3',
            '-H',
            `Content-Type: ${type}`,
            '--data-binary',
            '@' + files.root + '/medium.bin',
            base + path,
          ]),
        );
      }
      await Promise.all(cut);
      for (const [path] of parsers) await log.seen(`req close @ POST ${path}`);
      const next = await curl([base + '/json']);
      const errors = log.entries.filter((entry) => entry.startsWith('error')).sort();
      return { errors, next: comparableTranscript(next.stdout, port) };
    });
    assert.deepEqual(webapp, express);
  });
});
