import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import http2 from 'node:http2';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import webapp = require('../../src/index');
import { compress } from '../../src/middleware/compress';
import { preferredEncoding } from '../../src/middleware/connect-negotiation';
import { assertSameAsConnect, chain, requestAll, withServer, type Handler, type RequestSpec } from './support';
import { itWithLiveOracle } from '../support/oracle-recording';
import { exchange, listen } from '../support/raw-http';

const connect = require('connect');

const big = 'hello world '.repeat(200);

const app: Handler = (req, res) => {
  const url = req.url as string;
  if (url === '/small') res.setHeader('Content-Type', 'text/plain');
  else if (url === '/image') res.setHeader('Content-Type', 'image/png');
  else if (url === '/json') res.setHeader('Content-Type', 'application/json');
  else if (url === '/octet') res.setHeader('Content-Type', 'application/octet-stream');
  else if (url === '/encoded') {
    res.setHeader('Content-Type', 'text/plain');
    res.setHeader('Content-Encoding', 'x-custom');
  } else if (url === '/length') {
    res.setHeader('Content-Type', 'text/plain');
    res.setHeader('Content-Length', String(Buffer.byteLength(big)));
  } else if (url === '/streamed') {
    res.setHeader('Content-Type', 'text/html');
    res.write(big.slice(0, 100));
    res.write(Buffer.from(big.slice(100)));
    return res.end();
  } else if (url !== '/untyped') res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.end(url === '/small' ? 'tiny' : big);
};

const paths = ['/', '/small', '/image', '/json', '/octet', '/encoded', '/length', '/streamed', '/untyped'];
const encodings = [
  undefined,
  'gzip',
  'deflate',
  'gzip, deflate',
  'deflate, gzip;q=0.5',
  'identity',
  'br',
  '*',
  'gzip;q=0',
];

/** Accept-Encoding values on which negotiator 0.5 (Connect 2.30) and 0.6 (webapp's 4.x API) part. */
const TIE_BREAKS = [
  'identity;q=1, gzip;q=1',
  'identity;q=1.0, deflate;q=1.0, gzip;q=1.0',
  'deflate;q=0.8, gzip;level=1;q=0.8',
  'deflate;q=0.8, gzip;q=0.8',
  'identity, gzip;q=1',
  'identity;x=1, gzip',
  '*;q=1, identity;q=1',
  'deflate;q=1, *;q=1',
  'gzip;q=abc, deflate',
  'gzip;q=0, identity;q=0',
  'gzip;, deflate',
  'GZIP;Q=1, identity;q=1',
  ' , gzip;q=0.5,, deflate;q=0.5 ',
];

describe('compress', () => {
  it('matches Connect 2.30 for every type, size and Accept-Encoding', async () => {
    const requests = paths.flatMap((path) =>
      encodings.map((encoding) => ({ path, headers: encoding ? { 'accept-encoding': encoding } : {} }) as RequestSpec),
    );
    await assertSameAsConnect([connect.compress(), app], [compress(), app], requests);
  });

  it('chooses the coding Connect 2.30 chose where negotiators disagree: ties, parameters, odd q values', async () => {
    const requests = TIE_BREAKS.map((encoding) => ({ path: '/', headers: { 'accept-encoding': encoding } }));
    const answers = await assertSameAsConnect([connect.compress(), app], [compress(), app], requests);
    // `identity;q=1, gzip;q=1`: Express 3.21 compressed; webapp's 4.x negotiator (0.6) would not.
    assert.equal(answers[0].headers['content-encoding'], 'gzip');
  });

  it('a body ended in one call is compressed in one zlib call, byte for byte as Connect streams it', async () => {
    const requests = ['gzip', 'deflate'].flatMap((encoding) =>
      ['/', '/json', '/streamed'].map((path) => ({ path, headers: { 'accept-encoding': encoding } }) as RequestSpec),
    );
    for (const options of [{}, { level: 1 }, { level: 9, memLevel: 9, strategy: zlib.constants.Z_FILTERED }]) {
      await assertSameAsConnect([connect.compress(options), app], [compress(options), app], requests);
    }
  });

  it('a whole body up to 32 KB is compressed before res.end returns, a larger one on the thread pool', async () => {
    // Text that compresses as a page does: repeated markup with varying numbers.
    let text = '';
    for (let i = 0; text.length < 80 * 1024; i++) text += `<li class="row">Row ${i}: ${(i * 7919) % 1000}</li>\n`;
    const source = Buffer.from(text);
    const endedInLine = new Map<number, boolean>();
    const sized: Handler = (req, res) => {
      const size = Number((req.url as string).slice(1));
      res.setHeader('Content-Type', 'text/html');
      res.end(source.subarray(0, size));
      endedInLine.set(size, res.writableEnded);
    };
    const sizes = [1024, 32 * 1024, 32 * 1024 + 1, 80 * 1024];
    for (const encoding of ['gzip', 'deflate'] as const) {
      const requests = sizes.map((size) => ({ path: `/${size}`, headers: { 'accept-encoding': encoding } }));
      const answers = await assertSameAsConnect([connect.compress(), sized], [compress(), sized], requests);
      const oneShot = encoding === 'gzip' ? zlib.gzipSync : zlib.deflateSync;
      answers.forEach((answer, i) => {
        assert.equal(answer.headers['content-encoding'], encoding);
        assert.ok(
          Buffer.from(answer.body, 'latin1').equals(oneShot(source.subarray(0, sizes[i]))),
          `${sizes[i]} bytes`,
        );
      });
      assert.deepEqual(
        [...endedInLine],
        [
          [1024, true],
          [32 * 1024, true],
          [32 * 1024 + 1, false],
          [80 * 1024, false],
        ],
      );
      endedInLine.clear();
    }
  });

  it('options zlib rejects throw before the head goes out, so the error page answers, as in Connect 2.30', async () => {
    // Connect made its compressor as the head was written; made after it, the throw
    // left a response with a gzip head and no way to answer: the connection was cut.
    const answer: Handler = (req, res) => {
      res.setHeader('Content-Type', 'text/html');
      const size = Number((req.url as string).split('/')[2]);
      if ((req.url as string).startsWith('/streamed/')) {
        res.write(Buffer.alloc(size, 'a'));
        return res.end();
      }
      res.end(Buffer.alloc(size, 'a'));
    };
    const requests: RequestSpec[] = [];
    for (const path of ['/whole/2048', '/whole/65536', '/streamed/2048', '/whole/100'])
      for (const encoding of ['gzip', 'deflate', undefined])
        requests.push({ path, headers: encoding ? { 'accept-encoding': encoding } : {} });
    const answers = await assertSameAsConnect(
      [connect.compress({ level: 42 }), answer],
      [compress({ level: 42 }), answer],
      requests,
    );
    // The error page (sendError's 500 with zlib's message) where a coding was chosen;
    // the body as it was where none was (no Accept-Encoding, or under the threshold).
    assert.deepEqual(
      answers.map((res) => res.status),
      [500, 500, 200, 500, 500, 200, 500, 500, 200, 200, 200, 200],
    );
    assert.match(answers[0].body.toString(), /options\.level/);
  });

  it('a chunk Node cannot send throws from res.end before the head goes out, so the app can still answer', async () => {
    // Node's own end checks the chunk before it writes the head; so did Connect's
    // compress (Buffer.byteLength threw first). Writing the head first left nothing to
    // answer with: an empty reply, or a hung one once `ended` was set.
    const ending: Handler = (req, res) => {
      res.setHeader('Content-Type', 'text/plain');
      const recover = (req.url as string).startsWith('/recover');
      try {
        res.end(123 as never);
      } catch (err) {
        if (!recover) throw err;
        res.end('recovered ' + (err as NodeJS.ErrnoException).code);
      }
    };
    // The message is Buffer.byteLength's on Connect, Node's end's here (as without compress).
    const failed = (err: NodeJS.ErrnoException, _req: IncomingMessage, res: ServerResponse, _next: unknown) => {
      res.statusCode = 500;
      res.end('failed: ' + err.code);
    };
    const requests = ['/recover', '/throw'].flatMap((path) =>
      ['gzip', 'identity'].map((encoding) => ({ path, headers: { 'accept-encoding': encoding } }) as RequestSpec),
    );
    for (const options of [{}, { threshold: 0 }]) {
      const answers = await assertSameAsConnect(
        [connect.compress(options), ending, failed as Handler],
        [compress(options), ending, failed as Handler],
        requests,
      );
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [200, 200, 500, 500],
      );
    }
  });

  it('res.write and res.end refuse what Node refuses, before the head, and the response goes on', async () => {
    const bad: Record<string, unknown> = {
      number: 123,
      object: {},
      dataview: new DataView(new ArrayBuffer(4)),
      uint16: new Uint16Array(2),
      null: null,
    };
    const attempts: Handler = (req, res) => {
      res.setHeader('Content-Type', 'text/plain');
      const [, method, kind] = (req.url as string).split('/');
      const thrown: string[] = [];
      try {
        if (method === 'write') res.write(bad[kind] as never);
        else res.end(bad[kind] as never);
      } catch (err) {
        thrown.push((err as NodeJS.ErrnoException).code as string);
      }
      // A Uint8Array other than a Buffer is sent, its length counted as bytes.
      res.end(new Uint8Array(Buffer.from(`${res.headersSent} ${thrown.join()} ${'x'.repeat(2000)}`)));
    };
    // Not `end(null)`: Node's end takes a falsy chunk for none.
    const requests = Object.keys(bad).flatMap((kind) =>
      (kind === 'null' ? ['write'] : ['write', 'end']).map((method) => ({
        path: `/${method}/${kind}`,
        headers: { 'accept-encoding': 'gzip' },
      })),
    );
    const answers = await requestAll([compress({ threshold: 0 }), attempts], requests);
    const texts = answers.map((answer) => {
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['content-encoding'], 'gzip');
      return zlib.gunzipSync(Buffer.from(answer.body, 'latin1')).toString().slice(0, -2001);
    });
    assert.deepEqual(texts, [...Array(8).fill('false ERR_INVALID_ARG_TYPE'), 'false ERR_STREAM_NULL_VALUES']);
  });

  it('threshold, filter and HEAD match Connect 2.30', async () => {
    const requests = [
      { path: '/small', headers: { 'accept-encoding': 'gzip' } },
      { path: '/', headers: { 'accept-encoding': 'gzip' } },
      { path: '/', method: 'HEAD', headers: { 'accept-encoding': 'gzip' } },
    ];
    await assertSameAsConnect([connect.compress({ threshold: 0 }), app], [compress({ threshold: 0 }), app], requests);
    await assertSameAsConnect(
      [connect.compress({ threshold: '10kb' }), app],
      [compress({ threshold: '10kb' }), app],
      requests,
    );
    const never = () => false;
    await assertSameAsConnect([connect.compress({ filter: never }), app], [compress({ filter: never }), app], requests);
  });

  // The callbacks are seen by the app, not on the wire: no recorded answer holds them.
  itWithLiveOracle("calls end's callback and answers a second end as Connect 2.30 does", 'callbacks run', async () => {
    const record =
      (seen: string[]): Handler =>
      (req, res) => {
        res.setHeader('Content-Type', 'text/plain');
        if (req.url === '/twice') {
          res.end(big);
          seen.push(`second end: ${res.end() === res ? 'res' : String(res.end())}`);
          return;
        }
        res.write('hello');
        // After the head, on a response compress leaves as it is: Node's end(callback).
        if (req.url === '/callback') res.end(() => seen.push('callback'));
        else res.end(' world', () => seen.push('chunk and callback'));
      };
    const theirs: string[] = [];
    const ours: string[] = [];
    const requests: RequestSpec[] = [
      { path: '/callback' },
      { path: '/chunk-callback' },
      { path: '/twice', headers: { 'accept-encoding': 'gzip' } },
      { path: '/twice' },
    ];
    await assertSameAsConnect([connect.compress(), record(theirs)], [compress(), record(ours)], requests);
    assert.deepEqual(ours, theirs);
    assert.ok(theirs.includes('callback') && theirs.includes('second end: false'), theirs.join());
  });

  it("calls end's callback once the response is finished, compressed or not", async () => {
    const finished: Record<string, boolean> = {};
    const second: Record<string, unknown> = {};
    const ended: Handler = (req, res) => {
      const kind = req.headers['accept-encoding'] ? 'compressed' : 'plain';
      res.setHeader('Content-Type', 'text/plain');
      res.write(big);
      res.end(() => (finished[kind] = res.writableFinished));
      second[kind] = res.end() === res ? 'res' : false;
    };
    const answers = await requestAll(
      [compress(), ended],
      [{ path: '/', headers: { 'accept-encoding': 'gzip' } }, { path: '/' }],
    );
    assert.deepEqual(
      answers.map((answer) => answer.headers['content-encoding']),
      ['gzip', undefined],
    );
    assert.deepEqual(finished, { compressed: true, plain: true });
    // A second end: false once compress ended the response, Node's own answer otherwise (as Connect's).
    assert.deepEqual(second, { compressed: false, plain: 'res' });
  });

  it("the default filter decides every type of the MIME database as Connect's does, installed today", () => {
    // Connect 2.30's compress asks compressible@2, which reads the newest mime-db 1.x: the
    // one npm installs for it now (1.54, where application/octet-stream is compressible).
    const compressibleDb = require.resolve('mime-db', {
      paths: [
        require.resolve('compressible', {
          paths: [require.resolve('compression', { paths: [require.resolve('connect')] })],
        }),
      ],
    });
    const types = Object.keys(require(compressibleDb) as object);
    assert.ok(types.length > 2000);
    const shapes = ['text/x-custom', 'application/x-custom+json', 'application/x-custom+xml', 'image/x-custom', ''];
    const asked = (filter: (req: IncomingMessage, res: ServerResponse) => boolean, type: string) =>
      filter({} as IncomingMessage, { getHeader: () => type } as unknown as ServerResponse);
    const differing = [...types, ...shapes].filter(
      (type) => asked(compress.filter, type) !== asked(connect.compress.filter, type),
    );
    assert.deepEqual(differing, []);
    assert.equal(asked(compress.filter, 'application/octet-stream'), true);
  });

  it('compress.filter is the default filter, for apps that extend it as Connect 2.30 allowed', async () => {
    assert.equal(typeof compress.filter, 'function');
    assert.equal(compress.length, connect.compress.length);
    // A 3.x app's own filter: never /json, otherwise whatever the default says.
    type Filter = (req: IncomingMessage, res: ServerResponse) => boolean;
    const extend =
      (filter: Filter): Filter =>
      (req, res) =>
        req.url !== '/json' && filter(req, res);
    const requests = paths.map((path) => ({ path, headers: { 'accept-encoding': 'gzip' } }));
    const answers = await assertSameAsConnect(
      [connect.compress({ filter: extend(connect.compress.filter) }), app],
      [compress({ filter: extend(compress.filter) }), app],
      requests,
    );
    assert.equal(answers[paths.indexOf('/')].headers['content-encoding'], 'gzip');
    assert.equal(answers[paths.indexOf('/json')].headers['content-encoding'], undefined);
  });

  it('the body inflates back and 204/304 are untouched', async () => {
    const [res] = await assertSameAsConnect(
      [connect.compress(), app],
      [compress(), app],
      [{ path: '/', headers: { 'accept-encoding': 'gzip' } }],
    );
    assert.equal(res.headers['content-encoding'], 'gzip');
    assert.equal(res.headers.vary, 'Accept-Encoding');
    assert.equal(zlib.gunzipSync(Buffer.from(res.body, 'latin1')).toString(), big);
    const empty: Handler = (req, res) => {
      res.statusCode = req.url === '/204' ? 204 : 304;
      res.setHeader('Content-Type', 'text/html');
      res.end();
    };
    // 3.x with threshold 0 labelled these bodiless answers Content-Encoding: gzip.
    const answers = await requestAll(
      [compress({ threshold: 0 }), empty],
      [
        { path: '/204', headers: { 'accept-encoding': 'gzip' } },
        { path: '/304', headers: { 'accept-encoding': 'gzip' } },
      ],
    );
    for (const answer of answers) {
      assert.equal(answer.headers['content-encoding'], undefined);
      assert.equal(answer.body, '');
    }
  });

  it("'drain' listeners follow the compressor, whether added before or after the first write", async () => {
    // Each write is larger than the compressor's buffer, so write() asks the writer to wait.
    const piece = Buffer.alloc(64 * 1024);
    for (let i = 0; i < piece.length; i++) piece[i] = (i * 7919) % 251;
    const count = 6;
    let early = 0;
    const pump: Handler = (_req, res) => {
      res.setHeader('Content-Type', 'text/plain');
      // Registered before the head: compression is not decided yet.
      res.on('drain', () => early++);
      let sent = 0;
      const more = () => {
        while (sent < count) {
          sent++;
          // Registered after: goes straight to the compressor (or to the socket when not compressing).
          if (!res.write(piece)) return res.once('drain', more);
        }
        res.end();
      };
      more();
    };
    const expected = Buffer.concat(Array.from({ length: count }, () => piece));
    early = 0;
    const [gzip] = await requestAll([compress(), pump], [{ path: '/', headers: { 'accept-encoding': 'gzip' } }]);
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.ok(zlib.gunzipSync(Buffer.from(gzip.body, 'latin1')).equals(expected));
    assert.ok(early > 0, 'the early listener heard the compressor drain');
    const [plain] = await requestAll([compress(), pump], [{ path: '/', headers: { 'accept-encoding': 'identity' } }]);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(Buffer.from(plain.body, 'latin1').equals(expected));
  });

  it("a writer that waits with once(res, 'drain') leaves no listener behind on the compressor", async () => {
    const gzips = captureGzips();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const piece = Buffer.alloc(64 * 1024, 'abcdefgh');
    let waits = 0;
    const pump: Handler = async (_req, res) => {
      res.setHeader('Content-Type', 'text/plain');
      for (let i = 0; i < 40; i++) {
        if (!res.write(piece)) {
          waits++;
          await once(res, 'drain');
        }
      }
      res.end();
    };
    try {
      const [answer] = await requestAll([compress(), pump], [{ path: '/', headers: { 'accept-encoding': 'gzip' } }]);
      assert.equal(zlib.gunzipSync(Buffer.from(answer.body, 'latin1')).length, 40 * piece.length);
    } finally {
      process.off('warning', onWarning);
      gzips.restore();
    }
    assert.ok(waits > 10, `the writer waited ${waits} times`);
    assert.equal(gzips.streams.length, 1);
    assert.equal(gzips.streams[0].listenerCount('drain'), 0);
    assert.deepEqual(
      warnings.map((w) => w.name),
      [],
    );
  });

  it('frees the compressor when the client goes away; later writes are dropped, not buffered', async () => {
    const gzips = captureGzips();
    const piece = Buffer.alloc(64 * 1024, 'abcdefgh');
    let afterClose: (() => void) | undefined;
    const written = new Promise<void>((resolve) => (afterClose = resolve));
    // Writes without watching back-pressure (a periodic push), and goes on after the client left.
    const pusher: Handler = (_req, res) => {
      res.setHeader('Content-Type', 'text/plain');
      res.write(piece);
      res.on('close', () => {
        for (let i = 0; i < 20; i++) res.write(piece);
        res.end();
        afterClose!();
      });
    };
    try {
      await withServer(chain([compress(), pusher]), async (port) => {
        await new Promise<void>((resolve, reject) => {
          const req = http.get(
            { host: '127.0.0.1', port, path: '/', agent: false, headers: { 'accept-encoding': 'gzip' } },
            (res) => res.once('data', () => req.destroy()),
          );
          req.on('close', resolve);
          req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? resolve() : reject(err)));
        });
        await written;
      });
    } finally {
      gzips.restore();
    }
    assert.equal(gzips.streams.length, 1);
    assert.equal(gzips.streams[0].destroyed, true);
    assert.equal(gzips.streams[0].writableLength, 0);
  });
});

describe('compress over HTTP/2', () => {
  it('a body ended in one call reaches the client, inline and on the thread pool, as a streamed one does', async () => {
    // Node's HTTP/2 response writes end(chunk)'s chunk through this.write, which is
    // compress's by then: the compressed body was dropped and the client got none.
    const app = webapp();
    app.use(compress());
    const inline = 'inline '.repeat(700);
    const pooled = 'pooled '.repeat(6000);
    app.get('/inline', (_req, res) => res.send(inline));
    app.get('/pooled', (_req, res) => res.type('text').end(Buffer.from(pooled)));
    app.get('/streamed', (_req, res) => {
      res.type('text');
      res.write(inline);
      res.end(inline);
    });
    const server = http2.createServer(app as unknown as (req: unknown, res: unknown) => void);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const get = (path: string) =>
        new Promise<{ encoding: unknown; body: string }>((resolve, reject) => {
          const stream = client.request({ ':path': path, 'accept-encoding': 'gzip' });
          const chunks: Buffer[] = [];
          let encoding: unknown;
          stream.on('response', (headers) => (encoding = headers['content-encoding']));
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            try {
              resolve({ encoding, body: zlib.gunzipSync(Buffer.concat(chunks)).toString() });
            } catch (err) {
              reject(err);
            }
          });
          stream.on('error', reject);
        });
      assert.deepEqual(await get('/inline'), { encoding: 'gzip', body: inline });
      assert.deepEqual(await get('/pooled'), { encoding: 'gzip', body: pooled });
      assert.deepEqual(await get('/streamed'), { encoding: 'gzip', body: inline + inline });
    } finally {
      client.close();
      server.close();
    }
  });
});

/** Captures the gzip streams compress() creates (Node's `createGzip` is read-only but configurable). */
function captureGzips(): { streams: zlib.Gzip[]; restore(): void } {
  const streams: zlib.Gzip[] = [];
  const own = Object.getOwnPropertyDescriptor(zlib, 'createGzip')!;
  const original = zlib.createGzip;
  Object.defineProperty(zlib, 'createGzip', {
    ...own,
    value: (options?: zlib.ZlibOptions) => {
      const stream = original(options);
      streams.push(stream);
      return stream;
    },
  });
  return { streams, restore: () => Object.defineProperty(zlib, 'createGzip', own) };
}

describe('compress over a file whose head Node refuses', () => {
  it('a file over 64 KB with a status Node refuses: the error goes to the callback, the server goes on', async () => {
    // static's stream makes the head before its first write and destroys the response
    // when Node refuses it; compress's write then made the head again, and that second
    // throw, from the stream's 'data' event, ended the process on Node 20.
    const dir = mkdtempSync(join(tmpdir(), 'webapp-compress-'));
    const file = join(dir, 'large.txt');
    writeFileSync(file, 'x'.repeat(200 * 1024));
    const app = webapp();
    app.set('env', 'test');
    const seen: string[] = [];
    app.use(compress());
    app.get('/file', (req, res) =>
      res.status(Number(req.query.code) || 200).sendFile(file, (err?: NodeJS.ErrnoException) => {
        seen.push(err ? String(err.code) : 'sent');
      }),
    );
    app.get('/ok', (_req, res) => res.send('still serving'));
    const server = http.createServer(app);
    const port = await listen(server);
    try {
      for (const encoding of ['gzip', 'identity']) {
        const answer = await exchange(
          port,
          'GET /file?code=1000 HTTP/1.1\r\nHost: localhost\r\n' +
            `Accept-Encoding: ${encoding}\r\nConnection: close\r\n\r\n`,
        );
        assert.equal(answer.length, 0, encoding);
      }
      assert.deepEqual(seen, ['ERR_HTTP_INVALID_STATUS_CODE', 'ERR_HTTP_INVALID_STATUS_CODE']);
      const ok = await fetch(`http://127.0.0.1:${port}/ok`);
      assert.equal(await ok.text(), 'still serving');
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('compress: choosing the coding', () => {
  // Connect 2.30's own negotiator, the one its compress asked through accepts 1.2.
  const negotiator05 = require('connect/node_modules/negotiator');

  it('answers as negotiator 0.5 for thousands of generated Accept-Encoding values and each offer compress has', () => {
    const codings = ['gzip', 'GZip', 'deflate', 'identity', 'br', '*', 'x-gzip', ''];
    const parameters = [
      '',
      ';q=1',
      ';q=0',
      ';q=0.5',
      ';q=0.50',
      ';q=.5',
      ';q=abc',
      ';level=1',
      ';level=1;q=0.5',
      ';q=0.5;level=1',
      ';',
    ];
    const offers = [['gzip', 'deflate', 'identity'], ['gzip'], ['gzip', 'identity']];
    let seed = 7;
    const pick = <T>(list: T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return list[seed % list.length];
    };
    for (let n = 0; n < 5000; n++) {
      const entries: string[] = [];
      for (let count = pick([0, 1, 2, 3, 4]); count > 0; count--) entries.push(pick(codings) + pick(parameters));
      const header = entries.join(pick([',', ', ', ' , ']));
      for (const offer of offers) {
        const theirs = new negotiator05({ headers: { 'accept-encoding': header } }).encodings(offer)[0] || false;
        assert.equal(preferredEncoding(header, offer), theirs, `${JSON.stringify(header)} offering ${offer}`);
      }
    }
  });
});
