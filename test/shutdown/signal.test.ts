/**
 * SIGTERM to a process whose server is under webapp.graceful(): the request in
 * flight gets its full answer (with Connection: close), the shutdown hook runs,
 * and the process exits with code 0.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { it } from 'node:test';
import { watchChild } from '../support/child-output';
import { connect, parseResponses } from './connection';

it('SIGTERM drains the request in flight, runs the hook and exits with code 0', { timeout: 30000 }, async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'fixtures/sigterm-server.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const { printed, exited, output } = watchChild(child);
  try {
    const port = Number((await printed(/listening (\d+)/))[1]);
    const client = await connect(port);
    client.socket.write('GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await printed(/entered/);
    child.kill('SIGTERM');
    const [answer] = parseResponses(await client.received);
    assert.equal(answer!.body.toString(), 'finished after SIGTERM');
    assert.equal(answer!.headers.connection, 'close');
    const [code, signal] = await exited;
    assert.deepEqual({ code, signal }, { code: 0, signal: null });
    assert.match(output(), /shutdown hook ran/);
  } finally {
    child.kill('SIGKILL');
  }
});

it(
  'SIGTERM during a drain already begun waits for it: the request in flight is answered',
  { timeout: 30000 },
  async () => {
    // cluster's worker.disconnect(), or the app's own close(), began the drain; a signal then
    // (systemd stopping the service mid-deploy) ran the hooks and exited at once.
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'fixtures/sigterm-server.ts')], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, CLOSE_FIRST: '1' },
    });
    const { printed, exited, output } = watchChild(child);
    try {
      const port = Number((await printed(/listening (\d+)/))[1]);
      const client = await connect(port);
      client.socket.write('GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await printed(/entered/);
      child.kill('SIGTERM');
      const [answer] = parseResponses(await client.received);
      assert.equal(answer?.body.toString(), 'finished after SIGTERM');
      assert.deepEqual(await exited, [0, null]);
      assert.match(output(), /shutdown hook ran/);
    } finally {
      child.kill('SIGKILL');
    }
  },
);

it('at the deadline, the cut responses close before the shutdown hook runs', { timeout: 30000 }, async () => {
  // Their `close` handlers end spans and release what the app holds; the hook flushes
  // telemetry. The exit came between the server's close and the connections'.
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'fixtures/sigterm-server.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, TIMEOUT: '200' },
  });
  const { printed, exited, output } = watchChild(child);
  try {
    const port = Number((await printed(/listening (\d+)/))[1]);
    const client = await connect(port);
    client.socket.write('GET /hang HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await printed(/entered/);
    child.kill('SIGTERM');
    assert.deepEqual(await exited, [0, null]);
    assert.deepEqual(output().split('\n').slice(-3), ['response closed', 'shutdown hook ran', '']);
  } finally {
    child.kill('SIGKILL');
  }
});

it('a failing shutdown hook makes the exit code 1', { timeout: 30000 }, async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'fixtures/sigterm-server.ts')], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, HOOK_FAILS: '1' },
  });
  const { printed, exited } = watchChild(child);
  try {
    await printed(/listening/);
    child.kill('SIGTERM');
    assert.deepEqual(await exited, [1, null]);
  } finally {
    child.kill('SIGKILL');
  }
});
