/**
 * Cold start: `require('webapp')` and a first request load neither node:crypto
 * (a short body's ETag is hashed in JavaScript), the static
 * server, the body parsers, the query-string parser, the MIME database and
 * negotiation packages, nor the response methods and request helpers a plain
 * `res.send` does not use (redirects, files, format, cookies, negotiation,
 * `req.is`, `req.range`, the 404 page); the export's members for them load on
 * first read and are then the very functions of their modules, and the methods
 * load on first call. Tested on the built output, in a fresh process, because
 * module caches are per process. The modules `require('webapp')` loads are bundled
 * into dist/cjs/core.js (scripts/bundle-core.mjs): none of the lazy ones may be among
 * them, and no module may be loaded both from there and from a file.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { before, describe, it } from 'node:test';
import { ensureBuilt } from '../support/scratch-project';
import { withoutCoverage } from '../support/without-coverage';

const etag: (entity: string, options: { weak: boolean }) => string = require('etag');
const signCookie: (value: string, secret: string) => string = require('cookie-signature').sign;

const root = resolve(__dirname, '../..');
const entry = resolve(root, 'dist/cjs/index.js');
const coreBundle = resolve(root, 'dist/cjs/core.js');

/**
 * Runs `source` in a new Node process; its last line of output is JSON. The source
 * goes in on stdin: `node -e` loads node:crypto before running it.
 */
function runScript(source: string): Record<string, unknown> {
  const out = execFileSync(process.execPath, ['-'], {
    input: source,
    cwd: root,
    encoding: 'utf8',
    env: withoutCoverage({ ...process.env, NODE_ENV: 'production' }),
  });
  return JSON.parse(out.trim().split('\n').pop()!);
}

const NOT_BEFORE_USE = [
  '/body-parser/',
  '/static/',
  '/querystring/',
  '/mime-db/',
  '/mime-types/',
  '/negotiator/',
  '/proxy-addr/',
  '/node_modules/cookie/',
  // Loaded for the first pattern with more than text and `/:params` (router/path-pattern.ts).
  '/node_modules/path-to-regexp/',
  '/response/cookies.js',
  '/response/files.js',
  '/response/format.js',
  '/response/redirect.js',
  '/http/content-disposition.js',
  '/http/final-handler.js',
  '/http/negotiation.js',
  '/http/range-parser.js',
  '/http/type-is.js',
  '/http/on-finished.js',
  '/tracing/layer.js',
  '/tracing/request.js',
];

before(ensureBuilt);

describe('lazy loading', () => {
  it('serves a first request without loading what it does not need', () => {
    const result = runScript(`
      const http = require('node:http');
      const cryptoLoaded = () => process.moduleLoadList.includes('NativeModule crypto');
      const webapp = require(${JSON.stringify(entry)});
      const app = webapp();
      app.get('/', (req, res) => res.send('hello'));
      app.get('/long', (req, res) => res.send('x'.repeat(56)));
      const get = (path) => new Promise((resolve) => {
        http.get({ host: '127.0.0.1', port: server.address().port, path }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode, body, etag: res.headers.etag }));
        });
      });
      const server = app.listen(0, '127.0.0.1', async () => {
        const first = await get('/');
        const loaded = Object.keys(require.cache);
        const cryptoAfterFirst = cryptoLoaded();
        const long = await get('/long');
        server.close();
        console.log(JSON.stringify({ first, loaded, cryptoAfterFirst, long, cryptoAfterLong: cryptoLoaded() }));
      });
    `);
    type Answer = { status: number; body: string; etag: string };
    const first = result.first as Answer;
    assert.equal(first.status, 200);
    assert.equal(first.body, 'hello');
    assert.equal(first.etag, etag('hello', { weak: true }));
    const loaded = result.loaded as string[];
    for (const part of NOT_BEFORE_USE) {
      assert.deepEqual(
        loaded.filter((file) => file.includes(part)),
        [],
        part + ' was loaded before it was used',
      );
    }
    // A module bundled into core.js runs at `require('webapp')`, wherever it is first used.
    const bundled = require(coreBundle).ids as string[];
    for (const part of NOT_BEFORE_USE) {
      assert.deepEqual(
        bundled.filter((id) => ('/' + id).includes(part)),
        [],
        part + ' is bundled into core.js',
      );
    }
    assert.equal(result.cryptoAfterFirst, false, 'node:crypto was loaded for a short body');
    // A body longer than one SHA-1 block is hashed by node:crypto, loaded then.
    const long = result.long as Answer;
    assert.equal(long.etag, etag('x'.repeat(56), { weak: true }));
    assert.equal(result.cryptoAfterLong, true);
  });

  it("reads two files of the package for require('webapp'), and every module exists once", () => {
    const result = runScript(`
      const packageFiles = () =>
        Object.keys(require.cache)
          .filter((file) => file.startsWith(${JSON.stringify(resolve(root, 'dist') + '/')}))
          .map((file) => file.slice(${JSON.stringify(resolve(root, 'dist/cjs') + '/')}.length));
      const webapp = require(${JSON.stringify(entry)});
      const atRequire = packageFiles();
      // Every entry point and lazy member: each of their modules that the core also needs
      // must be the core's, never a second copy from a file.
      void [webapp.json, webapp.static, webapp.query];
      const middleware = require(${JSON.stringify(resolve(root, 'dist/cjs/middleware/index.js'))});
      for (const name of Object.keys(middleware)) void middleware[name];
      const v3 = require(${JSON.stringify(resolve(root, 'dist/cjs/v3/index.js'))});
      v3.createServer();
      require(${JSON.stringify(resolve(root, 'dist/cjs/otel/index.js'))});
      require(${JSON.stringify(resolve(root, 'dist/cjs/body-parser/index.js'))});
      const core = require(${JSON.stringify(coreBundle)}).ids;
      console.log(JSON.stringify({ atRequire, afterAll: packageFiles(), core }));
    `);
    assert.deepEqual(result.atRequire, ['index.js', 'core.js']);
    const core = result.core as string[];
    assert.ok(core.length > 20 && core.includes('index.js') && core.includes('router/index.js'), String(core));
    const afterAll = result.afterAll as string[];
    assert.ok(afterAll.length > 40, 'the entry points loaded their own modules: ' + afterAll.join(' '));
    assert.deepEqual(
      afterAll.filter((id) => id !== 'index.js' && core.includes(id)),
      [],
      'a bundled module was also loaded from its own file',
    );
    for (const id of core) assert.equal(existsSync(resolve(root, 'dist/cjs', id)), id === 'index.js', id);
  });

  it('keeps every built file ASCII: decoded in bulk, one byte per character in V8', () => {
    // Node decodes a file's UTF-8 in bulk up to its first byte beyond ASCII and byte by
    // byte after it (one in a comment of core.js: 5 million instructions of every start
    // on Node 20); one character above U+00FF (an arrow in a comment) doubles the heap
    // the file's source takes for as long as the process runs: 191 KB more for core.js.
    const built = readdirSync(resolve(root, 'dist'), { recursive: true, encoding: 'utf8' });
    const files = built.filter((file) => /\.(?:js|mjs)$/.test(file));
    assert.ok(files.includes('cjs/core.js'), 'the build is there');
    const wide = files.filter((file) => /[^\u0000-\u007f]/.test(readFileSync(resolve(root, 'dist', file), 'utf8')));
    assert.deepEqual(wide, []);
    const young = runScript(`
      const spaces = () => require('node:v8').getHeapSpaceStatistics();
      const largeYoung = () => spaces().find((s) => s.space_name === 'new_large_object_space').space_used_size;
      const size = require('node:fs').statSync(${JSON.stringify(coreBundle)}).size;
      const before = largeYoung();
      require(${JSON.stringify(coreBundle)});
      console.log(JSON.stringify({ grown: largeYoung() - before, size }));
    `);
    // The source string, at one byte per character (the file is ASCII).
    assert.ok((young.grown as number) < (young.size as number) * 1.1, JSON.stringify(young));
  });

  it('loads json, urlencoded, static and query on first call; each is a plain member, as in Express', () => {
    const result = runScript(`
      const webapp = require(${JSON.stringify(entry)});
      const loaded = (part) => Object.keys(require.cache).some((file) => file.includes(part));
      const descriptor = Object.getOwnPropertyDescriptor(webapp, 'json');
      const plain = (name) => {
        const d = Object.getOwnPropertyDescriptor(webapp, name);
        return 'value' in d && typeof d.value === 'function' && d.writable && d.enumerable && d.configurable;
      };
      const allPlain = ['json', 'raw', 'text', 'urlencoded', 'static', 'query', 'graceful'].every(plain);
      const read = { json: webapp.json, static: webapp.static, query: webapp.query };
      const afterRead = { bodyParser: loaded('/body-parser/'), static: loaded('/static/') };
      const middleware = [webapp.json(), webapp.urlencoded({ extended: true }), webapp.static('.'), webapp.query()];
      const afterCall = { bodyParser: loaded('/body-parser/'), static: loaded('/static/') };
      webapp.text = 'replaced';
      console.log(JSON.stringify({
        plain: allPlain,
        stable: read.json === webapp.json && descriptor.value === webapp.json,
        afterRead, afterCall,
        middleware: middleware.map((fn) => fn.name),
        keys: Object.keys(webapp)
          .filter((k) => ['json', 'raw', 'text', 'urlencoded', 'static', 'query'].includes(k))
          .sort(),
        assigned: webapp.text,
      }));
    `);
    assert.deepEqual(result, {
      plain: true,
      stable: true,
      afterRead: { bodyParser: false, static: false },
      afterCall: { bodyParser: true, static: true },
      middleware: ['jsonParser', 'urlencodedParser', 'serveStatic', 'query'],
      keys: ['json', 'query', 'raw', 'static', 'text', 'urlencoded'],
      assigned: 'replaced',
    });
  });

  it('loads a response method group on its first call; the member stays the same function', () => {
    const result = runScript(`
      const http = require('node:http');
      const webapp = require(${JSON.stringify(entry)});
      const loaded = (part) => Object.keys(require.cache).some((file) => file.includes(part));
      const app = webapp();
      const redirectBefore = webapp.response.redirect;
      app.get('/go', (req, res) => res.redirect('/there'));
      app.get('/kind', (req, res) => res.format({ text: () => res.send('text'), json: () => res.json({ ok: 1 }) }));
      app.get('/jar', (req, res) => res.cookie('a', 'b').send(String(req.is('json')) + ' ' + req.accepts('json')));
      const get = (path, headers) => new Promise((resolve) => {
        http.get({ host: '127.0.0.1', port: server.address().port, path, headers }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode, body, location: res.headers.location,
            cookie: res.headers['set-cookie'], type: res.headers['content-type'] }));
        });
      });
      const server = app.listen(0, '127.0.0.1', async () => {
        const before = { redirect: loaded('/response/redirect.js'), format: loaded('/response/format.js'),
          cookies: loaded('/response/cookies.js'), finalHandler: loaded('/http/final-handler.js') };
        const go = await get('/go');
        const kind = await get('/kind', { accept: 'application/json' });
        const jar = await get('/jar', { accept: 'application/json' });
        const missing = await get('/missing');
        server.close();
        console.log(JSON.stringify({
          before,
          after: { redirect: loaded('/response/redirect.js'), format: loaded('/response/format.js'),
            cookies: loaded('/response/cookies.js'), finalHandler: loaded('/http/final-handler.js') },
          go, kind, jar, missing: missing.status,
          sameMember: webapp.response.redirect === redirectBefore,
          names: ['redirect', 'location', 'format', 'cookie', 'clearCookie', 'sendFile', 'download']
            .map((name) => webapp.response[name].name),
        }));
      });
    `);
    const none = { redirect: false, format: false, cookies: false, finalHandler: false };
    assert.deepEqual(result.before, none);
    assert.deepEqual(result.after, { redirect: true, format: true, cookies: true, finalHandler: true });
    assert.deepEqual(result.go, {
      status: 302,
      body: 'Found. Redirecting to /there',
      location: '/there',
      type: 'text/plain; charset=utf-8',
    });
    assert.deepEqual(result.kind, {
      status: 200,
      body: '{"ok":1}',
      type: 'application/json; charset=utf-8',
    });
    assert.deepEqual(result.jar, {
      status: 200,
      body: 'null json',
      cookie: ['a=b; Path=/'],
      type: 'text/html; charset=utf-8',
    });
    assert.equal(result.missing, 404);
    assert.equal(result.sameMember, true);
    assert.deepEqual(result.names, ['redirect', 'location', 'format', 'cookie', 'clearCookie', 'sendFile', 'download']);
  });

  it('parses a body without Content-Encoding without loading zlib, and loads it for a gzip body', () => {
    const result = runScript(`
      const http = require('node:http');
      const zlibLoaded = () => process.moduleLoadList.includes('NativeModule zlib');
      const webapp = require(${JSON.stringify(entry)});
      const app = webapp();
      app.post('/', webapp.json(), (req, res) => res.json({ got: req.body, zlib: zlibLoaded() }));
      const post = (body, headers) => new Promise((resolve) => {
        const req = http.request({ host: '127.0.0.1', port: server.address().port, method: 'POST', path: '/',
          headers: { 'content-type': 'application/json', ...headers } }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve(JSON.parse(text)));
        });
        req.end(body);
      });
      const server = app.listen(0, '127.0.0.1', async () => {
        const plain = await post('{"a":1}');
        const gzip = await post(require('node:zlib').gzipSync('{"b":2}'), { 'content-encoding': 'gzip' });
        server.close();
        console.log(JSON.stringify({ plain, gzip }));
      });
    `);
    assert.deepEqual(result, { plain: { got: { a: 1 }, zlib: false }, gzip: { got: { b: 2 }, zlib: true } });
  });

  it('reads and sets unsigned cookies without loading node:crypto; the first signature loads it', () => {
    const result = runScript(`
      const http = require('node:http');
      const cryptoLoaded = () => process.moduleLoadList.includes('NativeModule crypto');
      const webapp = require(${JSON.stringify(entry)});
      const { cookieParser } = require(${JSON.stringify(resolve(root, 'dist/cjs/middleware/index.js'))});
      const app = webapp();
      app.use(cookieParser('secret'));
      app.get('/plain', (req, res) => res.cookie('seen', '1').send(String(req.cookies.theme)));
      app.get('/signed', (req, res) => res.cookie('id', '7', { signed: true }).send('ok'));
      const get = (path) => new Promise((resolve) => {
        http.get({ host: '127.0.0.1', port: server.address().port, path, headers: { cookie: 'theme=dark' } }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ body, cookie: res.headers['set-cookie'], crypto: cryptoLoaded() }));
        });
      });
      const server = app.listen(0, '127.0.0.1', async () => {
        const plain = await get('/plain');
        const signed = await get('/signed');
        server.close();
        console.log(JSON.stringify({ plain, signed }));
      });
    `);
    assert.deepEqual(result.plain, { body: 'dark', cookie: ['seen=1; Path=/'], crypto: false });
    assert.deepEqual(result.signed, {
      body: 'ok',
      cookie: ['id=' + encodeURIComponent('s:' + signCookie('7', 'secret')) + '; Path=/'],
      crypto: true,
    });
  });

  it('loads the tracing code when a request first finds a subscriber, and traces from then on', () => {
    const result = runScript(`
      const http = require('node:http');
      const diagnosticsChannel = require('node:diagnostics_channel');
      const webapp = require(${JSON.stringify(entry)});
      const loaded = () => ['/tracing/layer.js', '/tracing/request.js', '/http/on-finished.js']
        .filter((part) => Object.keys(require.cache).some((file) => file.includes(part)));
      const app = webapp();
      app.use(function logger(req, res, next) { next(); });
      app.get('/users/:id', function show(req, res) { res.send(req.params.id); });
      const get = (path) => new Promise((resolve) => {
        http.get({ host: '127.0.0.1', port: server.address().port, path }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve(body));
        });
      });
      const events = [];
      const server = app.listen(0, '127.0.0.1', async () => {
        const untraced = await get('/users/1');
        const before = loaded();
        diagnosticsChannel.tracingChannel('webapp:layer').subscribe({
          start: (trace) => events.push('layer ' + trace.kind + ' ' + trace.name + ' ' + trace.route),
        });
        diagnosticsChannel.tracingChannel('webapp:request').subscribe({
          asyncEnd: (trace) => events.push('request ' + trace.route),
        });
        const traced = await get('/users/2');
        await new Promise((resolve) => setImmediate(resolve));
        server.close();
        console.log(JSON.stringify({ untraced, before, traced, after: loaded(), events }));
      });
    `);
    assert.deepEqual(result, {
      untraced: '1',
      before: [],
      traced: '2',
      after: ['/tracing/layer.js', '/tracing/request.js', '/http/on-finished.js'],
      events: [
        'layer middleware query /',
        'layer middleware expressInit /',
        'layer middleware logger /',
        'layer request_handler show /users/:id',
        'request /users/:id',
      ],
    });
  });

  it('webapp/middleware and webapp/v3 load a bundled middleware on its first read, and only it', () => {
    const result = runScript(`
      const loaded = (part) => Object.keys(require.cache).some((file) => file.includes(part));
      const middleware = require(${JSON.stringify(resolve(root, 'dist/cjs/middleware/index.js'))});
      const v3 = require(${JSON.stringify(resolve(root, 'dist/cjs/v3/index.js'))});
      const before = {
        cookieParser: loaded('/middleware/cookie-parser.js'), multipart: loaded('/middleware/multipart/'),
        busboy: loaded('/node_modules/busboy/'), session: loaded('/middleware/session/'), mimeDb: loaded('/mime-db/') };
      const cookieParser = middleware.cookieParser;
      const descriptor = Object.getOwnPropertyDescriptor(middleware, 'cookieParser');
      console.log(JSON.stringify({
        before,
        after: { cookieParser: loaded('/middleware/cookie-parser.js'), multipart: loaded('/middleware/multipart/'),
          session: loaded('/middleware/session/') },
        type: typeof cookieParser,
        stable: middleware.cookieParser === cookieParser,
        sameInV3: v3.cookieParser === cookieParser && v3.middleware.cookieParser === cookieParser,
        getter: typeof descriptor.get === 'function' && descriptor.set === undefined && descriptor.enumerable,
        keys: Object.keys(middleware).length,
        multipart: typeof v3.multipart,
        multipartLoaded: loaded('/middleware/multipart/'),
      }));
    `);
    assert.deepEqual(result, {
      before: { cookieParser: false, multipart: false, busboy: false, session: false, mimeDb: false },
      after: { cookieParser: true, multipart: false, session: false },
      type: 'function',
      stable: true,
      sameInV3: true,
      getter: true,
      keys: 22,
      multipart: 'function',
      multipartLoaded: true,
    });
  });

  it("webapp/middleware's ESM named exports load their module on first call; their properties are the member's", () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapp-lazy-esm-'));
    const esmMiddleware = resolve(root, 'dist/esm/middleware.mjs');
    try {
      const file = join(dir, 'probe.mjs');
      writeFileSync(
        file,
        `import { createRequire } from 'node:module';
         import { cookieParser, errorHandler, session } from ${JSON.stringify(esmMiddleware)};
         const require = createRequire(import.meta.url);
         const loaded = (part) => Object.keys(require.cache).some((file) => file.includes(part));
         const before = {
           cookieParser: loaded('/middleware/cookie-parser.js'), session: loaded('/middleware/session/'),
         };
         const handler = cookieParser('secret');
         errorHandler.title = 'Probe';
         const cjs = require(${JSON.stringify(resolve(root, 'dist/cjs/middleware/index.js'))});
         console.log(JSON.stringify({
           before, handler: typeof handler, arity: cookieParser.length === cjs.cookieParser.length,
           title: cjs.errorHandler.title, store: session.Store === cjs.session.Store,
           sessionLoaded: loaded('/middleware/session/'),
         }));`,
      );
      const out = execFileSync(process.execPath, [file], { encoding: 'utf8', env: withoutCoverage() });
      assert.deepEqual(JSON.parse(out.trim().split('\n').pop()!), {
        before: { cookieParser: false, session: false },
        handler: 'function',
        arity: true,
        title: 'Probe',
        store: true,
        sessionLoaded: true,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
