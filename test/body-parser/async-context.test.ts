import assert from 'node:assert/strict';
import type http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import { describe, it } from 'node:test';
import express from 'express';
import webapp from '../../src/index';
import bodyParser from '../../src/body-parser/index';
import {
  als,
  assertStoreKept,
  enterStore,
  storeErrorProbe,
  storeProbe,
  type StoreCase,
} from '../support/async-context';
import { withServer, type RequestSpec } from '../support/raw-http';

/**
 * A store entered before a body parser must still be the store after it: in the
 * next middleware (success) and in the error handler (parse error, over the
 * limit, bad charset, failed verify, broken gzip), as body-parser 1.20.3+ keeps it.
 */

type Parser = (req: http.IncomingMessage, res: http.ServerResponse, next: (err?: unknown) => void) => void;

type Case = StoreCase;

const gzip = (text: string) => zlib.gzipSync(Buffer.from(text));
const post = (type: string, body: string | Buffer, headers: Record<string, string> = {}): RequestSpec => ({
  method: 'POST',
  path: '/',
  headers: { 'content-type': type, ...headers },
  body,
});

function casesFor(kind: 'json' | 'raw' | 'text' | 'urlencoded'): Case[] {
  const type = {
    json: 'application/json',
    raw: 'application/octet-stream',
    text: 'text/plain',
    urlencoded: 'application/x-www-form-urlencoded',
  }[kind];
  const good = kind === 'json' ? '{"a":1}' : 'a=1';
  const cases: Case[] = [
    { name: 'success', request: post(type, good), status: 200 },
    { name: 'success, gzip', request: post(type, gzip(good), { 'content-encoding': 'gzip' }), status: 200 },
    { name: 'over the limit (announced)', request: post(type, 'x'.repeat(200)), status: 413 },
    {
      name: 'over the limit (chunked)',
      request: post(type, 'x'.repeat(200), { 'transfer-encoding': 'chunked' }),
      status: 413,
    },
    {
      name: 'over the limit after inflation',
      request: post(type, gzip('x'.repeat(5000)), { 'content-encoding': 'gzip' }),
      status: 413,
    },
    { name: 'broken gzip', request: post(type, 'not gzip at all', { 'content-encoding': 'gzip' }), status: 400 },
    { name: 'verify throws', request: post(type, 'reject'), status: 403 },
    { name: 'no body', request: { method: 'GET', path: '/' }, status: 200 },
  ];
  if (kind === 'json') cases.push({ name: 'parse error', request: post(type, '{nope'), status: 400 });
  if (kind === 'urlencoded')
    cases.push({ name: 'too many parameters', request: post(type, 'a=1&b=2&c=3'), status: 413 });
  if (kind === 'text')
    cases.push({ name: 'unsupported charset', request: post('text/plain; charset=x-bogus', 'abc'), status: 415 });
  return cases;
}

const options = {
  limit: 100,
  parameterLimit: 2,
  verify: (_req: unknown, _res: unknown, buf: Buffer) => {
    if (buf.toString() === 'reject') throw new Error('rejected');
  },
};

function makeParser(module: typeof bodyParser, kind: 'json' | 'raw' | 'text' | 'urlencoded'): Parser {
  return (module[kind] as (o: object) => Parser)(options);
}

function app(parser: Parser): http.RequestListener {
  const application = webapp();
  application.use(enterStore, parser, storeProbe, storeErrorProbe);
  return application;
}

function bare(parser: Parser): http.RequestListener {
  return (req, res) => {
    als.run(String(req.headers['x-id']), () => {
      parser(req, res, (err?: unknown) =>
        err ? storeErrorProbe(err, req, res, () => undefined) : storeProbe(req, res),
      );
    });
  };
}

describe('body parsers keep the AsyncLocalStorage store', () => {
  for (const kind of ['json', 'raw', 'text', 'urlencoded'] as const) {
    it(`webapp.${kind}(): next middleware and error handlers see the store`, async () => {
      await assertStoreKept(app(makeParser(webapp as unknown as typeof bodyParser, kind)), casesFor(kind));
    });
    it(`webapp/body-parser ${kind}() on a bare server`, async () => {
      await assertStoreKept(bare(makeParser(bodyParser, kind)), casesFor(kind));
    });
  }
});

describe("the request's store, for a body that comes after the headers (as from real clients)", () => {
  it("is the store of verify, and of the final handler's answer to an unread body, as on express@4", async () => {
    const seenBy = async (framework: typeof express) => {
      const seen: string[] = [];
      let reached = () => {};
      const app = framework();
      app.use(enterStore);
      app.use((req, res, next) => {
        res.on('finish', () => seen.push(`${req.url} finish: ${als.getStore()}`));
        reached();
        next();
      });
      app.use(framework.text({ verify: () => void seen.push(`verify: ${als.getStore()}`) }));
      app.post('/text', (_req, res) => res.send('ok'));
      await withServer(app, async (port) => {
        // A text body the parser reads; an XML one nothing reads (the final 404 waits for it).
        for (const [path, type] of [
          ['/text', 'text/plain'],
          ['/missing', 'application/xml'],
        ]) {
          const atParser = new Promise<void>((resolve) => (reached = resolve));
          await new Promise<void>((resolve, reject) => {
            const socket = net.connect(port, '127.0.0.1', async () => {
              socket.write(
                `POST ${path} HTTP/1.1\r\nHost: x\r\nX-Id: ${path}\r\nContent-Type: ${type}\r\n` +
                  'Content-Length: 5\r\nConnection: close\r\n\r\n',
              );
              // The body once the request is in the app: a later packet than the headers.
              await atParser;
              socket.write('hello');
            });
            socket.on('data', () => undefined);
            socket.on('close', () => resolve());
            socket.on('error', reject);
          });
        }
      });
      return seen;
    };
    const expected = ['verify: /text', '/text finish: /text', '/missing finish: /missing'];
    assert.deepEqual(await seenBy(express), expected);
    assert.deepEqual(await seenBy(webapp as unknown as typeof express), expected);
  });
});
