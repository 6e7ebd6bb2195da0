/**
 * The recording and replay of oracle answers (oracle-recording.ts): what a Connect
 * 2.30 app answers through the recording proxy comes back byte for byte from the
 * replay server, without the app; a request never recorded gets a clear 599; and
 * only Connect / Express 3 apps are taken for oracles.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import webapp = require('../../src/index');
import v3 = require('../../src/v3/index');
import { isOracleListener, oracleMode, oracleRunValue, startOracleServer, type Recording } from './oracle-recording';
import { rawRequest, type RequestSpec } from './raw-http';

const connect = require('connect');

const express3 = require('express3');

/** A tiny oracle app: plain Node work only, so it runs on every line and the record mode can be tested anywhere. */
function app(): unknown {
  const server = connect();
  server.use('/chunked', (req: any, res: any) => {
    res.setHeader('Set-Cookie', ['a=1; Path=/', 'b=2; HttpOnly']);
    res.write('first,');
    res.end('second');
  });
  server.use('/echo', (req: any, res: any) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => res.end(`${req.method} ${req.headers['x-n'] ?? ''} ${Buffer.concat(chunks).toString('hex')}`));
  });
  server.use('/drop', (req: any) => req.socket.destroy());
  return server;
}

async function ask(port: number, specs: RequestSpec[]) {
  const out = [];
  for (const spec of specs) out.push(await rawRequest(port, spec).catch((error: Error) => ({ error: error.message })));
  return out;
}

const SPECS: RequestSpec[] = [
  { path: '/chunked' },
  { method: 'POST', path: '/echo', headers: { 'x-n': '1' }, body: Buffer.from([0, 1, 255]) },
  { method: 'POST', path: '/echo', headers: { 'x-n': '2' }, body: Buffer.from([0, 1, 255]) },
  { method: 'HEAD', path: '/chunked' },
  { path: '/drop' },
];

describe('oracle recordings', () => {
  it('replays every recorded answer (status, ordered headers, chunked bodies, HEAD, dropped sockets)', async () => {
    const recording: Recording = { node: process.version, answers: {} };
    const recorder = await startOracleServer(app() as never, { mode: 'record', recording });
    const recorded = await ask(recorder.port, SPECS).finally(recorder.close);
    assert.equal((recorded[0] as { body: string }).body, 'first,second');
    assert.equal(Object.keys(recording.answers).length, SPECS.length);

    const neverCalled = () => assert.fail('the oracle ran during replay');
    const player = await startOracleServer(neverCalled, {
      mode: 'replay',
      recording: JSON.parse(JSON.stringify(recording)),
    });
    const replayed = await ask(player.port, SPECS).finally(player.close);
    const stable = (answers: unknown[]) =>
      answers.map((answer: any) => {
        if (answer.error) return answer;
        const { date, ...headers } = answer.headers;
        return { ...answer, headers, hasDate: Boolean(date) };
      });
    assert.deepEqual(stable(replayed), stable(recorded));
    assert.deepEqual((replayed[0] as { headers: Record<string, unknown> }).headers['set-cookie'], [
      'a=1; Path=/',
      'b=2; HttpOnly',
    ]);
    assert.equal((replayed[0] as { headers: Record<string, unknown> }).headers['transfer-encoding'], 'chunked');
    assert.ok('error' in (replayed[4] as object), 'the dropped connection is dropped again');
  });

  it('answers 599 naming the request for anything not recorded (or recorded fewer times), keeps serving', async () => {
    const recording: Recording = { node: 'v20.0.0', answers: {} };
    const recorder = await startOracleServer(app() as never, { mode: 'record', recording });
    await ask(recorder.port, [SPECS[1]]).finally(recorder.close);
    const player = await startOracleServer(() => assert.fail('no oracle'), { mode: 'replay', recording });
    const [first, again, other, changedHeader] = (await ask(player.port, [
      SPECS[1],
      SPECS[1],
      { path: '/elsewhere' },
      SPECS[2],
    ]).finally(player.close)) as Array<{ status: number; body: string }>;
    assert.equal(first.status, 200);
    for (const answer of [again, other, changedHeader]) {
      assert.equal(answer.status, 599);
      assert.match(
        answer.body,
        /no recorded oracle answer to (POST \/echo|GET \/elsewhere) .*recorded on Node v20\.0\.0.*record-oracles/,
      );
    }
  });

  it("records a run value (a temp path) as a placeholder, replays this run's, with Content-Length moved", async () => {
    const server = connect();
    server.use((req: any, res: any) => {
      const text = `saved in /tmp/upload-ABC123 (${req.method})`;
      res.setHeader('Content-Length', Buffer.byteLength(text));
      res.setHeader('X-Dir', '/tmp/upload-ABC123');
      res.end(req.method === 'HEAD' ? undefined : text);
    });
    const recording: Recording = { node: process.version, answers: {} };
    oracleRunValue('upload dir', '/tmp/upload-ABC123');
    const recorder = await startOracleServer(server, { mode: 'record', recording });
    await ask(recorder.port, [{ path: '/' }, { method: 'HEAD', path: '/' }]).finally(recorder.close);
    assert.doesNotMatch(JSON.stringify(recording), /upload-ABC123/);

    oracleRunValue('upload dir', '/tmp/a-longer-upload-dir');
    const player = await startOracleServer(() => assert.fail('no oracle'), { mode: 'replay', recording });
    const [get, head] = (await ask(player.port, [{ path: '/' }, { method: 'HEAD', path: '/' }]).finally(
      player.close,
    )) as any[];
    assert.equal(get.body, 'saved in /tmp/a-longer-upload-dir (GET)');
    assert.equal(get.headers['content-length'], String(get.body.length));
    assert.equal(get.headers['x-dir'], '/tmp/a-longer-upload-dir');
    // A HEAD answer has no body to swap in: it keeps the recorded length.
    assert.equal(head.headers['content-length'], String('saved in /tmp/upload-ABC123 (HEAD)'.length));
    assert.equal(head.headers['x-dir'], '/tmp/a-longer-upload-dir');
    oracleRunValue('upload dir', 'no such value in any answer');
  });

  it('takes Connect and Express 3 apps for oracles, never webapp, webapp/v3 or a plain listener', () => {
    assert.equal(isOracleListener(connect()), true);
    assert.equal(isOracleListener(express3()), true);
    assert.equal(isOracleListener(webapp()), false);
    assert.equal(isOracleListener(v3()), false);
    assert.equal(
      isOracleListener(() => undefined),
      false,
    );
    assert.equal(isOracleListener(undefined), false);
  });

  it('runs the oracle live on 20 and 22 and replays elsewhere; WEBAPP_ORACLES overrides and is checked', () => {
    const saved = process.env.WEBAPP_ORACLES;
    try {
      delete process.env.WEBAPP_ORACLES;
      const major = Number(process.versions.node.split('.')[0]);
      assert.equal(oracleMode(), [20, 22].includes(major) ? 'live' : 'replay');
      process.env.WEBAPP_ORACLES = 'replay';
      assert.equal(oracleMode(), 'replay');
      process.env.WEBAPP_ORACLES = 'sometimes';
      assert.throws(() => oracleMode(), /WEBAPP_ORACLES must be live, record or replay/);
    } finally {
      if (saved === undefined) delete process.env.WEBAPP_ORACLES;
      else process.env.WEBAPP_ORACLES = saved;
    }
  });
});
