/**
 * Generated stacks of real npm middleware (seeded; WEBAPP_TEST_SEED mixes in). Each
 * app is a random ordered stack drawn from the devDependencies, with random options:
 * helmet, cors, compression, morgan (into a captured stream), cookie-parser,
 * express-session (memory store), cookie-session, connect-flash, body-parser from npm
 * and the framework's own parsers, multer, method-override, serve-static and the
 * framework's static, serve-index, serve-favicon, response-time, hpp, connect-timeout,
 * express-rate-limit, express-basic-auth, vhost, connect-history-api-fallback,
 * express-mung, express-query-boolean, on-headers and on-finished users, res.write/end
 * wrappers, res.locals users, URL rewriters, a middleware that fails on demand; some
 * inside a router or a sub-app. Then routes (in the app, a router or a sub-app) that
 * answer in many ways, maybe a 404 handler and an error handler, under random settings.
 * The same app runs on express@4 and on webapp; the same generated requests go to each
 * over HTTP on 127.0.0.1, one at a time (kept-alive connections or one each), each
 * side's client carrying its own cookie jar (so sessions and cookies live across
 * requests) and the validators its own answers gave. Compared per request: status,
 * every header line in order (Date aside), body, the morgan lines, what the on-finished,
 * on-headers and res.end users saw, the session store's contents, and the first lines
 * written to stderr.
 */
import { after, before, describe, it } from 'node:test';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { brotliDecompressSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import express from 'express';
import bodyParser from 'body-parser';
import compression from 'compression';
import cookieParser from 'cookie-parser';
import cors from 'cors';
import session from 'express-session';
import { rateLimit } from 'express-rate-limit';
import helmet from 'helmet';
import methodOverride from 'method-override';
import morgan from 'morgan';
import multer from 'multer';
import favicon from 'serve-favicon';
import serveStatic from 'serve-static';
import webapp = require('../../src/index');
import { chance, pick, prng, type Random } from '../support/prng';
import {
  assertNoDifferences,
  brandHidden,
  isDeepStrictEqual,
  show,
  type HeaderLines,
} from '../support/generated-answers';
import { withServer } from '../support/raw-http';

const hpp = require('hpp');
const mung = require('express-mung');
const cookieSession = require('cookie-session');
const flash = require('connect-flash');
const serveIndex = require('serve-index');
const basicAuth = require('express-basic-auth');
const vhost = require('vhost');
const history = require('connect-history-api-fallback');
const boolParser = require('express-query-boolean');
const timeout = require('connect-timeout');
const responseTime = require('response-time');
const onHeaders = require('on-headers');
const onFinished = require('on-finished');

type Any = any;
type Framework = typeof express;

/** What one side's app reports besides its answers. */
interface Side {
  /** morgan's lines. */
  log: string[];
  /** What the on-finished and on-headers users saw. */
  events: string[];
  /** The session stores, to compare their contents after each request. */
  stores: Any[];
  /** Session ids handed out: ids made by a counter, not at random, are the same on both sides. */
  ids: number;
}

interface Layer {
  text: string;
  install: (app: Any, fw: Framework, side: Side, dir: string) => void;
}

interface AppSpec {
  settings: {
    env: string;
    etag: boolean | string;
    poweredBy: boolean;
    trustProxy: boolean | string | number;
    spaces?: number;
    query?: string;
    strict?: boolean;
    caseSensitive?: boolean;
  };
  /** Requests on kept-alive connections (else one connection each). */
  keepAlive: boolean;
  /** Where the generated routes live: a sub-app inherits the app's settings but its own defaults. */
  routesIn: 'app' | 'router' | 'sub-app' | 'sub-app with settings';
  layers: Layer[];
  routes: Layer[];
  notFound: boolean;
  errorHandler: 'json' | 'dump' | 'text' | 'pass' | 'none';
  staticMount: string;
}

interface Plan {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Send back the validators this side's client got for the path before (or stale ones). */
  conditional?: 'match' | 'stale' | 'range' | 'star' | 'list';
  /** A cookie the jar does not hold. */
  extraCookie?: string;
  /** The body in two chunks, without a Content-Length. */
  chunked?: boolean;
}

interface Answer {
  status: number;
  headers: HeaderLines;
  body: string;
}

/** One request's outcome on one side. */
interface Outcome {
  sent: Record<string, string>;
  answer: Answer;
  log: string[];
  events: string[];
  sessions: string;
  stderr: string[];
}

/** Date.now fixed while the test runs: cookie Expires, session expiry and rate-limit windows are then the same. */
const realNow = Date.now;
const NOW = Date.UTC(2025, 5, 15, 12, 0, 0, 0);
const BIG = 'All work and no play makes Jack a dull boy. '.repeat(60);
const ORIGINS = ['http://a.test', 'http://x.b.test', 'http://evil.test'];

// ---------------------------------------------------------------------------
// The middleware catalogue: each entry draws its options and says how to install it.

/** A token of the app's own: what res.locals holds when the line is written. */
morgan.token('user-of-locals', (_req: Any, res: Any) => String(res.locals?.user ?? '-'));

const mounted = (app: Any, path: string | undefined, ...handlers: unknown[]) =>
  path ? app.use(path, ...handlers) : app.use(...handlers);

const LAYERS: Array<[number, (random: Random, spec: AppSpec) => Layer]> = [
  [
    2,
    (random) => {
      const options = pick(random, [
        undefined,
        { contentSecurityPolicy: false },
        { strictTransportSecurity: { maxAge: 100, includeSubDomains: false } },
        { referrerPolicy: { policy: ['no-referrer', 'origin'] }, crossOriginEmbedderPolicy: true },
        { xPoweredBy: false, xFrameOptions: { action: 'deny' } },
        { contentSecurityPolicy: { directives: { defaultSrc: ["'self'"], scriptSrc: ["'self'", 'cdn.test'] } } },
      ] as Any[]);
      return { text: `helmet(${show(options)})`, install: (app) => app.use(helmet(options)) };
    },
  ],
  [
    2,
    (random) => {
      const options = pick(random, [
        undefined,
        { origin: true, credentials: true },
        { origin: 'http://a.test' },
        { origin: ['http://a.test', /\.b\.test$/], methods: ['GET', 'PUT'], maxAge: 600 },
        { origin: false },
        { exposedHeaders: ['X-Total'], allowedHeaders: 'Content-Type,X-Token' },
        { preflightContinue: true },
        { optionsSuccessStatus: 200, credentials: true },
        {
          origin: (origin: string | undefined, done: Any) =>
            setImmediate(() => done(null, origin === 'http://a.test' ? origin : false)),
        },
      ] as Any[]);
      const preflight = chance(random, 0.3);
      return {
        text: `${preflight ? 'options(*, cors) + ' : ''}cors(${show(options)})`,
        install: (app) => {
          if (preflight) app.options('*', cors(options));
          app.use(cors(options));
        },
      };
    },
  ],
  [
    2,
    (random) => {
      const choice = Math.floor(random() * 4);
      const text = ['{}', '{ threshold: 0 }', '{ threshold: 100, level: 1 }', '{ filter: unless X-No-Compress }'][
        choice
      ];
      return {
        text: `compression(${text})`,
        install: (app) =>
          app.use(
            compression(
              [
                {},
                { threshold: 0 },
                { threshold: 100, level: 1 },
                { filter: (req: Any, res: Any) => !req.headers['x-no-compress'] && compression.filter(req, res) },
              ][choice],
            ),
          ),
      };
    },
  ],
  [
    2,
    (random) => {
      const format = pick(random, [
        'combined',
        'common',
        'dev',
        'short',
        'tiny',
        ':method :url :status :res[content-type] :res[content-length] :req[cookie] - :response-time ms',
        ':remote-user :url :req[content-type] :res[etag] :res[vary] :res[set-cookie] :user :total-time[2] ms',
      ]);
      const skip = chance(random, 0.2);
      const immediate = chance(random, 0.15);
      return {
        text: `morgan(${show(format)}${skip ? ', skip < 400' : ''}${immediate ? ', immediate' : ''})`,
        install: (app, _fw, side) =>
          app.use(
            morgan(format.replace(':user', ':user-of-locals'), {
              stream: { write: (line: string) => void side.log.push(line) },
              immediate,
              skip: skip ? (_req: Any, res: Any) => res.statusCode < 400 : undefined,
            }),
          ),
      };
    },
  ],
  [
    2,
    (random) => {
      const secret = pick(random, [undefined, 'sekrit', ['new', 'sekrit']]);
      return { text: `cookieParser(${show(secret)})`, install: (app) => app.use(cookieParser(secret)) };
    },
  ],
  [
    2,
    (random) => {
      // Without a secret it takes cookie-parser's, or fails every request: now and then.
      const secret = pick(random, ['sekrit', ['sekrit', 'old'], 'sekrit', undefined]);
      const resave = chance(random, 0.5);
      const saveUninitialized = chance(random, 0.5);
      const rolling = chance(random, 0.2);
      const name = pick(random, [undefined, 'sid']);
      const cookie = pick(random, [
        undefined,
        { maxAge: 60_000 },
        { httpOnly: false, path: '/s', sameSite: 'lax' },
        { maxAge: 1000, sameSite: 'strict' },
        { secure: 'auto' },
        { secure: true },
      ] as Any[]);
      const unset = pick(random, [undefined, 'destroy']);
      const proxy = pick(random, [undefined, undefined, true, false]);
      const options = { secret, resave, saveUninitialized, rolling, name, cookie, unset, proxy };
      return {
        text: `session(${show(options)})`,
        install: (app, _fw, side) => {
          const store = new session.MemoryStore();
          side.stores.push(store);
          app.use(session({ ...options, store, genid: () => `id${side.ids++}` } as Any));
        },
      };
    },
  ],
  [
    4,
    (random) => {
      const npm = chance(random, 0.5);
      const type = pick(random, ['json', 'urlencoded', 'text', 'raw'] as const);
      const options = pick(
        random,
        (
          {
            json: [
              {},
              { limit: '60b' },
              { strict: false },
              { type: ['application/json', '+json'] },
              { inflate: false },
              {
                verify: (_req: Any, _res: Any, buf: Buffer) => {
                  if (buf.includes('long')) throw new Error('refused by verify');
                },
              },
            ],
            urlencoded: [
              { extended: true },
              { extended: false },
              { extended: true, parameterLimit: 2 },
              { extended: true, limit: 40 },
            ],
            text: [{}, { type: 'text/*' }, { defaultCharset: 'latin1' }, { limit: 20 }],
            raw: [{}, { type: 'application/octet-stream' }, { type: 'application/*', limit: '1kb' }],
          } as Record<string, Any[]>
        )[type],
      );
      const path = pick(random, [undefined, undefined, '/info']);
      return {
        text: `${npm ? 'bodyParser' : 'fw'}.${type}(${show(options)})${path ? ` at ${path}` : ''}`,
        install: (app, fw) => mounted(app, path, ((npm ? bodyParser : fw) as Any)[type](options)),
      };
    },
  ],
  [
    1,
    (random) => {
      const limits = pick(random, [undefined, { fileSize: 8 }, { files: 1 }, { fields: 1 }]);
      const how = pick(random, ['single', 'array', 'fields', 'none', 'any'] as const);
      const path = pick(random, [undefined, '/upload']);
      return {
        text: `multer(${show(limits)}).${how}${path ? ` at ${path}` : ''}`,
        install: (app) => {
          const upload = multer({ storage: multer.memoryStorage(), limits });
          const handler = {
            single: () => upload.single('file'),
            array: () => upload.array('file', 2),
            fields: () => upload.fields([{ name: 'file', maxCount: 1 }, { name: 'doc' }]),
            none: () => upload.none(),
            any: () => upload.any(),
          }[how]();
          mounted(app, path, handler);
        },
      };
    },
  ],
  [
    1,
    (random) => {
      const getter = pick(random, ['X-HTTP-Method-Override', '_method', 'body']);
      const methods = pick(random, [undefined, ['POST', 'GET']]);
      return {
        text: `methodOverride(${show(getter)}, ${show(methods)})`,
        install: (app) =>
          app.use(
            methodOverride(
              getter === 'body'
                ? (req: Any) => (req.body && typeof req.body === 'object' ? req.body._method : undefined)
                : getter,
              // method-override's default (POST only) when no list is given.
              methods ? { methods } : undefined,
            ),
          ),
      };
    },
  ],
  [
    2,
    (random, spec) => {
      const npm = chance(random, 0.5);
      const choice = Math.floor(random() * 12);
      const texts = [
        '{}',
        '{ index: false }',
        "{ dotfiles: 'allow' }",
        "{ dotfiles: 'deny' }",
        '{ etag: false }',
        '{ lastModified: false }',
        "{ maxAge: '1h', immutable: true }",
        '{ redirect: false }',
        "{ extensions: ['html'] }",
        '{ fallthrough: false }',
        '{ setHeaders: X-File }',
        '{ acceptRanges: false, cacheControl: false }',
      ];
      const mount = spec.staticMount;
      return {
        text: `${npm ? 'serveStatic' : 'fw.static'}(${texts[choice]})${mount ? ` at ${mount}` : ''}`,
        install: (app, fw, _side, dir) => {
          const options = [
            {},
            { index: false },
            { dotfiles: 'allow' },
            { dotfiles: 'deny' },
            { etag: false },
            { lastModified: false },
            { maxAge: '1h', immutable: true },
            { redirect: false },
            { extensions: ['html'] },
            { fallthrough: false },
            { setHeaders: (res: Any, path: string) => res.setHeader('X-File', basename(path)) },
            { acceptRanges: false, cacheControl: false },
          ][choice];
          mounted(app, mount || undefined, ((npm ? serveStatic : fw.static) as Any)(join(dir, 'public'), options));
        },
      };
    },
  ],
  [
    1,
    (random) => {
      const options = pick(random, [undefined, { maxAge: 0 }, { maxAge: '1d' }]);
      return {
        text: `favicon(${show(options)})`,
        install: (app, _fw, _side, dir) => app.use(favicon(join(dir, 'favicon.ico'), options)),
      };
    },
  ],
  [
    1,
    (random) => {
      const options = pick(random, [undefined, { digits: 0 }, { header: 'X-Time', suffix: false }]);
      return { text: `responseTime(${show(options)})`, install: (app) => app.use(responseTime(options)) };
    },
  ],
  [
    1,
    (random) => {
      const options = pick(random, [undefined, { whitelist: ['a'] }, { checkBody: false }, { checkQuery: false }]);
      return { text: `hpp(${show(options)})`, install: (app) => app.use(hpp(options)) };
    },
  ],
  [
    1,
    (random) => {
      const respond = chance(random, 0.5);
      const halt = chance(random, 0.5);
      return {
        // A timeout no request reaches: the middleware is there, its timer never fires.
        text: `timeout('20s', { respond: ${respond} })${halt ? ' + haltOnTimedout' : ''}`,
        install: (app) => {
          app.use(timeout('20s', { respond }));
          if (halt) app.use((req: Any, _res: Any, next: Any) => !req.timedout && next());
        },
      };
    },
  ],
  [
    1,
    (random) => {
      const options = {
        windowMs: 60_000,
        limit: pick(random, [2, 4, 6]),
        standardHeaders: pick(random, [true, 'draft-6', 'draft-7', 'draft-8', false] as const),
        legacyHeaders: chance(random, 0.5),
        message: pick(random, [undefined, { error: 'slow down' }, 'Slow down']),
        statusCode: pick(random, [undefined, 503]),
        skipSuccessfulRequests: chance(random, 0.2),
        skipFailedRequests: chance(random, 0.2),
      };
      const path = pick(random, [undefined, '/r']);
      return {
        text: `rateLimit(${show(options)})${path ? ` at ${path}` : ''}`,
        install: (app) => mounted(app, path, rateLimit(options as Any)),
      };
    },
  ],
  [
    1,
    () => ({
      text: 'onHeaders user (X-Seen)',
      install: (app) =>
        app.use((_req: Any, res: Any, next: Any) => {
          onHeaders(res, function (this: Any) {
            this.setHeader('X-Seen', `${this.statusCode} ${String(this.getHeader('Content-Type') ?? '-')}`);
          });
          next();
        }),
    }),
  ],
  [
    1,
    () => ({
      text: 'onFinished user',
      install: (app, _fw, side) =>
        app.use((req: Any, res: Any, next: Any) => {
          const url = req.originalUrl;
          onFinished(res, (err: Any) =>
            side.events.push(
              `finished ${req.method} ${url} ${res.statusCode} ${res.headersSent} ${err ? err.code : 'ok'}`,
            ),
          );
          next();
        }),
    }),
  ],
  [
    1,
    (random) => {
      const path = pick(random, [undefined, '/r']);
      return {
        text: `res.locals user${path ? ` at ${path}` : ''}`,
        install: (app) =>
          mounted(app, path, (_req: Any, res: Any, next: Any) => {
            res.locals.user = 'ada';
            res.locals.count = (res.locals.count ?? 0) + 1;
            next();
          }),
      };
    },
  ],
  [
    1,
    (random) => {
      const path = pick(random, [undefined, '/r', '/info']);
      const how = pick(random, ['throw', 'teapot', 'headers', 'string', 'async-next'] as const);
      return {
        text: `fails on X-Boom (${how})${path ? ` at ${path}` : ''}`,
        install: (app) =>
          mounted(app, path, (req: Any, _res: Any, next: Any) => {
            if (!req.headers['x-boom']) return next();
            if (how === 'throw') throw new Error('mid-stack');
            if (how === 'teapot') return next(Object.assign(new Error('teapot'), { status: 418, expose: true }));
            if (how === 'headers')
              return next(Object.assign(new Error('bad'), { statusCode: 400, headers: { 'X-Why': 'bad' } }));
            if (how === 'string') return next('plain string');
            setImmediate(() => next(Object.assign(new Error('later'), { status: 503 })));
          }),
      };
    },
  ],
  [
    1,
    () => ({
      text: 'header setter (X-Stack, Vary, Link)',
      install: (app) =>
        app.use((_req: Any, res: Any, next: Any) => {
          res.set('X-Stack', 'yes');
          res.vary('Accept-Language');
          res.append('Link', '</a>; rel="x"');
          next();
        }),
    }),
  ],
  [
    1,
    () => ({
      // What a middleware that wraps res.write/res.end (an interceptor, a logger of bodies) is given.
      text: 'res.write/res.end wrapper',
      install: (app, _fw, side) =>
        app.use((_req: Any, res: Any, next: Any) => {
          const { write, end } = res;
          const size = (chunk: unknown) =>
            Buffer.isBuffer(chunk)
              ? `Buffer(${chunk.length})`
              : typeof chunk === 'string'
                ? `string(${chunk.length})`
                : String(chunk);
          const kind = (chunk: unknown, encoding: unknown) =>
            `${size(chunk)} ${typeof encoding === 'function' ? 'callback' : String(encoding)}`;
          res.write = function (chunk: unknown, encoding: unknown, ...rest: unknown[]) {
            side.events.push(`write ${kind(chunk, encoding)}`);
            return write.call(this, chunk, encoding, ...rest);
          };
          res.end = function (chunk: unknown, encoding: unknown, ...rest: unknown[]) {
            side.events.push(`end ${kind(chunk, encoding)} headersSent=${res.headersSent}`);
            return end.call(this, chunk, encoding, ...rest);
          };
          next();
        }),
    }),
  ],
  [
    1,
    () => ({
      text: 'onHeaders user (header names) + finish listener',
      install: (app, _fw, side) =>
        app.use((req: Any, res: Any, next: Any) => {
          onHeaders(res, function (this: Any) {
            side.events.push(`head ${this.statusCode} ${this.getHeaderNames().join(',')}`);
          });
          res.on('finish', () =>
            side.events.push(
              `finish ${req.baseUrl} ${req.route?.path} ${JSON.stringify(req.params)} ` +
                res.getHeaderNames().join(','),
            ),
          );
          next();
        }),
    }),
  ],
];

/** Middleware that rewrites the URL or answers later: the stack must route what they leave. */
LAYERS.push(
  [
    1,
    () => ({
      text: 'mung.json + mung.headers',
      install: (app) => {
        app.use(
          mung.json((body: Any, req: Any) => {
            if (body && typeof body === 'object' && !Array.isArray(body)) body.munged = req.path;
            return body;
          }),
        );
        app.use(mung.headers((_req: Any, res: Any) => res.set('X-Munged', String(res.statusCode))));
      },
    }),
  ],
  [
    1,
    (random) => {
      const options = pick(random, [
        { keys: ['k1'] },
        { secret: 'cs', name: 'cs', maxAge: 60_000 },
        { keys: ['k1', 'k0'], signed: false },
      ]);
      return {
        text: `cookieSession(${show(options)}) + counter`,
        install: (app) => {
          app.use(cookieSession(options));
          app.use((req: Any, _res: Any, next: Any) => {
            if (req.path === '/info') req.session.visits = (req.session.visits ?? 0) + 1;
            next();
          });
        },
      };
    },
  ],
  [
    1,
    () => ({
      text: 'connect-flash (flash on /r, read on /info)',
      install: (app) => {
        app.use(flash());
        app.use((req: Any, res: Any, next: Any) => {
          if (req.path.startsWith('/r/')) req.flash('info', `seen ${req.path}`);
          if (req.path === '/info') res.locals.flash = req.flash('info');
          next();
        });
      },
    }),
  ],
  [
    1,
    (random, spec) => {
      const options = pick(random, [undefined, { icons: false, view: 'details' }, { hidden: true }]);
      const mount = spec.staticMount || '/';
      return {
        text: `serveIndex(${show(options)}) at ${mount}`,
        install: (app, _fw, _side, dir) => app.use(mount, serveIndex(join(dir, 'public'), options)),
      };
    },
  ],
  [
    1,
    (random) => {
      const challenge = chance(random, 0.5);
      const path = pick(random, ['/r', '/s']);
      return {
        text: `basicAuth(${challenge ? 'challenge' : ''}) at ${path}`,
        install: (app) =>
          app.use(path, basicAuth({ users: { ada: 'pw' }, challenge, realm: challenge ? 'Stacks' : undefined })),
      };
    },
  ],
  [
    1,
    () => ({
      text: "vhost('*.stack.test', sub-app)",
      install: (app, fw) => {
        const sub: Any = fw();
        sub.get('/info', (req: Any, res: Any) => res.json({ vhost: req.vhost, host: req.hostname }));
        app.use(vhost('*.stack.test', sub));
      },
    }),
  ],
  [
    1,
    (random) => {
      const options = pick(random, [undefined, { index: '/info' }, { rewrites: [{ from: /^\/nowhere/, to: '/r/0' }] }]);
      return { text: `historyApiFallback(${show(options)})`, install: (app) => app.use(history(options)) };
    },
  ],
  [1, () => ({ text: 'express-query-boolean', install: (app) => app.use(boolParser()) })],
  [
    1,
    (random) => {
      const to = pick(random, ['/info', '/r/0', '/static/a.txt']);
      return {
        text: `rewrite /go to ${to}`,
        install: (app) =>
          app.use((req: Any, _res: Any, next: Any) => {
            if (req.url.startsWith('/go')) req.url = to + req.url.slice(3);
            next();
          }),
      };
    },
  ],
  [
    1,
    () => ({
      text: 'next() on a later turn',
      install: (app) => app.use((_req: Any, _res: Any, next: Any) => setImmediate(next)),
    }),
  ],
);

/** The same layer inside a router (maybe mounted at /r) or inside a sub-app. */
function contained(random: Random, layer: Layer): Layer {
  const container = pick(random, ['router', 'router at /r', 'sub-app'] as const);
  return {
    text: `${layer.text} in ${container}`,
    install: (app, fw, side, dir) => {
      const inner: Any = container === 'sub-app' ? fw() : fw.Router();
      layer.install(inner, fw, side, dir);
      if (container === 'router at /r') app.use('/r', inner);
      else app.use(inner);
    },
  };
}

function drawLayer(random: Random, spec: AppSpec): Layer {
  let roll = random() * LAYERS.reduce((sum, [weight]) => sum + weight, 0);
  for (const [weight, make] of LAYERS) {
    roll -= weight;
    if (roll < 0) return make(random, spec);
  }
  return LAYERS[0][1](random, spec);
}

// ---------------------------------------------------------------------------
// Route handlers.

/** A body as JSON can show it (a Buffer as its text). */
function shown(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return { buffer: value.toString('latin1') };
  return value ?? null;
}

function fileSummary(file: Any): unknown {
  if (!file) return null;
  if (Array.isArray(file)) return file.map(fileSummary);
  if (!file.fieldname) return Object.fromEntries(Object.entries(file).map(([k, v]) => [k, fileSummary(v)]));
  return {
    fieldname: file.fieldname,
    originalname: file.originalname,
    mimetype: file.mimetype,
    size: file.size,
    text: file.buffer?.toString('latin1'),
  };
}

function info(req: Any, res: Any): void {
  res.json({
    method: req.method,
    originalUrl: req.originalUrl,
    url: req.url,
    path: req.path,
    query: req.query,
    body: shown(req.body),
    cookies: req.cookies ?? null,
    signedCookies: req.signedCookies ?? null,
    session: req.session ?? null,
    sessionID: req.sessionID ?? null,
    locals: res.locals,
    file: fileSummary(req.file),
    files: fileSummary(req.files),
    queryPolluted: req.queryPolluted ?? null,
    bodyPolluted: req.bodyPolluted ?? null,
    timedout: req.timedout ?? null,
    rateLimit: req.rateLimit ?? null,
    ip: req.ip,
    hostname: req.hostname,
    subdomains: req.subdomains,
    ips: req.ips,
    protocol: req.protocol,
    secure: req.secure,
    xhr: req.xhr,
    fresh: req.fresh,
    accepts: req.accepts(['json', 'html']),
    encodings: req.acceptsEncodings(),
    is: req.is('json', 'urlencoded', 'multipart'),
    type: req.get('content-type') ?? null,
  });
}

function routeAnswer(random: Random, index: number): Layer {
  const method = pick(random, ['all', 'get', 'get', 'post', 'put', 'delete']);
  const path = `/r/${index}`;
  const roll = Math.floor(random() * 21);
  let text: string;
  let handler: (req: Any, res: Any, next: Any) => void;
  const file = (dir: string, name: string) => join(dir, 'public', name);
  switch (roll) {
    case 0: {
      const body = pick(random, ['hello', '<p>html</p>', 'héllo ☃', BIG, '']);
      text = `send(${show(body, 20)})`;
      handler = (_req, res) => res.send(body);
      break;
    }
    case 1: {
      const body = pick(random, [{ a: 1, b: [true, null] }, [1, 2], 'str', null, { big: BIG }] as unknown[]);
      text = `json(${show(body, 20)})`;
      handler = (_req, res) => res.json(body);
      break;
    }
    case 2:
      text = 'send(Buffer)';
      handler = (_req, res) => res.send(Buffer.from('bytes\u0000\u00ff', 'latin1'));
      break;
    case 3: {
      const which = pick(random, ['a.txt', 'big.txt', 'sub/index.html', '.hidden', 'missing.txt', 'data.json']);
      const options = pick(random, [
        undefined,
        { headers: { 'X-From': 'sendFile' } },
        { maxAge: 5000 },
        { dotfiles: 'allow' },
        { dotfiles: 'deny' },
        { acceptRanges: false, cacheControl: false },
        { lastModified: false, etag: false, immutable: true, maxAge: '2h' },
      ] as Any[]);
      const rooted = chance(random, 0.4);
      text = `sendFile(${which}, ${show(options)}${rooted ? ', root' : ''})`;
      handler = (req, res, next) => {
        const dir = req.app.get('fixtures');
        const done = (err: Any) => err && next(err);
        if (rooted) res.sendFile(which, { ...options, root: join(dir, 'public') }, done);
        else res.sendFile(file(dir, which), options ?? {}, done);
      };
      break;
    }
    case 4: {
      const args = pick(random, [
        ['/to'],
        [301, '/to?x=1'],
        ['back'],
        [307, 'http://x.test/a b'],
        ['..'],
      ] as unknown[][]);
      text = `redirect(${args.map((a) => show(a)).join(', ')})`;
      handler = (_req, res) => res.redirect(...args);
      break;
    }
    case 5: {
      const locals = pick(random, [undefined, { title: 'Own' }]);
      text = `render(page, ${show(locals)})`;
      handler = (_req, res) => res.render('page', locals);
      break;
    }
    case 6: {
      const code = pick(random, [200, 204, 304, 403, 404, 500]);
      text = `sendStatus(${code})`;
      handler = (_req, res) => res.sendStatus(code);
      break;
    }
    case 7: {
      const options = pick(random, [
        {},
        { maxAge: 1000, httpOnly: true },
        { signed: true },
        { path: '/r', sameSite: 'strict' },
      ] as Any[]);
      const value = pick(random, ['v', 'a b;c', { j: 1 }] as unknown[]);
      const clear = chance(random, 0.3);
      text = `cookie(c${index}, ${show(value)}, ${show(options)})${clear ? '.clearCookie(plain)' : ''}.send`;
      handler = (req, res) => {
        res.cookie(`c${index}`, value, options);
        if (clear) res.clearCookie('plain', index % 2 ? { path: '/r', maxAge: 1000 } : undefined);
        res.send(`cookies ${JSON.stringify(req.cookies ?? null)} ${JSON.stringify(req.signedCookies ?? null)}`);
      };
      break;
    }
    case 8: {
      const withDefault = chance(random, 0.5);
      text = `format({text, html, json${withDefault ? ', default' : ''}})`;
      handler = (_req, res) => {
        const map: Record<string, () => void> = {
          text: () => res.send('plain'),
          html: () => res.send('<b>html</b>'),
          json: () => res.json({ format: true }),
        };
        if (withDefault) map.default = () => res.status(406).send('none');
        res.format(map);
      };
      break;
    }
    case 9: {
      const name = pick(random, [undefined, 'other name.txt', 'naïve.txt']);
      text = `download(a.txt, ${show(name)})`;
      handler = (req, res, next) =>
        res.download(file(req.app.get('fixtures'), 'a.txt'), name ?? 'a.txt', (err: Any) => err && next(err));
      break;
    }
    case 10:
      text = 'jsonp({ a: 1 })';
      handler = (_req, res) => res.jsonp({ a: 1 });
      break;
    case 11: {
      const thrown = chance(random, 0.5);
      text = thrown ? 'throw Error(route)' : 'next(err 422)';
      handler = (_req, _res, next) => {
        if (thrown) throw new Error('route');
        next(Object.assign(new Error('unprocessable'), { status: 422 }));
      };
      break;
    }
    case 12:
      text = 'type(text).write(a).write(big).end(c)';
      handler = (_req, res) => {
        res.type('text');
        res.write('a');
        res.write(BIG);
        res.end('c');
      };
      break;
    case 13:
      text = 'status(201).set().append().vary().links().location().send()';
      handler = (_req, res) =>
        res
          .status(201)
          .set({ 'X-Total': '3', 'Cache-Control': 'no-store' })
          .append('Link', '</b>; rel="y"')
          .vary('Origin')
          .links({ next: '/r/next' })
          .location('/r/there')
          .send('set');
      break;
    case 14:
      text = 'next()';
      handler = (_req, _res, next) => next();
      break;
    case 15:
      text = 'attachment().send(csv)';
      handler = (_req, res) => res.attachment('report.csv').send('a,b\n1,2\n');
      break;
    case 16: {
      const headers = pick(random, [undefined, { 'X-Head': 'h', 'Content-Type': 'text/plain' }, ['X-Pair', 'p']]);
      text = `writeHead(202, 'Taken', ${show(headers)}).end(done)`;
      handler = (_req, res) => {
        res.setHeader('X-Before', 'b');
        if (headers) res.writeHead(202, 'Taken', headers);
        else res.writeHead(202, 'Taken');
        res.end('done');
      };
      break;
    }
    case 17:
      text = 'write(a).flush().end(b)';
      handler = (_req, res) => {
        res.type('text');
        res.write('a'.repeat(50));
        res.flush?.();
        res.end('b');
      };
      break;
    case 18: {
      const view = pick(random, ['missing', 'page']);
      text = `render(${view}, callback)`;
      handler = (_req, res, next) =>
        res.render(view, { title: 'cb' }, (err: Any, html: string) =>
          err ? next(err) : res.type('html').send(`[${html}]`),
        );
      break;
    }
    case 19:
      text = "type('json').send(Buffer).set(ETag)";
      handler = (_req, res) => res.type('json').set('ETag', '"fixed"').send(Buffer.from('{"b":1}'));
      break;
    default:
      text = 'info';
      handler = info;
  }
  return {
    text: `${method} ${path} ${text}`,
    install: (app) => app[method](path, handler),
  };
}

/** Routes every app has: request info, sessions, uploads, and the fallback of /r/*. */
function fixedRoutes(app: Any): void {
  app.all('/info', info);
  app.all('/s/inc', (req: Any, res: Any) => {
    req.session.n = (req.session.n ?? 0) + 1;
    res.json({ n: req.session.n, id: req.sessionID });
  });
  app.get('/s/show', (req: Any, res: Any) => res.json({ session: req.session ?? null, id: req.sessionID ?? null }));
  app.all('/s/destroy', (req: Any, res: Any, next: Any) =>
    req.session.destroy((err: Any) => (err ? next(err) : res.send('destroyed'))),
  );
  // The usual ways apps drive a session: save then redirect, reload, a cookie's age changed.
  app.all('/s/save', (req: Any, res: Any, next: Any) => {
    req.session.saved = (req.session.saved ?? 0) + 1;
    req.session.save((err: Any) => (err ? next(err) : res.redirect('/s/show')));
  });
  app.all('/s/reload', (req: Any, res: Any, next: Any) =>
    req.session.reload((err: Any) => (err ? next(err) : res.json({ reloaded: req.session }))),
  );
  app.all('/s/age', (req: Any, res: Any) => {
    req.session.cookie.maxAge = 5000;
    req.session.touch();
    res.json({ maxAge: req.session.cookie.maxAge, expires: req.session.cookie.expires });
  });
  app.all('/s/regen', (req: Any, res: Any, next: Any) =>
    req.session.regenerate((err: Any) => {
      if (err) return next(err);
      req.session.regenerated = true;
      res.send(`regenerated ${req.sessionID}`);
    }),
  );
  app.post('/upload', (req: Any, res: Any) =>
    res.json({ file: fileSummary(req.file), files: fileSummary(req.files), body: shown(req.body) }),
  );
  app.all('/r/:n', (req: Any, res: Any) => res.send(`fallback ${req.params.n} ${req.method}`));
}

/** What an error handler shows of an error: every own enumerable field but the stack. */
function errorFields(err: Any): unknown {
  if (!err || typeof err !== 'object') return { thrown: String(err) };
  const fields: Record<string, unknown> = { name: err.name, message: err.message };
  for (const key of Object.keys(err)) if (key !== 'stack') fields[key] = err[key];
  return fields;
}

function buildApp(fw: Framework, spec: AppSpec, side: Side, dir: string): http.RequestListener {
  const app: Any = fw();
  app.set('env', spec.settings.env);
  app.set('etag', spec.settings.etag);
  app.set('trust proxy', spec.settings.trustProxy);
  if (spec.settings.spaces !== undefined) app.set('json spaces', spec.settings.spaces);
  if (!spec.settings.poweredBy) app.disable('x-powered-by');
  if (spec.settings.query) app.set('query parser', spec.settings.query);
  if (spec.settings.strict) app.enable('strict routing');
  if (spec.settings.caseSensitive) app.enable('case sensitive routing');
  app.set('views', join(dir, 'views'));
  app.set('view engine', 'ejs');
  app.set('fixtures', dir);
  app.locals.title = 'Stacks';
  for (const layer of spec.layers) layer.install(app, fw, side, dir);
  const routes: Any = spec.routesIn === 'app' ? app : spec.routesIn === 'router' ? fw.Router() : fw();
  if (spec.routesIn === 'sub-app with settings') {
    routes.set('etag', 'weak');
    routes.set('json spaces', 1);
    routes.set('views', join(dir, 'views'));
    routes.disable('x-powered-by');
  }
  for (const route of spec.routes) route.install(routes, fw, side, dir);
  if (routes !== app) app.use(routes);
  fixedRoutes(app);
  if (spec.notFound) app.use((req: Any, res: Any) => res.status(404).send(`no ${req.method} ${req.path}`));
  const handler = spec.errorHandler;
  if (handler !== 'none')
    app.use((err: Any, _req: Any, res: Any, next: Any) => {
      if (res.headersSent) return next(err);
      const status = err?.status ?? err?.statusCode ?? 500;
      if (handler === 'json') res.status(status).json(errorFields(err));
      else if (handler === 'dump') res.status(status).json(err);
      else if (handler === 'text') res.status(status).type('text').send(`${err?.name}: ${err?.message}`);
      else {
        res.set('X-Error', String(err?.message ?? err).slice(0, 40));
        next(err);
      }
    });
  return app;
}

function drawApp(random: Random): AppSpec {
  const spec: AppSpec = {
    settings: {
      env: pick(random, ['production', 'production', 'development', 'test']),
      etag: pick(random, [true, true, 'weak', 'strong', false]),
      poweredBy: chance(random, 0.5),
      trustProxy: pick(random, [false, false, 'loopback', true, 1, 'loopback, 10.0.0.2']),
      spaces: pick(random, [undefined, undefined, 2]),
      query: pick(random, [undefined, undefined, undefined, 'simple', 'extended']),
      strict: chance(random, 0.1),
      caseSensitive: chance(random, 0.1),
    },
    keepAlive: chance(random, 0.5),
    routesIn: pick(random, ['app', 'app', 'app', 'router', 'sub-app', 'sub-app with settings'] as const),
    layers: [],
    routes: [],
    notFound: chance(random, 0.3),
    errorHandler: pick(random, ['json', 'dump', 'text', 'pass', 'none'] as const),
    staticMount: pick(random, ['/static', '/static', '']),
  };
  const count = 3 + Math.floor(random() * 8);
  for (let i = 0; i < count; i++) {
    const layer = drawLayer(random, spec);
    spec.layers.push(chance(random, 0.15) ? contained(random, layer) : layer);
  }
  // cookie-session and express-session both own req.session: together they throw on Express too.
  if (has(spec, 'session(')) spec.layers = spec.layers.filter((layer) => !layer.text.startsWith('cookieSession'));
  // Outside production an error page's length is not Express's (see STACK_PAGE), and compression
  // decides by length whether to compress it: stacks with compression run in production.
  if (has(spec, 'compression')) spec.settings.env = 'production';
  const routes = 2 + Math.floor(random() * 5);
  for (let i = 0; i < routes; i++) spec.routes.push(routeAnswer(random, i));
  return spec;
}

// ---------------------------------------------------------------------------
// Requests.

const BOUNDARY = 'StackBoundary42';

function multipart(random: Random): Buffer {
  const parts: string[] = [];
  if (chance(random, 0.8)) parts.push(`Content-Disposition: form-data; name="title"\r\n\r\nhello é`);
  if (chance(random, 0.3)) parts.push(`Content-Disposition: form-data; name="_method"\r\n\r\nDELETE`);
  if (chance(random, 0.7))
    parts.push(
      `Content-Disposition: form-data; name="${pick(random, ['file', 'file', 'doc', 'other'])}"; ` +
        `filename="a b.txt"\r\nContent-Type: text/plain\r\n\r\nfile content here`,
    );
  if (chance(random, 0.2))
    parts.push(
      'Content-Disposition: form-data; name="file"; filename="two.bin"\r\n' +
        'Content-Type: application/octet-stream\r\n\r\n\x00\x01',
    );
  return Buffer.from(parts.map((p) => `--${BOUNDARY}\r\n${p}\r\n`).join('') + `--${BOUNDARY}--\r\n`, 'latin1');
}

function body(random: Random, headers: Record<string, string>): Buffer | undefined {
  const kind = Math.floor(random() * 12);
  const set = (type: string, data: string | Buffer) => {
    headers['Content-Type'] = type;
    return Buffer.isBuffer(data) ? data : Buffer.from(data);
  };
  switch (kind) {
    case 0:
    case 1:
      return set('application/json', pick(random, ['{"a":[1,2],"b":{"c":"d"},"_method":"PUT"}', '{"a":1}', '[1,2]']));
    case 2:
      return set('application/json', pick(random, ['{"a":', '"str"', '{"long":"' + 'x'.repeat(80) + '"}']));
    case 3:
      return set(
        pick(random, ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8']),
        pick(random, ['a=1&a=2&b[c]=d&_method=DELETE', 'x=y', 'a=1&b=2&c=3&d=4', 'q=%E2%98%83']),
      );
    case 4:
      return set(
        pick(random, ['text/plain', 'text/plain; charset=utf-8', 'text/csv', 'text/plain; charset=windows-1252']),
        'plain text é',
      );
    case 5:
      return set('application/octet-stream', Buffer.from([0, 1, 2, 255]));
    case 6:
    case 7:
      return set(`multipart/form-data; boundary=${BOUNDARY}`, multipart(random));
    case 8: {
      headers['Content-Encoding'] = pick(random, ['gzip', 'gzip', 'deflate-bogus']);
      return set('application/json', gzipSync('{"zipped":true}'));
    }
    case 9:
      return set('application/vnd.api+json', '{"api":1}');
    case 10:
      return set(pick(random, ['application/json', 'application/x-www-form-urlencoded', 'text/plain']), '');
    default:
      return set('application/x-foo', 'foo');
  }
}

const has = (spec: AppSpec, prefix: string): boolean => spec.layers.some((layer) => layer.text.startsWith(prefix));

function drawPlan(random: Random, spec: AppSpec): Plan {
  const mount = spec.staticMount;
  const routes = spec.routes.length;
  const query = pick(random, [
    '',
    '',
    '',
    '?a=1&a=2&b=x',
    '?q[x]=1&_method=PUT',
    '?callback=cb',
    '?_method=DELETE',
    '?a[]=1&a[]=2&b=%E2%98%83',
    '?callback=cb&callback=x',
    '?a%5Bb%5D=c&d=e+f',
  ]);
  // Paths the stack serves come up more often than the ones it does not.
  const sessions = has(spec, 'session(') ? 3 : 1;
  const files = has(spec, 'serveStatic') || has(spec, 'fw.static') ? 3 : 1;
  const choices: Array<[number, () => string]> = [
    [3, () => `/info${query}`],
    [4, () => `/r/${Math.floor(random() * routes)}${query}`],
    [
      sessions,
      () => pick(random, ['/s/inc', '/s/inc', '/s/show', '/s/destroy', '/s/regen', '/s/save', '/s/reload', '/s/age']),
    ],
    [has(spec, 'multer') ? 2 : 0.5, () => '/upload'],
    [
      files,
      () =>
        mount +
        pick(random, [
          '/',
          '/a.txt',
          '/big.txt',
          '/huge.txt',
          '/sub',
          '/sub/',
          '/.hidden',
          '/missing.txt',
          '/page',
          '/data.json',
          '/with%20space.txt',
          '/%2e%2e/secret',
          '/a.txt?v=1',
          '/sub?x=1',
          '/a.txt/',
          '/%00',
          '/%',
          '/sub%2Findex.html',
        ]),
    ],
    [has(spec, 'favicon') ? 1 : 0.3, () => '/favicon.ico'],
    [
      1,
      () =>
        pick(random, [
          '/nowhere',
          '/r',
          '/r/',
          '//info',
          '/INFO',
          '/info/',
          '/r/0/',
          '/r/%30',
          '/r/%',
          '/s/inc/',
          '/go?x=1',
        ]),
    ],
  ];
  let left = random() * choices.reduce((sum, [weight]) => sum + weight, 0);
  const path = (choices.find(([weight]) => (left -= weight) < 0) ?? choices[0])[1]();
  const method = pick(random, [
    'GET',
    'GET',
    'GET',
    'GET',
    'HEAD',
    'POST',
    'POST',
    'POST',
    'PUT',
    'DELETE',
    'OPTIONS',
    'PATCH',
  ]);
  const headers: Record<string, string> = {
    Host: pick(random, ['stack.test', 'stack.test', 'a.b.stack.test:8080', '[::1]:3000']),
  };
  if (chance(random, 0.08)) headers['X-Forwarded-Host'] = 'proxied.test';
  const encoding = pick(random, [
    undefined,
    'gzip',
    'deflate',
    'br',
    'gzip, deflate, br',
    'identity',
    'gzip;q=0, deflate',
  ]);
  if (encoding) headers['Accept-Encoding'] = encoding;
  const accept = pick(random, [undefined, 'application/json', 'text/html', 'text/plain;q=0.5, */*;q=0.1', 'image/png']);
  if (accept) headers.Accept = accept;
  if (chance(random, 0.4)) headers.Origin = pick(random, ORIGINS);
  if (method === 'OPTIONS' && chance(random, 0.7)) {
    headers['Access-Control-Request-Method'] = pick(random, ['PUT', 'DELETE', 'GET']);
    if (chance(random, 0.5)) headers['Access-Control-Request-Headers'] = 'content-type, x-token';
  }
  if (chance(random, 0.1)) headers['X-HTTP-Method-Override'] = pick(random, ['DELETE', 'PUT', 'PATCH']);
  if (chance(random, 0.12)) headers['X-Boom'] = '1';
  if (chance(random, 0.05)) headers['X-No-Compress'] = '1';
  if (chance(random, 0.08)) headers['X-Forwarded-For'] = '10.0.0.1, 10.0.0.2';
  if (chance(random, 0.08)) headers['X-Forwarded-Proto'] = pick(random, ['https', 'https, http']);
  if (chance(random, 0.1)) headers.Referer = 'http://ref.test/from';
  if (chance(random, 0.3)) headers['User-Agent'] = 'stack-tester/1.0';
  if (chance(random, 0.05)) headers['X-Requested-With'] = 'XMLHttpRequest';
  if (chance(random, 0.15)) headers.Authorization = pick(random, ['Basic YWRhOnB3', 'Basic YWRhOm5v', 'Bearer x']);
  if (chance(random, 0.1))
    headers.Range = pick(random, ['bytes=0-4', 'bytes=-5', 'bytes=3-', 'bytes=0-1,4-5', 'bytes=9999-', 'bytes=x']);
  const plan: Plan = { method, path, headers };
  if (['POST', 'PUT', 'PATCH'].includes(method) || (method === 'DELETE' && chance(random, 0.2))) {
    plan.body = body(random, headers);
    // Named, not left to Node's client: it sends a DELETE's body without any framing otherwise.
    if (chance(random, 0.2)) {
      plan.chunked = true;
      headers['Transfer-Encoding'] = 'chunked';
    } else headers['Content-Length'] = String(plan.body?.length ?? 0);
  }
  const conditional = pick(random, ['match', 'match', 'match', 'stale', 'range', 'star', 'list'] as const);
  if ((method === 'GET' || method === 'HEAD') && chance(random, 0.35)) plan.conditional = conditional;
  if (chance(random, 0.25))
    plan.extraCookie = pick(random, [
      'plain=1',
      'obj=j%3A%7B%22a%22%3A1%7D',
      'signed=s%3Avalue.bad',
      'sid=forged',
      'dup=1; dup=2',
    ]);
  return plan;
}

// ---------------------------------------------------------------------------
// The client: a cookie jar and the validators of earlier answers, one per side.

class Client {
  private readonly jar = new Map<string, string>();
  private readonly validators = new Map<string, { etag?: string; modified?: string }>();

  headersFor(plan: Plan): Record<string, string> {
    const headers = { ...plan.headers };
    const cookies = [...this.jar].map(([name, value]) => `${name}=${value}`);
    if (plan.extraCookie) cookies.push(plan.extraCookie);
    if (cookies.length) headers.Cookie = cookies.join('; ');
    const known = this.validators.get(plan.path);
    if (plan.conditional === 'match' && known) {
      if (known.etag) headers['If-None-Match'] = known.etag;
      if (known.modified) headers['If-Modified-Since'] = known.modified;
    } else if (plan.conditional === 'stale') {
      headers['If-None-Match'] = '"stale"';
      headers['If-Modified-Since'] = 'Thu, 01 Jan 1970 00:00:00 GMT';
    } else if (plan.conditional === 'star') {
      headers['If-None-Match'] = '*';
    } else if (plan.conditional === 'list' && known?.etag) {
      headers['If-None-Match'] = `"other", W/${known.etag.replace(/^W\//, '')}`;
    } else if (plan.conditional === 'range' && known) {
      headers.Range = 'bytes=1-3';
      headers['If-Range'] = known.etag ?? known.modified ?? '"none"';
    }
    return headers;
  }

  learn(plan: Plan, answer: Answer): void {
    for (const [name, value] of answer.headers) {
      if (name !== 'set-cookie') continue;
      const [pair, ...attributes] = value.split(';');
      const eq = pair.indexOf('=');
      const cookie = pair.slice(0, eq).trim();
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired) this.jar.delete(cookie);
      else this.jar.set(cookie, pair.slice(eq + 1).trim());
    }
    if (answer.status === 200) {
      const etag = answer.headers.find(([name]) => name === 'etag')?.[1];
      const modified = answer.headers.find(([name]) => name === 'last-modified')?.[1];
      if (etag || modified) this.validators.set(plan.path, { etag, modified });
    }
  }
}

/** The clock; everything else, how the connection is framed and kept included, is compared. */
const SKIPPED: ReadonlySet<string> = new Set(['date']);

function request(
  port: number,
  agent: http.Agent | false,
  plan: Plan,
  headers: Record<string, string>,
): Promise<Answer> {
  return new Promise((resolve) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: plan.method, path: plan.path, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const lines: HeaderLines = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            const name = res.rawHeaders[i].toLowerCase();
            if (!SKIPPED.has(name)) lines.push([name, res.rawHeaders[i + 1]]);
          }
          resolve({ status: res.statusCode ?? 0, headers: lines, body: Buffer.concat(chunks).toString('latin1') });
        });
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ status: -2, headers: [], body: String(err.code) }));
      },
    );
    // Only an answer that never comes meets this (a defect): it is then reported, not waited for.
    req.setTimeout(5000, () => req.destroy(Object.assign(new Error('no answer'), { code: 'NO_ANSWER' })));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: -1, headers: [], body: String(err.code) }));
    if (plan.chunked && plan.body) {
      req.write(plan.body.subarray(0, 3));
      req.end(plan.body.subarray(3));
    } else req.end(plan.body);
  });
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Each line written to stderr while `fn` runs; deprecation notices stay as silenced as they were. */
async function capturingStderr<T>(lines: string[], fn: () => Promise<T>): Promise<T> {
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    return await fn();
  } finally {
    process.stderr.write = write;
  }
}

/** Runs every plan, one after the other, against the app on `fw`; each outcome once the response has closed. */
async function runSide(fw: Framework, spec: AppSpec, plans: Plan[], dir: string): Promise<Outcome[]> {
  const side: Side = { log: [], events: [], stores: [], ids: 0 };
  const stderr: string[] = [];
  return capturingStderr(stderr, () => {
    const app = buildApp(fw, spec, side, dir);
    const closed: Array<Promise<void>> = [];
    const listener: http.RequestListener = (req, res) => {
      closed.push(new Promise((resolve) => res.on('close', resolve)));
      app(req, res);
    };
    return withServer(listener, async (port) => {
      const client = new Client();
      const agent = spec.keepAlive && new http.Agent({ keepAlive: true, maxSockets: 1 });
      const outcomes: Outcome[] = [];
      for (let i = 0; i < plans.length; i++) {
        const sent = client.headersFor(plans[i]);
        const answer = await request(port, agent, plans[i], sent);
        // What the middleware does when the response finishes (logs, store writes) is done by its close.
        await closed[i];
        await turn();
        await turn();
        client.learn(plans[i], answer);
        outcomes.push({
          sent,
          answer,
          log: side.log.splice(0),
          events: side.events.splice(0),
          sessions: side.stores.map((store) => JSON.stringify(store.sessions)).join(' | '),
          stderr: stderr.splice(0),
        });
      }
      if (agent) agent.destroy();
      return outcomes;
    });
  });
}

// ---------------------------------------------------------------------------
// What must differ, and nothing else.

/** X-Response-Time (or its renamed header) measures the clock: its digits are hidden. */
const TIMED = new Set(['x-response-time', 'x-time']);

/** A body as sent, decoded from its Content-Encoding (undefined if it is not one zlib decodes). */
function decoded(answer: Answer): string | undefined {
  const encoding = answer.headers.find(([name]) => name === 'content-encoding')?.[1];
  const bytes = Buffer.from(answer.body, 'latin1');
  try {
    if (encoding === undefined) return answer.body;
    if (encoding === 'gzip') return gunzipSync(bytes).toString('latin1');
    if (encoding === 'deflate') return inflateSync(bytes).toString('latin1');
    if (encoding === 'br') return brotliDecompressSync(bytes).toString('latin1');
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * Development error pages show stack frames, which name each framework's own files and
 * are fewer on webapp (docs/migrating-from-express-4.md, "Stack traces"): the first line
 * is kept; the length is not, nor what the length decides (compression's threshold).
 */
const STACK_PAGE = /<pre>[^]*?<br> &nbsp; &nbsp;at /;

function isStackPage(answer: Answer, env: string): boolean {
  if (env === 'production') return false;
  const text = decoded(answer);
  // The final handler's answer to HEAD: its page is not sent, its length is.
  if (text === '')
    return (
      answer.status >= 400 &&
      answer.headers.some(([n, v]) => n === 'content-security-policy' && v === "default-src 'none'")
    );
  return text !== undefined && STACK_PAGE.test(text);
}

function normalizeAnswer(answer: Answer, env: string): Answer {
  let headers = brandHidden(answer.headers).map(([name, value]): [string, string] => [
    name,
    TIMED.has(name) ? value.replace(/^\d+(\.\d+)?/, '<t>') : value,
  ]);
  let body = answer.body;
  if (isStackPage(answer, env)) {
    body = (decoded(answer) as string).replace(/<br> &nbsp; &nbsp;at [^]*?<\/pre>/, '</pre>');
    headers = headers.filter(([name]) => name !== 'content-length' && name !== 'content-encoding');
  }
  return { status: answer.status, headers, body };
}

/** morgan's lines: the clock (`[:date[clf]]`, response times) hidden. */
const normalizeLog = (lines: string[]): string[] =>
  lines.map((line) =>
    line.replace(/\[\d\d\/\w{3}\/\d{4}:\d\d:\d\d:\d\d \+0000\]/, '[<date>]').replace(/\d+\.\d+ ms/g, '<t> ms'),
  );

/** Errors logged by the final handler: first lines only (stack frames name each framework's files, as above). */
const normalizeStderr = (lines: string[]): string[] =>
  lines
    .join('')
    .split('\n')
    .filter((line) => line !== '' && !/^\s+at /.test(line))
    // A deprecation notice is printed once per process: only the side that runs first prints it.
    .filter((line) => !/ deprecated /.test(line));

/**
 * A file over 64 KB is piped to the response in chunks: 64 KB on Express (fs's default),
 * 128 KB on webapp (src/static/file-body.ts, STREAM_CHUNK: half the reads and writes per
 * megabyte, a deliberate choice not listed in docs/migrating-from-express-4.md). A
 * res.write wrapper sees other chunk sizes, the same bytes: such a run of writes is
 * compared by its total. Shorter runs (a route's own writes) are compared one by one.
 */
function streamedWrites(events: string[]): string[] {
  const out: string[] = [];
  let run: number[] = [];
  const flush = () => {
    const total = run.reduce((sum, n) => sum + n, 0);
    if (total > 64 * 1024) out.push(`write Buffer(${total} in chunks) undefined`);
    else for (const n of run) out.push(`write Buffer(${n}) undefined`);
    run = [];
  };
  for (const event of events) {
    const size = /^write Buffer\((\d+)\) undefined$/.exec(event);
    if (size) run.push(Number(size[1]));
    else {
      flush();
      out.push(event);
    }
  }
  flush();
  return out;
}

function normalizeOutcome(outcome: Outcome, env: string): Omit<Outcome, 'sent'> {
  let log = normalizeLog(outcome.log);
  // The length of a development error page, as morgan logs it (see STACK_PAGE).
  const length = outcome.answer.headers.find(([name]) => name === 'content-length')?.[1];
  let events = streamedWrites(outcome.events);
  if (isStackPage(outcome.answer, env)) {
    if (length) log = log.map((line) => line.replaceAll(` ${length}`, ' <length>'));
    events = events.map((event) => event.replace(/^(write|end) (string|Buffer)\(\d+\)/, '$1 $2(<length>)'));
  }
  return {
    answer: normalizeAnswer(outcome.answer, env),
    log,
    events,
    sessions: outcome.sessions,
    stderr: normalizeStderr(outcome.stderr),
  };
}

// ---------------------------------------------------------------------------

function writeFixtures(dir: string): void {
  const pub = join(dir, 'public');
  mkdirSync(join(pub, 'sub'), { recursive: true });
  mkdirSync(join(dir, 'views'));
  const files: Record<string, string | Buffer> = {
    'public/index.html': '<h1>index</h1>\n',
    'public/a.txt': 'hello static\n',
    'public/big.txt': BIG,
    'public/huge.txt': 'Lorem ipsum dolor sit amet. '.repeat(5000),
    'public/data.json': '{"data":true}\n',
    'public/.hidden': 'secret dotfile\n',
    'public/page.html': '<p>page by extension</p>\n',
    'public/with space.txt': 'spaced\n',
    'public/sub/index.html': '<h1>sub index</h1>\n',
    'favicon.ico': Buffer.from([0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0, 4, 0, 0, 0]),
    'views/page.ejs':
      '<h1><%= title %></h1><% if (typeof user !== "undefined") { %> user=<%= user %> count=<%= count %><% } %>\n',
  };
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(dir, name), content);
    utimesSync(join(dir, name), new Date(1e12), new Date(1e12));
  }
  for (const folder of ['public', 'public/sub', 'views']) utimesSync(join(dir, folder), new Date(1e12), new Date(1e12));
}

describe('generated stacks of npm middleware compared with express@4', () => {
  const deprecations = process.noDeprecation;
  let dir = '';
  before(() => {
    Date.now = () => NOW;
    // Deprecation notices are printed once per process: the second side would not see them.
    process.noDeprecation = true;
    dir = mkdtempSync(join(tmpdir(), 'webapp-stacks-'));
    writeFixtures(dir);
  });
  after(() => {
    Date.now = realNow;
    process.noDeprecation = deprecations;
    rmSync(dir, { recursive: true, force: true });
  });

  it('random stacks, random requests: answers and side effects', { timeout: 120_000 }, async () => {
    const random = prng(0x57ac4);
    const apps = 24;
    const perApp = 20;
    const differences: string[] = [];
    for (let a = 0; a < apps; a++) {
      const spec = drawApp(random);
      const plans = Array.from({ length: perApp }, () => drawPlan(random, spec));
      const want = await runSide(express, spec, plans, dir);
      const got = await runSide(webapp as unknown as Framework, spec, plans, dir);
      const layers = [...spec.layers, ...spec.routes].map((l) => l.text).join('\n    ');
      for (let i = 0; i < plans.length; i++) {
        const expected = normalizeOutcome(want[i], spec.settings.env);
        const actual = normalizeOutcome(got[i], spec.settings.env);
        if (isDeepStrictEqual(actual, expected)) continue;
        differences.push(
          `app ${a} ${show(spec.settings)}${spec.keepAlive ? ' keep-alive' : ''} routes in ${spec.routesIn}, ` +
            `error handler ${spec.errorHandler}${spec.notFound ? ', 404 handler' : ''}\n` +
            `    ${layers}\n` +
            `  request ${i}: ${plans[i].method} ${plans[i].path} ${show(want[i].sent)}` +
            (plans[i].body ? ` body ${show(plans[i].body?.toString('latin1'), 80)}` : '') +
            `\n  express: ${show(expected, 600, 5)}\n  webapp:  ${show(actual, 600, 5)}`,
        );
        // Later requests of the app carry this one's consequences (cookies, counts): one difference an app.
        break;
      }
    }
    assertNoDifferences(differences, apps, 'generated stacks differ from express@4', 6);
  });
});
