/**
 * With REDIS_URL set, the showcase keeps its sessions in Redis (connect-redis): they are
 * stored under the app's prefix and outlive a restart of the app.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import { startExample, type RunningExample } from '../support/example-server';
import { Visitor, flashes } from './showcase-client';

const redisInstalled = spawnSync('redis-server', ['--version']).status === 0;

/** A port the OS just handed out and took back, for redis-server to listen on. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('showcase sessions in Redis', { skip: redisInstalled ? false : 'redis-server is not installed' }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'showcase-redis-'));
  let redis: ChildProcess;
  let redisUrl: string;
  let example: RunningExample;

  before(async () => {
    const port = await freePort();
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    redisUrl = `redis://127.0.0.1:${port}`;
    const client = createClient({ url: redisUrl });
    // redis-server needs a moment to listen: retry the first connection, bounded.
    for (let attempt = 0; ; attempt++) {
      try {
        await client.connect();
        break;
      } catch (err) {
        if (attempt === 50) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    await client.quit();
  });

  after(() => {
    example?.stop();
    redis?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores the session under showcase:sess: and keeps it across an app restart', async () => {
    const env = { DATA_DIR: dataDir, SESSION_SECRET: 'redis test', REDIS_URL: redisUrl };
    example = await startExample('examples/showcase/server.js', env);
    const visitor = new Visitor(example.base);
    await visitor.signUp('ada');

    const client = createClient({ url: redisUrl });
    await client.connect();
    const keys = await client.keys('showcase:sess:*');
    assert.equal(keys.length, 1);
    assert.match((await client.get(keys[0]))!, /"passport":\{"user":1\}/);
    await client.quit();

    example.stop();
    example = await startExample('examples/showcase/server.js', env);
    visitor.base = example.base;
    const notes = await visitor.get('/notes');
    assert.equal(notes.status, 200, 'still signed in after the restart');
    assert.deepEqual(flashes(notes.text), ['Welcome, ada! Your account is ready.']);
  });
});
