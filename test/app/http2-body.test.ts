/**
 * HTTP/2 request bodies: DATA frames until END_STREAM, with or without a
 * Content-Length (fetch with a streamed body and re-framing proxies send none).
 * Every parser reads them; limits, inflation and errors are those of HTTP/1.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import webapp = require('../../src/index');
import bodyParser = require('../../src/body-parser/index');
import { h2connect, h2request, type H2Response } from '../support/http2-client';
import { selfSignedCert } from '../support/self-signed-cert';

let server: http2.Http2SecureServer;
let client: http2.ClientHttp2Session;

/** Each route answers with the parsed body (Buffers as hex) or the error's status and type. */
function buildApp() {
  const app = webapp();
  const limit = 64;
  app.post('/json', webapp.json({ limit }), echo);
  app.post('/urlencoded', webapp.urlencoded({ limit, extended: true }), echo);
  app.post('/text', webapp.text({ limit }), echo);
  app.post('/raw', webapp.raw({ limit }), echo);
  app.post('/standalone/json', bodyParser.json({ limit }), echo);
  app.post('/standalone/raw', bodyParser.raw({ limit }), echo);
  app.get('/is', (req, res) => {
    res.json({ is: req.is('json'), body: req.body ?? null });
  });
  app.use(
    (
      err: { status?: number; type?: string },
      _req: webapp.Request,
      res: webapp.Response,
      _next: webapp.NextFunction,
    ) => {
      res.status(err.status ?? 500).json({ error: err.type ?? null });
    },
  );
  return app;
}

function echo(req: webapp.Request, res: webapp.Response) {
  const body = req.body as unknown;
  res.json({ body: Buffer.isBuffer(body) ? { hex: body.toString('hex') } : body });
}

interface Send {
  path: string;
  type?: string;
  body?: Buffer | string;
  /** Announce the length (default false: DATA frames only). */
  length?: boolean;
  gzip?: boolean;
  /** A Content-Encoding sent as is, the body left as given. */
  encoding?: string;
  /** Write the body in several DATA frames. */
  chunks?: number;
  method?: string;
}

function send(spec: Send): Promise<H2Response> {
  let payload = spec.body === undefined ? undefined : Buffer.from(spec.body);
  if (payload && spec.gzip) payload = zlib.gzipSync(payload);
  const headers: http2.OutgoingHttpHeaders = { ':method': spec.method ?? 'POST', ':path': spec.path };
  if (spec.type) headers['content-type'] = spec.type;
  if (spec.gzip || spec.encoding) headers['content-encoding'] = spec.encoding ?? 'gzip';
  if (payload && spec.length) headers['content-length'] = String(payload.length);
  return h2request(client, headers, payload, spec.chunks);
}

const parsed = (res: H2Response) => ({ status: res.status, ...JSON.parse(res.body) });

describe('HTTP/2 request bodies', () => {
  before(async () => {
    server = http2.createSecureServer({ ...selfSignedCert(), allowHTTP1: true }, buildApp() as never);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // One connection for every request: the streams are what differ.
    client = h2connect((server.address() as AddressInfo).port);
  });
  after(async () => {
    client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const good = {
    json: { type: 'application/json', body: '{"a":[1,2]}', expected: { a: [1, 2] } },
    urlencoded: { type: 'application/x-www-form-urlencoded', body: 'a[b]=1&c=2', expected: { a: { b: '1' }, c: '2' } },
    text: { type: 'text/plain', body: 'hello', expected: 'hello' },
    raw: { type: 'application/octet-stream', body: 'bytes', expected: { hex: Buffer.from('bytes').toString('hex') } },
  };

  for (const [parser, c] of Object.entries(good)) {
    for (const length of [true, false]) {
      const label = length ? 'with Content-Length' : 'without Content-Length';
      it(`${parser}: parses a body ${label}, in one or several DATA frames, plain or gzip`, async () => {
        for (const variant of [{}, { chunks: 3 }, { gzip: true }]) {
          const res = parsed(await send({ path: '/' + parser, type: c.type, body: c.body, length, ...variant }));
          assert.deepEqual(res, { status: 200, body: c.expected }, `${parser} ${label} ${JSON.stringify(variant)}`);
        }
      });
      it(`${parser}: a body over the limit is 413 ${label}, also after inflation`, async () => {
        const big = parser === 'json' ? JSON.stringify({ s: 'x'.repeat(200) }) : 'x'.repeat(200);
        for (const variant of [{}, { chunks: 4 }, { gzip: true }]) {
          const res = parsed(await send({ path: '/' + parser, type: c.type, body: big, length, ...variant }));
          assert.deepEqual(
            res,
            { status: 413, error: 'entity.too.large' },
            `${parser} ${label} ${JSON.stringify(variant)}`,
          );
        }
      });
    }
  }

  it('the standalone webapp/body-parser reads bodies without Content-Length too', async () => {
    assert.deepEqual(parsed(await send({ path: '/standalone/json', type: 'application/json', body: '{"x":1}' })), {
      status: 200,
      body: { x: 1 },
    });
    assert.deepEqual(parsed(await send({ path: '/standalone/raw', type: 'application/octet-stream', body: 'ab' })), {
      status: 200,
      body: { hex: '6162' },
    });
  });

  it('unchanged errors without Content-Length: malformed JSON 400, broken gzip 400, unknown encoding 415', async () => {
    assert.deepEqual(parsed(await send({ path: '/json', type: 'application/json', body: '{nope' })), {
      status: 400,
      error: 'entity.parse.failed',
    });
    assert.deepEqual(
      parsed(await send({ path: '/json', type: 'application/json', body: 'not gzip', encoding: 'gzip' })),
      { status: 400, error: null },
    );
    assert.deepEqual(parsed(await send({ path: '/text', type: 'text/plain', body: 'x', encoding: 'zstd-ish' })), {
      status: 415,
      error: 'encoding.unsupported',
    });
    // The connection's other streams are unaffected.
    assert.deepEqual(parsed(await send({ path: '/text', type: 'text/plain', body: 'still here' })), {
      status: 200,
      body: 'still here',
    });
  });

  it('a request whose HEADERS end the stream has no body: the parsers skip it', async () => {
    assert.deepEqual(parsed(await send({ path: '/json', type: 'application/json' })), { status: 200, body: {} });
    assert.deepEqual(parsed(await send({ path: '/is', type: 'application/json', method: 'GET' })), {
      status: 200,
      is: null,
      body: null,
    });
  });

  it('req.is sees a body sent without Content-Length', async () => {
    assert.deepEqual(parsed(await send({ path: '/is', type: 'application/json', body: '{}', method: 'GET' })), {
      status: 200,
      is: 'json',
      body: null,
    });
  });
});
