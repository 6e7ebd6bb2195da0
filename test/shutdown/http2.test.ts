/**
 * webapp.graceful() on an HTTP/2 server (TLS, allowHTTP1): close() sends
 * GOAWAY to every session, the stream in flight finishes with its whole body,
 * new connections are refused and the server closes.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import webapp = require('../../src/index');
import { refused, signal } from './connection';

let key: Buffer;
let cert: Buffer;
let dir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'webapp-h2-shutdown-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  key = readFileSync(join(dir, 'key.pem'));
  cert = readFileSync(join(dir, 'cert.pem'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

it('HTTP/2 sessions get GOAWAY and their streams in flight complete', { timeout: 15000 }, async () => {
  const entered = signal();
  const release = signal();
  const body = 'h2-'.repeat(100000);
  const app = webapp();
  app.get('/slow', async (_req, res) => {
    entered.resolve();
    await release.promise;
    res.send(body);
  });
  const server = webapp.graceful(http2.createSecureServer({ key, cert, allowHTTP1: true }, app as never), { signals: [] });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const session = http2.connect(`https://localhost:${port}`, { ca: cert });
  const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()));
  const sessionClosed = new Promise<void>((resolve) => session.once('close', resolve));
  const stream = session.request({ ':path': '/slow' });
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    let status = 0;
    const chunks: Buffer[] = [];
    stream.on('response', (headers) => (status = Number(headers[':status'])));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve({ status, text: Buffer.concat(chunks).toString() }));
    stream.on('error', reject);
  });
  stream.end();
  await entered.promise;

  const serverClosed = new Promise<Error | undefined>((resolve) => server.close(resolve));
  await goaway;
  assert.equal(await refused(port), 'ECONNREFUSED');
  release.resolve();
  const answer = await response;
  assert.equal(answer.status, 200);
  assert.equal(answer.text, body);
  await sessionClosed;
  assert.equal(await serverClosed, undefined);
});
