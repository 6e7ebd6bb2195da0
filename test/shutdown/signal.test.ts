/**
 * SIGTERM to a process whose server is under webapp.graceful(): the request in
 * flight gets its full answer (with Connection: close), the shutdown hook runs,
 * and the process exits with code 0.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { it } from 'node:test';
import { connect, parseResponses } from './connection';

it('SIGTERM drains the request in flight, runs the hook and exits with code 0', { timeout: 30000 }, async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'fixtures/sigterm-server.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (output += chunk));
  const waitFor = async (pattern: RegExp) => {
    while (!pattern.test(output)) await once(child.stdout, 'data');
    return pattern.exec(output)!;
  };
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
  try {
    const port = Number((await waitFor(/listening (\d+)/))[1]);
    const client = await connect(port);
    client.socket.write('GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await waitFor(/entered/);
    child.kill('SIGTERM');
    const [answer] = parseResponses(await client.received);
    assert.equal(answer!.body.toString(), 'finished after SIGTERM');
    assert.equal(answer!.headers.connection, 'close');
    const [code, signal] = await exited;
    assert.deepEqual({ code, signal }, { code: 0, signal: null });
    if (!child.stdout.closed) await once(child.stdout, 'close');
    assert.match(output, /shutdown hook ran/);
  } finally {
    child.kill('SIGKILL');
  }
});
