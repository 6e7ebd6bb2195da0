/**
 * HTTP/2 streams the client resets while the app is still answering. Node tells the
 * request at once (`aborted`) and the response a turn later (when the stream's `close`
 * event runs); in between, Node's own `write` and `end` throw ERR_HTTP2_INVALID_STREAM.
 * An app answers in that turn whenever a body parser's "request aborted" error reaches
 * its error handler, or its own `aborted` listener writes: what it writes is dropped,
 * as over HTTP/1 to a socket the client closed, and nothing throws.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import webapp = require('../../src/index');
import { h2request, type H2Response } from '../support/http2-client';

interface Outcome {
  /** What the app's code threw while answering, if anything. */
  threw?: string;
  /** The error's `type` (body parsers) or what the listener saw. */
  seen?: string;
  /** The status of the error the error handler got. */
  status?: number;
  /** What the callbacks of `write` and `end` were given. */
  writeCallback?: string;
  endCalledBack?: boolean;
  /** The response's `close` event came. */
  closed: Promise<void>;
}

const outcomes = new Map<string, (outcome: Omit<Outcome, 'closed'>) => void>();
const closes = new Map<string, () => void>();

/** Reports what happened to the request tagged `tag`. */
function report(tag: string, outcome: Omit<Outcome, 'closed'>): void {
  outcomes.get(tag)?.(outcome);
}

function buildApp() {
  const app = webapp();
  app.use((req, res, next) => {
    const tag = req.get('x-tag');
    if (tag) res.on('close', () => closes.get(tag)?.());
    next();
  });
  app.post('/json', webapp.json(), (req, res) => {
    res.json(req.body);
  });
  // Writes from the request's own `aborted` listener, with callbacks.
  app.post('/listener', (req, res) => {
    req.on('aborted', () => {
      const tag = req.get('x-tag')!;
      try {
        let writeCallback = 'not called';
        res.write('partial', (err?: Error | null) => {
          writeCallback = err ? String((err as NodeJS.ErrnoException).code) : 'no error';
        });
        res.end('rest', () => {
          setImmediate(() => report(tag, { seen: 'aborted', writeCallback, endCalledBack: true }));
        });
      } catch (err) {
        report(tag, { threw: String((err as NodeJS.ErrnoException).code ?? err) });
      }
    });
  });
  app.use(
    (
      err: { status?: number; type?: string },
      req: webapp.Request,
      res: webapp.Response,
      _next: webapp.NextFunction,
    ) => {
      const tag = req.get('x-tag')!;
      try {
        res.status(err.status ?? 500).send('failed: ' + String(err.type));
        report(tag, { seen: err.type, status: err.status });
      } catch (thrown) {
        report(tag, { threw: String((thrown as NodeJS.ErrnoException).code ?? thrown), seen: err.type });
      }
    },
  );
  return app;
}

let server: http2.Http2Server;
let port: number;

/**
 * Sends the head and the first bytes of a body, then resets the stream (CANCEL)
 * without ending it; resolves with what the app reported and when its response closed.
 */
async function resetMidBody(path: string, tag: string, headers: http2.OutgoingHttpHeaders, firstBytes: Buffer) {
  const reported = new Promise<Omit<Outcome, 'closed'>>((resolve) => outcomes.set(tag, resolve));
  const closed = new Promise<void>((resolve) => closes.set(tag, resolve));
  const session = http2.connect(`http://127.0.0.1:${port}`);
  session.on('error', () => {});
  try {
    const stream = session.request(
      { ':method': 'POST', ':path': path, 'x-tag': tag, ...headers },
      { endStream: false },
    );
    stream.on('error', () => {});
    // The head and the bytes reach the app before the reset does. `close(CANCEL)` ends
    // the body (END_STREAM) and resets the stream (RST_STREAM) at once, as browsers
    // cancel: the app's stream is then closed but not yet destroyed.
    stream.write(firstBytes, () => setTimeout(() => stream.close(http2.constants.NGHTTP2_CANCEL), 50));
    const outcome = await reported;
    await closed;
    return outcome;
  } finally {
    session.close();
  }
}

/** A whole request on a fresh session: the server still answers. */
async function post(path: string, body: string): Promise<H2Response> {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  try {
    const headers = { ':method': 'POST', ':path': path, 'content-type': 'application/json' };
    return await h2request(session, headers, Buffer.from(body));
  } finally {
    session.close();
  }
}

describe('HTTP/2: a stream the client resets while the app answers', () => {
  before(async () => {
    server = http2.createServer(buildApp() as never);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a body parser\'s "request aborted" reaches the error handler, whose res.send does not throw', async () => {
    const gzipped = zlib.gzipSync(JSON.stringify({ a: 'b'.repeat(100) }));
    const outcome = await resetMidBody(
      '/json',
      'parser',
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      gzipped.subarray(0, 10),
    );
    // Which 400 depends on how the frames reach the parser: "request aborted" most often,
    // the inflation's "unexpected end of file" when the end of the body is read apart
    // from the reset. That it is answered without a throw is what is tested.
    assert.equal(outcome.threw, undefined, `threw for ${outcome.seen}`);
    assert.equal(outcome.status, 400, `${outcome.seen}`);
    assert.deepEqual(await post('/json', '{"still":"serving"}'), { status: 200, body: '{"still":"serving"}' });
  });

  it("the request's aborted listener writes and ends: nothing sent, nothing thrown, callbacks called", async () => {
    const outcome = await resetMidBody('/listener', 'listener', { 'content-type': 'text/plain' }, Buffer.from('abc'));
    assert.deepEqual(outcome, {
      seen: 'aborted',
      writeCallback: 'ERR_HTTP2_INVALID_STREAM',
      endCalledBack: true,
    });
    assert.equal((await post('/json', '[1]')).status, 200);
  });
});
