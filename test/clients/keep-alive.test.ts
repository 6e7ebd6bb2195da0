/**
 * Connections that outlive a request, against the same app on express@4 and on
 * webapp: Node's http.Agent with keep-alive sending many requests one after the
 * other on one socket (error answers, a 413, a 400 from a body parser, unread
 * bodies, Expect: 100-continue), and raw sockets as load balancers and old clients
 * use them (pipelining with a bad request among good ones, HTTP/1.0 with and
 * without keep-alive, chunked bodies with trailers, a client that ends its side
 * after the request). Each connection must end up in the same state: answered
 * byte for byte alike, closed or reused alike.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { comparableTranscript, createFiles, onBoth, perRequest, rawExchange, type Files, type Side } from './support';

let files: Files;
before(() => {
  files = createFiles();
});
after(() => files.cleanup());

interface AgentRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the body only on the server's 100 Continue, as a client that asks for it does. */
  expect?: boolean;
}

/** The answer as the agent's user sees it, and which of the agent's sockets carried it. */
function agentRequest(
  port: number,
  agent: http.Agent,
  spec: AgentRequest,
  sockets: Map<unknown, number>,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...spec.headers, ...(spec.expect ? { expect: '100-continue' } : {}) };
    if (spec.body !== undefined && !headers['transfer-encoding'])
      headers['content-length'] = String(Buffer.byteLength(spec.body));
    const req = http.request({
      host: '127.0.0.1',
      port,
      agent,
      method: spec.method ?? 'GET',
      path: spec.path,
      headers,
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        if (!sockets.has(req.socket)) sockets.set(req.socket, sockets.size);
        const body = Buffer.concat(chunks).toString('latin1');
        resolve(
          `${spec.method ?? 'GET'} ${spec.path} -> ${res.statusCode} on socket ${sockets.get(req.socket)}, ` +
            `connection: ${res.headers.connection}, ${body.length} bytes ${JSON.stringify(body.slice(0, 40))}`,
        );
      });
    });
    req.on('error', reject);
    if (spec.expect) req.on('continue', () => req.end(spec.body));
    else req.end(spec.body);
  });
}

const json = { 'content-type': 'application/json' };
const oneMegabyte = Buffer.alloc(1024 * 1024, 'a');

describe('http.Agent keep-alive against express@4 and webapp', () => {
  it('many requests one after the other on one socket: every answer, and the same sockets reused', async () => {
    const requests: AgentRequest[] = [
      { path: '/json' },
      { method: 'POST', path: '/json', headers: json, body: JSON.stringify({ t: 'x'.repeat(3000) }) },
      { path: '/json' },
      { method: 'POST', path: '/json', headers: json, body: '{bad' },
      {
        method: 'POST',
        path: '/json',
        headers: { ...json, 'transfer-encoding': 'chunked' },
        body: '[' + '1,'.repeat(2000) + '1]',
      },
      { method: 'POST', path: '/json', headers: { ...json, 'content-encoding': 'bogus' }, body: '{}' },
      {
        method: 'POST',
        path: '/form',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'a=' + 'b'.repeat(5000),
      },
      { method: 'POST', path: '/json', headers: json, body: oneMegabyte, expect: true },
      { method: 'POST', path: '/json-large', headers: json, body: '{"a":1}', expect: true },
      { method: 'POST', path: '/nothing', body: oneMegabyte },
      { method: 'POST', path: '/static/small.txt', body: oneMegabyte },
      { method: 'GET', path: '/static/small.txt', body: oneMegabyte },
      { path: '/error' },
      { path: '/teapot' },
      { path: '/missing-error' },
      { path: '/static/large.bin', headers: { range: 'bytes=0-9' } },
      { path: '/static/large.bin', headers: { range: 'bytes=99999999-' } },
      { path: '/file/nothing.txt' },
      { path: '/download-nocb/nothing.txt' },
      { path: '/download/medium.bin' },
      { path: '/static' },
      { path: '/redirect' },
      { method: 'HEAD', path: '/file/large.bin' },
      { path: '/json', headers: { connection: 'close' } },
      { path: '/json' },
    ];
    const { express, webapp } = await onBoth(files, async ({ port, log }: Side) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const sockets = new Map<unknown, number>();
      const answers: string[] = [];
      try {
        for (const spec of requests) answers.push(await agentRequest(port, agent, spec, sockets));
      } finally {
        agent.destroy();
      }
      return { answers, log: log.entries };
    });
    assert.deepEqual(webapp, express);
    // The connection the client asked to close is not used again.
    const socketOf = (answer: string) => /on socket (\d+)/.exec(answer)![1];
    assert.match(webapp.answers.at(-2)!, /connection: close/);
    assert.notEqual(socketOf(webapp.answers.at(-1)!), socketOf(webapp.answers.at(-2)!));
  });
});

/** A request's bytes as written on the wire. */
function request(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body = '',
  version = '1.1',
): string {
  // HTTP/1.0 clients send no Host.
  const all = version === '1.1' ? { Host: 'localhost', ...headers } : headers;
  const lines = Object.entries(all).map(([name, value]) => `${name}: ${value}\r\n`);
  return `${method} ${path} HTTP/${version}\r\n${lines.join('')}\r\n${body}`;
}

const closing = request('GET', '/json', { Connection: 'close' });

/** Writes `pieces` at once on one connection; what came back, and whether the server closed the connection. */
type ExchangeOptions = { endAfterWrite?: boolean; waitFor?: string[]; requestsClosed?: boolean };

async function exchangeOnBoth(pieces: string[], options: ExchangeOptions = {}) {
  return onBoth(files, async ({ port, log, gate }: Side) => {
    const { received, closedByServer } = await rawExchange(port, pieces, options);
    for (const entry of options.waitFor ?? []) await log.seen(entry);
    if (options.requestsClosed) await log.requestsClosed();
    gate.open();
    return { received: comparableTranscript(received, port), closedByServer, log: perRequest(log.entries) };
  });
}

async function assertSameExchange(pieces: string[], options: ExchangeOptions = {}) {
  const { express, webapp } = await exchangeOnBoth(pieces, options);
  assert.deepEqual(webapp, express);
  return webapp;
}

describe('raw connections against express@4 and webapp', () => {
  it('pipelined requests, a body parser error (400, 413) and a 404 among them, answered in order', async () => {
    const run = await assertSameExchange([
      request('GET', '/json') +
        request('POST', '/json', { 'Content-Type': 'application/json', 'Content-Length': '4' }, '{bad') +
        request('GET', '/static/small.txt') +
        request('GET', '/nothing') +
        request('POST', '/json', { 'Content-Type': 'application/json', 'Content-Length': '3000' }, 'x'.repeat(3000)) +
        request('GET', '/file/small.txt') +
        request('GET', '/download/medium.bin') +
        request('HEAD', '/static/small.txt') +
        request('GET', '/error') +
        request('GET', '/stream') +
        closing,
    ]);
    assert.equal(run.received.match(/HTTP\/1\.1 \d{3} /g)?.length, 11);
  });

  it('a request Node cannot parse among pipelined ones: the answers before it, then a 400 and the end', async () => {
    await assertSameExchange([
      // No file among them: on Node 26 the answers queued behind /json never get the
      // connection, and a file sent to one is, on purpose, done with the connection's error
      // on webapp, where Express never calls back (docs/migrating-from-express-4.md).
      request('GET', '/json') + request('GET', '/send') + 'NOT HTTP AT ALL\r\n\r\n' + closing,
    ]);
    await assertSameExchange([
      request('GET', '/json') +
        request(
          'POST',
          '/json',
          { 'Content-Type': 'application/json', 'Content-Length': '2', 'Transfer-Encoding': 'chunked' },
          '{}',
        ) +
        closing,
    ]);
  });

  it('HTTP/1.0 without keep-alive, with it, and with a body', async () => {
    await assertSameExchange([request('GET', '/json', {}, '', '1.0') + request('GET', '/json', {}, '', '1.0')]);
    const keepAlive = { Connection: 'keep-alive' };
    await assertSameExchange(
      [
        request('GET', '/json', keepAlive, '', '1.0') +
          request('GET', '/static/small.txt', keepAlive, '', '1.0') +
          request('GET', '/error', keepAlive, '', '1.0') +
          request(
            'POST',
            '/json',
            { ...keepAlive, 'Content-Type': 'application/json', 'Content-Length': '4' },
            '{bad',
            '1.0',
          ) +
          request(
            'POST',
            '/json',
            { ...keepAlive, 'Content-Type': 'application/json', 'Content-Length': '7' },
            '{"a":1}',
            '1.0',
          ) +
          // Unframed by a length, a streamed answer ends with the connection: the request
          // behind it, if read by then, is cut (compared once each server has logged it).
          request('GET', '/stream', keepAlive, '', '1.0') +
          request('GET', '/json', keepAlive, '', '1.0'),
      ],
      { requestsClosed: true },
    );
  });

  it('chunked bodies with trailers: read, refused over the limit, and the connection goes on', async () => {
    const chunked = { 'Transfer-Encoding': 'chunked', Trailer: 'X-Checksum' };
    await assertSameExchange([
      request(
        'POST',
        '/text',
        { ...chunked, 'Content-Type': 'text/plain' },
        '5\r\nhello\r\n6\r\n world\r\n0\r\nX-Checksum: 11\r\n\r\n',
      ) +
        request(
          'POST',
          '/json',
          { ...chunked, 'Content-Type': 'application/json' },
          'bb8\r\n' + 'x'.repeat(3000) + '\r\n0\r\nX-Checksum: 3000\r\n\r\n',
        ) +
        request(
          'POST',
          '/raw',
          { ...chunked, 'Content-Type': 'application/octet-stream' },
          '3\r\nabc\r\n0\r\nX-Checksum: 3\r\n\r\n',
        ) +
        closing,
    ]);
  });

  it('a client that ends its side after the request: answers, errors, bodies, a slow handler', async () => {
    const json = { 'Content-Type': 'application/json' };
    for (const text of [
      request('GET', '/json'),
      request('GET', '/error'),
      request('GET', '/file/medium.bin'),
      request('POST', '/json', { ...json, 'Content-Length': '7' }, '{"a":1}'),
      request('POST', '/json', { ...json, 'Content-Length': '70' }, '{"a":1}'),
      request('POST', '/json', { ...json, 'Content-Length': '7000' }, '{"a":1}'),
      request('GET', '/json') + request('GET', '/static/small.txt'),
    ]) {
      await assertSameExchange([text], { endAfterWrite: true });
    }
    const slow = await assertSameExchange([request('GET', '/slow')], {
      endAfterWrite: true,
      waitFor: ['req close @ GET /slow'],
    });
    assert.equal(slow.closedByServer, true);
  });
});
