/**
 * With REDIS_URL set, the showcase keeps its sessions in Redis (connect-redis): they are
 * stored under the app's prefix and outlive a restart of the app. Nothing waits for
 * Redis: the app does not start without it, answers 503 at once while it is away (HTML
 * for pages, JSON for the API), and serves again when it is back, without a restart.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import { watchChild } from '../support/child-output';
import { startExample, type RunningExample } from '../support/example-server';
import { freePort, startRedis, type RedisServer } from '../support/redis-server';
import { Visitor, flashes, formData, titleOf, type ApiJson, type Page } from './showcase-client';
import { withoutCoverage } from '../support/without-coverage';

const redisInstalled = spawnSync('redis-server', ['--version']).status === 0;
const skip = redisInstalled ? false : 'redis-server is not installed';
const server = join(__dirname, '../../examples/showcase/server.js');

/**
 * `visitor`'s request, and how many milliseconds its answer took. Given up after 4 s, so
 * a request held until Redis answers fails the test instead of hanging it.
 */
async function timed(visitor: Visitor, path: string, init: RequestInit = {}): Promise<[Page, number]> {
  const started = Date.now();
  const page = await visitor.request(path, { ...init, signal: AbortSignal.timeout(4000) });
  return [page, Date.now() - started];
}

/** The JSON of an API error answer. */
const apiError = (page: Page) => (JSON.parse(page.text) as ApiJson).error;

describe('showcase sessions in Redis', { skip }, () => {
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
    const stored = await Promise.all(
      keys.map(async (key) => ({ data: (await client.get(key))!, ttl: await client.ttl(key) })),
    );
    const signedIn = stored.filter(({ data }) => data.includes('"passport":{"user":1}'));
    // A visitor's session (a form's secret, before any sign-up) is kept a day, not a week.
    await new Visitor(example.base).get('/login');
    const visitors = (await client.keys('showcase:sess:*')).filter((key) => !keys.includes(key));
    assert.equal(visitors.length, 1);
    const visitorTtl = await client.ttl(visitors[0]);
    assert.ok(visitorTtl > 23 * 3600 && visitorTtl <= 24 * 3600, `a visitor's session TTL: ${visitorTtl}`);
    await client.del(visitors[0]);
    assert.equal(signedIn.length, 1);
    assert.ok(signedIn[0].ttl > 6 * 24 * 3600, 'kept for the cookie’s seven days');
    // And the session the sign-up form came with, signed out, holding only its form
    // secret for a minute (lib/auth.js, logInKeepingForms).
    const former = stored.filter((session) => !signedIn.includes(session));
    assert.equal(former.length, 1);
    assert.deepEqual(Object.keys(JSON.parse(former[0].data)).sort(), ['cookie', 'csrfSecret']);
    assert.ok(former[0].ttl > 0 && former[0].ttl <= 60, `former session's TTL: ${former[0].ttl}`);
    await client.quit();

    example.stop();
    example = await startExample('examples/showcase/server.js', env);
    visitor.base = example.base;
    const notes = await visitor.get('/notes');
    assert.equal(notes.status, 200, 'still signed in after the restart');
    assert.deepEqual(flashes(notes.text), ['Welcome, ada! Your account is ready.']);
  });

  it('creates one note from a new-note form sent twice at once, sessions in Redis', async () => {
    // Each request works on its own copy of the session: the claim is kept with the note.
    const visitor = new Visitor(example!.base);
    await visitor.signUp('twice');
    const fields = { ...(await visitor.hiddenFields('/notes/new')), title: 'Once' };
    const answers = await Promise.all(
      [1, 2].map(() => visitor.request('/notes', { method: 'POST', body: formData(fields) })),
    );
    assert.deepEqual(
      answers.map((page) => [page.status, page.location]),
      [
        [302, answers[0].location],
        [302, answers[0].location],
      ],
    );
    assert.equal((await visitor.api('GET', '/api/notes')).json.total, 1);
  });
});

describe('showcase with a REDIS_URL that is not a Redis URL', () => {
  for (const [url, reason] of [
    ['notaurl', 'REDIS_URL is not a valid Redis URL: Invalid URL'],
    ['redis://:s3cret@bad host:1', 'REDIS_URL is not a valid Redis URL: Invalid URL'],
    ['http://:s3cret@localhost:1', 'REDIS_URL http://:***@localhost:1/ is not a valid Redis URL: Protocol - http:'],
  ]) {
    it(`says so in one line, without the password, and exits with code 1: ${url}`, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'showcase-bad-redis-url-'));
      const child = spawn(process.execPath, [server], {
        env: withoutCoverage({ ...process.env, PORT: '0', DATA_DIR: dataDir, SESSION_SECRET: 'x', REDIS_URL: url }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const watched = watchChild(child, { stderr: true });
      const limit = setTimeout(() => child.kill('SIGKILL'), 15_000);
      try {
        const [code, signal] = await watched.exited;
        assert.deepEqual([code, signal], [1, null], `it exited by itself; it printed:\n${watched.output()}`);
        const lines = watched.output().trim().split('\n');
        assert.equal(lines.length, 1, watched.output());
        assert.ok(lines[0].startsWith(`notes showcase (webapp) not started: ${reason}`), lines[0]);
        assert.doesNotMatch(watched.output(), /s3cret/);
      } finally {
        clearTimeout(limit);
        child.kill();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }
});

describe('showcase without Redis', { skip }, () => {
  it('does not start when Redis cannot be reached: says so and exits with code 1 within a few seconds', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'showcase-no-redis-'));
    // A port nothing listens on.
    const url = `redis://127.0.0.1:${await freePort()}`;
    const started = Date.now();
    const child = spawn(process.execPath, [server], {
      env: withoutCoverage({ ...process.env, PORT: '0', DATA_DIR: dataDir, SESSION_SECRET: 'x', REDIS_URL: url }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const watched = watchChild(child, { stderr: true });
    const limit = setTimeout(() => child.kill('SIGKILL'), 15_000);
    try {
      const [code, signal] = await watched.exited;
      assert.deepEqual([code, signal], [1, null], `it exited by itself; it printed:\n${watched.output()}`);
      // Three seconds of connection attempts, and the time Node takes to load the app.
      assert.ok(Date.now() - started < 10_000, `exited after ${Date.now() - started} ms`);
      assert.ok(watched.output().includes(`not started: cannot reach Redis at ${url} within 3 s`), watched.output());
      assert.doesNotMatch(watched.output(), /on http:\/\/localhost/, 'it never listened');
    } finally {
      clearTimeout(limit);
      child.kill();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

for (const framework of ['webapp', 'express']) {
  describe(`showcase on ${framework} while Redis is away`, { skip }, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'showcase-redis-outage-'));
    let redis: RedisServer;
    let example: RunningExample;
    let member: Visitor;

    before(async () => {
      redis = await startRedis();
      example = await startExample('examples/showcase/server.js', {
        SHOWCASE_FRAMEWORK: framework,
        DATA_DIR: dataDir,
        SESSION_SECRET: 'outage',
        REDIS_URL: redis.url,
      });
      member = new Visitor(example.base);
      await member.signUp('ada');
    });

    after(async () => {
      example?.stop();
      await redis?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('answers pages and the API with 503 at once when Redis has gone', async () => {
      await redis.stop();
      const [notes, notesMs] = await timed(member, '/notes');
      assert.equal(notes.status, 503);
      assert.ok(notesMs < 1000, `answered after ${notesMs} ms`);
      assert.equal(titleOf(notes.text), 'Service unavailable');
      assert.match(notes.text, /the session store cannot be reached/);
      assert.match(notes.headers.get('content-type')!, /^text\/html/);

      const [api, apiMs] = await timed(member, '/api/notes');
      assert.equal(api.status, 503);
      assert.ok(apiMs < 1000, `answered after ${apiMs} ms`);
      assert.equal(apiError(api)?.status, 503);
      assert.equal(apiError(api)?.code, 'session_unavailable');
      assert.match(apiError(api)!.message, /the session store cannot be reached/);

      // A visitor without a session: the login form would need one for its CSRF token.
      const [login, loginMs] = await timed(new Visitor(example.base), '/login');
      assert.equal(login.status, 503);
      assert.ok(loginMs < 1000, `answered after ${loginMs} ms`);
      assert.equal(login.headers.get('set-cookie'), null, 'no cookie for a session that cannot be stored');
      const [posted] = await timed(member, '/logout', { method: 'POST', body: new URLSearchParams({}) });
      assert.equal(posted.status, 503);
      // What needs no session is still served.
      assert.equal((await fetch(example.base + '/assets/style.css')).status, 200);
    });

    it('serves again once Redis is back, without a restart', async () => {
      await redis.start();
      // The client reconnects within its backoff (about 2 s at most between attempts).
      const deadline = Date.now() + 15_000;
      let notes: Page;
      do {
        await new Promise((resolve) => setTimeout(resolve, 200));
        [notes] = await timed(member, '/notes');
      } while (notes.status === 503 && Date.now() < deadline);
      // Redis came back empty (no persistence here): the session is gone, the member logs in again.
      assert.equal(notes.status, 302);
      assert.equal(notes.location, '/login');
      assert.equal((await member.logIn('ada')).location, '/notes');
      assert.equal((await member.get('/notes')).status, 200);
      assert.equal((await member.api('GET', '/api/notes')).status, 200);
    });

    it('answers 503 within a second when Redis stops answering, and serves again when it answers', async () => {
      redis.pause();
      try {
        const [notes, ms] = await timed(member, '/notes');
        assert.equal(notes.status, 503);
        assert.ok(ms < 2500, `answered after ${ms} ms`);
        assert.equal(titleOf(notes.text), 'Service unavailable');
        const [api] = await timed(member, '/api/notes');
        assert.equal(apiError(api)?.code, 'session_unavailable');
      } finally {
        redis.resume();
      }
      assert.equal((await timed(member, '/notes'))[0].status, 200);
    });
  });
}
