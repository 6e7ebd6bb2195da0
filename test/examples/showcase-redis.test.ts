/**
 * With REDIS_URL set, the showcase keeps its sessions in Redis (connect-redis): they are
 * stored under the app's prefix and outlive a restart of the app.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import { startExample, type RunningExample } from '../support/example-server';
import { startRedis, type RedisServer } from '../support/redis-server';
import { Visitor, flashes } from './showcase-client';

const redisInstalled = spawnSync('redis-server', ['--version']).status === 0;

describe('showcase sessions in Redis', { skip: redisInstalled ? false : 'redis-server is not installed' }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'showcase-redis-'));
  let redis: RedisServer;
  let example: RunningExample | undefined;

  before(async () => {
    redis = await startRedis();
  });

  after(async () => {
    example?.stop();
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores the session under showcase:sess: and keeps it across an app restart', async () => {
    const env = { DATA_DIR: dataDir, SESSION_SECRET: 'redis test', REDIS_URL: redis.url };
    example = await startExample('examples/showcase/server.js', env);
    const visitor = new Visitor(example.base);
    await visitor.signUp('ada');

    const client = createClient({ url: redis.url });
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
