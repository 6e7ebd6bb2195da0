/**
 * Whole Express 3 apps, generated (seeded) and built the 3.x way, on express@3.21 and
 * on webapp/v3: logger (to a discarded stream), favicon, bodyParser or json/urlencoded,
 * methodOverride, cookieParser, session (memory store), csrf, compress, static and
 * directory with `app.router` before or after them, 3.x routes (`:id?`, `*`, regexps,
 * `app.param` with a function and with a RegExp through 3.x's param logic, middleware
 * arrays), `req.param`, `res.locals`, `app.locals`, `res.render` with an inline engine,
 * a mounted sub-app, thrown errors and `next(err)`, and `errorHandler` or a handler of
 * the app's own at the end.
 *
 * Each app gets a conversation: requests one at a time, the cookies each side set sent
 * back to it (so sessions persist), csrf tokens fetched and sent back (or a wrong one,
 * or none), static files asked again with the ETag or Last-Modified that side gave,
 * `_method` overrides, form and JSON bodies, odd paths. Answers are compared whole
 * (status, header lines in order but Date/Connection/Keep-Alive, body) after masking
 * what is random on each side: session ids (their signature checked instead), csrf
 * tokens (their shape kept), stack frames, X-Powered-By's value.
 */
import { express3 } from '../support/legacy-oracles';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe } from 'node:test';
import { inspect } from 'node:util';
import { gunzipSync, inflateSync } from 'node:zlib';
import webapp3 = require('../../src/v3/index');
import { sign } from '../../src/http/cookie-signature';
import { itWithLiveOracle } from '../support/oracle-recording';
import { chance, pick, prng, type Random } from '../support/prng';
import { withServer } from '../support/raw-http';
import { assertNoDifferences, isDeepStrictEqual, show, type Answer } from '../support/generated-answers';

type Any = any;

const SECRET = 'keyboard cat';
const LIVE = 'generated whole 3.x apps';

let root = '';
let publicDir = '';
let viewsDir = '';

before(() => {
  root = mkdtempSync(join(tmpdir(), 'webapp-v3-apps-'));
  publicDir = join(root, 'public');
  viewsDir = join(root, 'views');
  mkdirSync(join(publicDir, 'docs', 'deep'), { recursive: true });
  mkdirSync(join(publicDir, 'empty'));
  mkdirSync(viewsDir);
  writeFileSync(join(publicDir, 'index.html'), '<p>index</p>\n');
  writeFileSync(join(publicDir, 'a.txt'), 'alpha\n');
  writeFileSync(join(publicDir, 'big.css'), 'body { color: red; }\n'.repeat(120));
  writeFileSync(join(publicDir, 'docs', 'b.json'), '{"b":1}\n');
  writeFileSync(join(publicDir, 'docs', 'deep', 'c.md'), '# c\n');
  writeFileSync(join(publicDir, 'users'), 'a file named users\n');
  writeFileSync(join(viewsDir, 'page.tpl'), '<h1>{{title}}</h1><p>{{name}} {{who}} {{missing}}</p>');
  writeFileSync(join(viewsDir, 'layout.tpl'), '[{{title}}|{{site}}]');
});

after(() => rmSync(root, { recursive: true, force: true }));

/** How one generated app is built. */
interface AppSpec {
  env: 'development' | 'production';
  logger?: string;
  compress: 'none' | 'first' | 'late';
  favicon: boolean;
  bodies: 'bodyParser' | 'json+urlencoded' | 'json' | 'urlencoded' | 'none';
  methodOverride: boolean;
  cookies: boolean;
  session: boolean;
  csrf: boolean;
  staticFiles: boolean;
  directory: boolean;
  routerFirst: boolean;
  sub: boolean;
  paramForm: 'function' | 'regexp' | 'none';
  errors: 'errorHandler' | 'own' | 'none';
  locals: 'call' | 'assign';
}

function appSpec(random: Random): AppSpec {
  const cookies = chance(random, 0.7);
  const env = pick(random, ['development', 'production'] as const);
  const session = cookies && chance(random, 0.8);
  return {
    env,
    logger: chance(random, 0.6) ? pick(random, ['default', 'short', 'tiny', 'dev', ':method :url :status']) : undefined,
    compress: pick(random, ['none', 'first', 'late'] as const),
    favicon: chance(random, 0.5),
    bodies: pick(random, ['bodyParser', 'json+urlencoded', 'json', 'urlencoded', 'none'] as const),
    methodOverride: chance(random, 0.6),
    cookies,
    session,
    csrf: session && chance(random, 0.5),
    staticFiles: chance(random, 0.7),
    directory: chance(random, 0.5),
    routerFirst: chance(random, 0.5),
    sub: chance(random, 0.6),
    paramForm: pick(random, ['function', 'regexp', 'none'] as const),
    // Documented: Connect's last handler follows NODE_ENV, webapp's the app's env
    // (no stack in production), so a production app ends with a handler of its own.
    errors: pick(
      random,
      env === 'production' ? (['errorHandler', 'own'] as const) : (['errorHandler', 'own', 'none'] as const),
    ),
    locals: pick(random, ['call', 'assign'] as const),
  };
}

/** The inline engine: `{{name}}` from the render options, a layout when one is named. */
function tplEngine(path: string, options: Any, callback: (err: unknown, html?: string) => void): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return callback(err);
  }
  const html = text.replace(/\{\{(\w+)\}\}/g, (_all, name: string) =>
    options[name] === undefined ? '' : String(options[name]),
  );
  callback(null, html);
}

const discard = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

/** A stack frame's lines differ between the two frameworks' sources: masked in bodies. */
const err = (message: string, fields: Record<string, unknown> = {}) => Object.assign(new Error(message), fields);

function build(express: Any, spec: AppSpec): http.RequestListener {
  const app = express();
  app.set('env', spec.env);
  app.set('views', viewsDir);
  app.set('view engine', 'tpl');
  app.engine('tpl', tplEngine);
  if (spec.locals === 'call') app.locals({ title: 'Site', site: 'S' });
  else {
    app.locals.title = 'Site';
    app.locals.site = 'S';
  }
  if (spec.compress === 'first') app.use(express.compress());
  if (spec.logger) app.use(express.logger({ format: spec.logger, stream: discard() }));
  if (spec.compress === 'late') app.use(express.compress());
  if (spec.favicon) app.use(express.favicon());
  if (spec.bodies === 'bodyParser') app.use(express.bodyParser());
  if (spec.bodies.includes('json')) app.use(express.json());
  if (spec.bodies.includes('urlencoded')) app.use(express.urlencoded());
  if (spec.methodOverride) app.use(express.methodOverride());
  if (spec.cookies) app.use(express.cookieParser(SECRET));
  if (spec.session) app.use(express.session({ secret: SECRET }));
  if (spec.csrf) app.use(express.csrf());
  app.use((req: Any, res: Any, next: Any) => {
    res.locals.who = 'local';
    next();
  });
  const files = () => {
    if (spec.staticFiles) app.use(express.static(publicDir));
    if (spec.directory) app.use(express.directory(publicDir));
  };
  if (!spec.routerFirst) files();
  app.use(app.router);
  if (spec.routerFirst) files();

  if (spec.paramForm === 'regexp') {
    // 3.x's documented param logic: app.param(name, RegExp).
    app.param((name: string, fn: unknown) => {
      if (fn instanceof RegExp)
        return (req: Any, _res: Any, next: Any, val: unknown) => {
          const captures = fn.exec(String(val));
          if (captures) {
            req.params[name] = captures;
            next();
          } else next('route');
        };
      return undefined;
    });
    app.param('num', /^\d+$/);
  } else if (spec.paramForm === 'function') {
    app.param('num', (req: Any, _res: Any, next: Any, num: string) => {
      if (num === '0') return next(err('zero', { status: 422 }));
      if (num === 'route') return next('route');
      req.num = Number(num) * 2;
      next();
    });
  }
  app.param('id', (req: Any, _res: Any, next: Any, id: string) => {
    req.user = { id, upper: id.toUpperCase() };
    next();
  });

  app.get('/', (req: Any, res: Any) => res.send('home ' + req.method));
  app.get('/users/:id?', (req: Any, res: Any) =>
    res.send({ id: req.params.id ?? null, param: req.param('id') ?? null, user: req.user ?? null, q: req.query }),
  );
  app.get('/files/*', (req: Any, res: Any) => res.send(200, 'file ' + req.params[0] + ' ' + req.param('x', 'dx')));
  app.get(/^\/re\/(\d+)(?:\.(\w+))?$/, (req: Any, res: Any) => res.json(req.params));
  app.get('/num/:num', (req: Any, res: Any) => res.json({ num: req.params.num, doubled: req.num ?? null }));
  app.get('/num/:num', (req: Any, res: Any) => res.send(404, 'no number ' + req.params.num));
  app.get('/:a-:b/pair', (req: Any, res: Any) => res.json([req.params.a, req.params.b]));
  const trail =
    (name: string) =>
    (req: Any, res: Any, next: Any): void => {
      res.locals.trail = (res.locals.trail || '') + name;
      if (req.query.stop === name) return next('route');
      if (req.query.fail === name) return next(err('failed in ' + name, { status: 418 }));
      next();
    };
  app.get('/mw', [trail('a'), trail('b')], trail('c'), (req: Any, res: Any) => res.send(res.locals.trail));
  app.get('/mw', (req: Any, res: Any) => res.send('after route ' + res.locals.trail));
  app.post('/echo', (req: Any, res: Any) =>
    res.json({ method: req.method, body: req.body ?? null, p: req.param('a') ?? null }),
  );
  app.put('/echo', (req: Any, res: Any) => res.send(200, 'PUT ' + JSON.stringify(req.body ?? null)));
  app.del('/echo', (req: Any, res: Any) => res.send('DELETE ' + req.originalUrl));
  app.all('/any', (req: Any, res: Any) => res.send(req.method + ' ' + req.url));
  app.get('/render', (req: Any, res: Any) => res.render('page', { name: req.query.name }));
  app.get('/render-layout', (req: Any, res: Any) =>
    res.render('layout', (e: Any, html: string) => (e ? res.send(500, 'render failed') : res.send(html))),
  );
  app.get('/render-missing', (req: Any, res: Any) => res.render('missing'));
  app.get('/throw', () => {
    throw err('thrown');
  });
  app.get('/status/:code', (req: Any, _res: Any, next: Any) =>
    next(err('with status', { status: Number(req.params.code) })),
  );
  app.get('/next-string', (_req: Any, _res: Any, next: Any) => next('a string'));
  app.get('/session', (req: Any, res: Any) => {
    if (!req.session) return res.send('no session');
    req.session.n = (req.session.n || 0) + 1;
    res.json({ n: req.session.n });
  });
  app.get('/logout', (req: Any, res: Any) => {
    if (!req.session) return res.send('no session');
    req.session.destroy(() => res.redirect('/'));
  });
  app.get('/csrf', (req: Any, res: Any) => res.send(req.csrfToken ? req.csrfToken() : 'no csrf'));
  app.post('/form', (req: Any, res: Any) => res.send('posted ' + JSON.stringify(req.body ?? null)));
  app.get('/redirect', (req: Any, res: Any) => res.redirect(req.query.to || '/users/1'));
  app.get('/cookie', (req: Any, res: Any) => {
    if (spec.cookies) res.cookie('signed', 'v' + (req.query.v || ''), { signed: true });
    res.cookie('plain', { j: req.query.v || 1 });
    res.send({ cookies: req.cookies ?? null, signed: req.signedCookies ?? null });
  });
  app.get('/clear', (req: Any, res: Any) => {
    res.clearCookie('plain');
    res.send(204);
  });
  app.get('/big', (req: Any, res: Any) => res.send('big '.repeat(600)));
  app.get('/json-big', (req: Any, res: Any) => res.json({ items: Array.from({ length: 200 }, (_, i) => i) }));

  if (spec.sub) {
    const sub = express();
    sub.set('views', viewsDir);
    sub.engine('tpl', tplEngine);
    sub.get('/', (req: Any, res: Any) => res.send('sub root ' + req.url + ' ' + req.originalUrl));
    sub.get('/render', (req: Any, res: Any) => res.render('page.tpl', { name: 'sub' }));
    sub.get('/:name', (req: Any, res: Any) =>
      res.json({ name: req.params.name, url: req.url, original: req.originalUrl, title: res.locals.title ?? null }),
    );
    sub.get('/fail/:code', (req: Any, _res: Any, next: Any) => next(err('sub', { status: Number(req.params.code) })));
    app.use('/sub', sub);
  }

  if (spec.errors === 'errorHandler') app.use(express.errorHandler({ log: false }));
  else if (spec.errors === 'own')
    app.use((e: Any, req: Any, res: Any, _next: Any) =>
      res.send(e.status || 500, 'own handler: ' + (e.message ?? String(e))),
    );
  return app;
}

/** One request of a conversation, resolved against what that side answered before. */
interface Step {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: { kind: 'form' | 'json' | 'text'; data: Record<string, unknown> | string };
  csrf?: 'valid' | 'wrong' | 'header';
  conditional?: 'etag' | 'modified';
  sendCookies: boolean;
}

const GET_PATHS = [
  '/',
  '/users',
  '/users/',
  '/users/7',
  '/users/ada?x=1&y[z]=2',
  '/USERS/7',
  '/users/7/',
  '//users/7',
  '/users/%E9t%C3%A9',
  '/users/%zz',
  '/files/a/b/c.txt?x=q',
  '/files/',
  '/files/a%2Fb',
  '/re/12',
  '/re/12.json',
  '/re/x',
  '/num/42',
  '/num/0',
  '/num/x',
  '/num/route',
  '/x-y/pair',
  '/a-b-c/pair',
  '/mw',
  '/mw?stop=b',
  '/mw?fail=a',
  '/mw?fail=c',
  '/render?name=%3Cb%3E',
  '/render-layout',
  '/render-missing',
  '/throw',
  '/status/404',
  '/status/400',
  '/status/503',
  '/status/200',
  '/status/302',
  '/status/700',
  '/next-string',
  '/session',
  '/session',
  '/session',
  '/logout',
  '/csrf',
  '/redirect',
  '/redirect?to=http://example.com/%20x',
  '/cookie?v=1',
  '/clear',
  '/big',
  '/json-big',
  '/any?q',
  '/nowhere',
  '/%',
  '/a.txt',
  '/a.txt?v=1',
  '/index.html',
  '/big.css',
  '/docs',
  '/docs/',
  '/docs/b.json',
  '/docs/deep/',
  '/empty/',
  '/../a.txt',
  '/docs/..%2fa.txt',
  '/favicon.ico',
  '/sub',
  '/sub/',
  '/sub/x?y=1',
  '/sub/render',
  '/sub/fail/401',
  '/sub/fail/500',
  '/SUB/abc',
];

const ACCEPTS = [
  '',
  '*/*',
  'text/html',
  'application/json',
  'text/plain',
  'image/png',
  'text/html,application/json;q=0.5',
];

function step(random: Random, spec: AppSpec): Step {
  const headers: Record<string, string> = {};
  const accept = pick(random, ACCEPTS);
  if (accept) headers.accept = accept;
  if (chance(random, 0.4)) headers['accept-encoding'] = pick(random, ['gzip', 'deflate', 'gzip, deflate', 'identity']);
  const sendCookies = chance(random, 0.9);
  const roll = random();
  if (roll < 0.62) {
    const path = pick(random, GET_PATHS);
    // Documented: directory()'s HTML page is webapp's own.
    if (spec.directory && (/\/(\?|$)/.test(path) || path === '/docs'))
      headers.accept = pick(random, ['application/json', 'text/plain']);
    const conditional = chance(random, 0.25) ? pick(random, ['etag', 'modified'] as const) : undefined;
    return { method: chance(random, 0.12) ? 'HEAD' : 'GET', path, headers, conditional, sendCookies };
  }
  const path = pick(random, ['/echo', '/echo', '/form', '/any', '/echo?a=q', '/users/1', '/sub/x']);
  let method = pick(random, ['POST', 'POST', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);
  const kind = pick(random, ['form', 'form', 'json', 'text'] as const);
  const data: Record<string, unknown> = chance(random, 0.5) ? { a: pick(random, ['1', 'x y', '', 'é']) } : {};
  if (chance(random, 0.3)) data.list = ['p', 'q'];
  if (chance(random, 0.2)) data.nested = { k: 'v' };
  if (method === 'POST' && chance(random, 0.35)) {
    data._method = pick(random, ['PUT', 'delete', 'patch', 'GET', 'bogus']);
  }
  if (method === 'POST' && chance(random, 0.1)) headers['x-http-method-override'] = pick(random, ['PUT', 'DELETE']);
  const body: Step['body'] =
    kind === 'text' ? { kind, data: pick(random, ['plain', '{"broken":', 'a=1&b=2']) } : { kind, data };
  if (kind === 'json' && chance(random, 0.1)) body.data = '{"broken":';
  const csrf =
    spec.csrf && chance(random, 0.85) ? pick(random, ['valid', 'valid', 'wrong', 'header'] as const) : undefined;
  if (chance(random, 0.05)) method = 'POST';
  return { method, path, headers, body, csrf, sendCookies };
}

/** What one side remembers between requests: its cookies, its csrf token, its validators. */
interface Memory {
  cookies: Map<string, string>;
  token?: string;
  validators: Map<string, { etag?: string; modified?: string }>;
}

function encodeForm(data: Record<string, unknown>, prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    const name = prefix ? `${prefix}[${key}]` : key;
    if (Array.isArray(value))
      for (const item of value) out.push(`${encodeURIComponent(name)}=${encodeURIComponent(item)}`);
    else if (value && typeof value === 'object') out.push(...encodeForm(value as Record<string, unknown>, name));
    else out.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  }
  return out;
}

function resolve(
  item: Step,
  memory: Memory,
): { method: string; path: string; headers: Record<string, string>; body?: string } {
  const headers = { ...item.headers };
  if (item.sendCookies && memory.cookies.size)
    headers.cookie = [...memory.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const seen = memory.validators.get(item.path);
  if (item.conditional === 'etag' && seen?.etag) headers['if-none-match'] = seen.etag;
  if (item.conditional === 'modified' && seen?.modified) headers['if-modified-since'] = seen.modified;
  let body: string | undefined;
  if (item.body) {
    const token = item.csrf === 'wrong' ? 'not-a-token' : memory.token;
    let data = item.body.data;
    if (item.csrf === 'header' && token) headers['x-csrf-token'] = token;
    if ((item.csrf === 'valid' || item.csrf === 'wrong') && token && typeof data === 'object')
      data = { ...data, _csrf: token };
    if (item.body.kind === 'json') {
      headers['content-type'] = 'application/json';
      body = typeof data === 'string' ? data : JSON.stringify(data);
    } else if (item.body.kind === 'form') {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = typeof data === 'string' ? data : encodeForm(data).join('&');
    } else {
      headers['content-type'] = 'text/plain';
      body = typeof data === 'string' ? data : JSON.stringify(data);
    }
  }
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return { method: item.method, path: item.path, headers, body };
}

function remember(item: Step, answer: Answer, memory: Memory): void {
  for (const [name, value] of answer.headers) {
    if (name === 'set-cookie') {
      const pair = value.split(';')[0];
      const eq = pair.indexOf('=');
      const cookieName = pair.slice(0, eq);
      if (/Expires=Thu, 01 Jan 1970/.test(value)) memory.cookies.delete(cookieName);
      else memory.cookies.set(cookieName, pair.slice(eq + 1));
    }
  }
  if (item.path === '/csrf' && answer.status === 200 && answer.body !== 'no csrf') memory.token = answer.body;
  const etag = answer.headers.find(([name]) => name === 'etag')?.[1];
  const modified = answer.headers.find(([name]) => name === 'last-modified')?.[1];
  if (etag || modified) memory.validators.set(item.path, { etag, modified });
}

function sendOne(port: number, agent: http.Agent, spec: ReturnType<typeof resolve>): Promise<Answer> {
  return new Promise((done) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: spec.method, path: spec.path, headers: spec.headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const headers: Array<[string, string]> = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            const name = res.rawHeaders[i].toLowerCase();
            if (name !== 'date' && name !== 'connection' && name !== 'keep-alive')
              headers.push([name, res.rawHeaders[i + 1]]);
          }
          done({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('latin1') });
        });
        res.on('error', (e: NodeJS.ErrnoException) => done({ status: -2, headers: [], body: String(e.code) }));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => done({ status: -1, headers: [], body: String(e.code) }));
    req.end(spec.body);
  });
}

/** Sends the conversation, one request at a time, to a server for `listener`. */
function converse(
  listener: http.RequestListener,
  steps: readonly Step[],
): Promise<{ sent: string[]; answers: Answer[] }> {
  return withServer(listener, async (port) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const memory: Memory = { cookies: new Map(), validators: new Map() };
    const answers: Answer[] = [];
    const sent: string[] = [];
    try {
      for (const item of steps) {
        const spec = resolve(item, memory);
        sent.push(inspect(spec, { breakLength: Infinity, maxStringLength: 200 }));
        const answer = await sendOne(port, agent, spec);
        answers.push(answer);
        remember(item, answer, memory);
      }
    } finally {
      agent.destroy();
    }
    return { sent, answers };
  });
}

/**
 * What is random or source-dependent on each side, masked: session ids numbered in
 * order of appearance (the signature checked against the id), csrf tokens by shape,
 * stack frames, X-Powered-By's value, and the lengths of what these change.
 */
function normalizer(spec: AppSpec) {
  const ids = new Map<string, string>();
  const tokens = new Map<string, string>();
  const idOf = (id: string) => {
    if (!ids.has(id)) ids.set(id, `<sid${ids.size}>`);
    return ids.get(id)!;
  };
  const session = (value: string) =>
    value.replace(/connect\.sid=([^;]*)/, (_all, raw: string) => {
      const decoded = decodeURIComponent(raw);
      const match = /^s:([^.]+)\.(.*)$/.exec(decoded);
      if (!match) return `connect.sid=<unsigned ${raw}>`;
      const good = sign(match[1], SECRET) === decoded.slice(2);
      return `connect.sid=s%3A${idOf(match[1])}.${good ? '<signature>' : '<bad signature>'}`;
    });
  const tokenShape = (token: string) => {
    if (!tokens.has(token)) tokens.set(token, `<token${tokens.size} ${token.length} ${/^[\w-]+$/.test(token)}>`);
    return tokens.get(token)!;
  };
  return (item: Step, answer: Answer, token: string | undefined): Answer => {
    // Session ids first: bodies may show them (req.signedCookies).
    for (const [name, value] of answer.headers) if (name === 'set-cookie') session(value);
    let body = answer.body;
    if (item.path === '/csrf' && answer.status === 200 && body !== 'no csrf') body = tokenShape(body);
    if (token) body = body.split(token).join(tokenShape(token));
    for (const [id, name] of ids) body = body.split(id).join(name);
    const encoding = answer.headers.find(([name]) => name === 'content-encoding')?.[1];
    if (body && (encoding === 'gzip' || encoding === 'deflate')) {
      const bytes = Buffer.from(body, 'latin1');
      body = '<' + encoding + '>' + (encoding === 'gzip' ? gunzipSync(bytes) : inflateSync(bytes)).toString('latin1');
    }
    // Documented: errorHandler's HTML page is webapp's own, its title as Connect's (so with the
    // error's message); how many frames a stack has depends on each framework's own calls.
    const title = /<title>([^<]*)<\/title>[^]*(id="stacktrace"|id="wrapper")/.exec(body);
    if (title && answer.status >= 400) body = `<errorHandler page: ${title[1]}>`;
    body = body
      .replace(
        /(?:(?:\n|<br>|\\n)[ \t]*(?:&nbsp;[ \t]*)*|<li>(?:&nbsp;| )*)at (?:<anonymous>|[^\n<"\\])*(?:<\/li>)?/g,
        '<frame>',
      )
      .replace(/(?:<frame>)+/g, '<frames>');
    if (spec.favicon && item.path === '/favicon.ico') body = `<favicon ${body.length > 0}>`;
    // A HEAD answer's length still counts the frames of the page it leaves out.
    const changed = body !== answer.body || (item.method === 'HEAD' && answer.status >= 400);
    // compress's threshold sees the length of a page with a stack: how it is framed follows.
    const framing = body.includes('<frames>')
      ? new Set(['content-encoding', 'transfer-encoding', 'content-length'])
      : new Set();
    if (framing.size) body = body.replace(/^<(gzip|deflate)>/, '');
    // A HEAD answer's ETag still hashes the session id its body would show.
    if (spec.session && item.path.startsWith('/cookie')) framing.add('etag');
    const headers = answer.headers
      .filter(([name]) => !framing.has(name))
      .map(([name, value]): [string, string] => {
        if (name === 'set-cookie') return [name, session(value)];
        if (name === 'x-powered-by') return [name, '<present>'];
        if (changed && (name === 'content-length' || name === 'etag' || name === 'last-modified'))
          return [name, '<masked>'];
        return [name, value];
      });
    return { status: answer.status, headers, body };
  };
}

/** Whether a body is the JSON of webapp's documented `/:a-:b` answer to `/a-b-c/pair`. */
function isPair(body: string): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(body), ['a-b', 'c']);
  } catch {
    return false;
  }
}

/**
 * Differences docs/migrating-from-express-3.md and the README list: a status from 600 up
 * answers 500; `/:a-:b` gives the later parameter no `-`; `directory` passes a path
 * through a file on (3.21: a 500 ENOTDIR) and answers 400 for an undecodable one (3.21:
 * 500); a redirect target is percent-encoded.
 */
function documented(item: Step, spec: AppSpec, want: Answer, got: Answer): boolean {
  if (want.status >= 600 && got.status === 500) return true;
  // Read as JSON: an app whose `json spaces` is set (3.21's default in development) indents it.
  if (item.path === '/a-b-c/pair') return item.method === 'HEAD' ? got.body === '' : isPair(got.body);
  // A body parser's error has `expose` and `type` besides 3.21's fields.
  if (want.status === 400 && got.status === 400 && /^\{"error"/.test(want.body)) {
    const fields = (body: string) => {
      const { expose: _expose, type: _type, ...rest } = JSON.parse(body).error;
      return Object.fromEntries(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1)));
    };
    return isDeepStrictEqual(fields(got.body), fields(want.body));
  }
  // (HEAD answers have no body to tell: the path does.)
  const throughFile = /^\/+users\//.test(item.path) && !item.path.includes('%');
  const undecodable = /%(?![0-9a-f]{2})|%E9t/i.test(item.path.split('?')[0]);
  if (spec.directory && want.status === 500 && (want.body.includes('ENOTDIR') || (!want.body && throughFile)))
    return got.status !== 500;
  if (spec.directory && want.status === 500 && (want.body.includes('URI malformed') || (!want.body && undecodable)))
    return got.status === 400;
  // JSON key order only (docs/migrating-from-express-3.md, "Body parser errors"): Connect's
  // http-errors 1.3.1 put `statusCode` before `status` on its classes' prototypes, webapp's
  // (as http-errors 2) the other way round, so errorHandler's JSON lists csrf's 403 fields so.
  if (want.status === 403 && want.body.includes('"statusCode":403,"status":403'))
    return got.body === want.body.replace('"statusCode":403,"status":403', '"status":403,"statusCode":403');
  const location = (answer: Answer) => answer.headers.find(([name]) => name === 'location')?.[1];
  const wanted = location(want);
  if (wanted && /[ ]/.test(wanted)) return want.status === got.status && location(got) === encodeURI(wanted);
  return false;
}

const APPS = 24;
const STEPS = 30;

describe('webapp/v3: generated whole apps against express@3.21', () => {
  for (let n = 0; n < APPS; n++) {
    itWithLiveOracle(`app ${n}`, LIVE, async () => {
      const random = prng(0xa995 + n * 7919);
      const spec = appSpec(random);
      const steps = Array.from({ length: STEPS }, () => step(random, spec));
      // Both sides log the errors their last handler answers: not this test's output.
      const log = console.error;
      console.error = () => {};
      let want, got;
      try {
        want = await converse(build(express3, spec), steps);
        got = await converse(build(webapp3, spec), steps);
      } finally {
        console.error = log;
      }
      const normalizeWant = normalizer(spec);
      const normalizeGot = normalizer(spec);
      const differences: string[] = [];
      let tokenWant: string | undefined;
      let tokenGot: string | undefined;
      for (let i = 0; i < steps.length; i++) {
        if (steps[i].path === '/csrf' && want.answers[i].status === 200) tokenWant = want.answers[i].body;
        if (steps[i].path === '/csrf' && got.answers[i].status === 200) tokenGot = got.answers[i].body;
        const a = normalizeWant(steps[i], want.answers[i], tokenWant);
        const b = normalizeGot(steps[i], got.answers[i], tokenGot);
        if (!isDeepStrictEqual(b, a) && !documented(steps[i], spec, a, b))
          differences.push(
            `#${i} ${want.sent[i]}\n  webapp sent: ${got.sent[i]}\n` +
              `  express3: ${show(a, 600)}\n  webapp:   ${show(b, 600)}`,
          );
      }
      assertNoDifferences(
        differences,
        steps.length,
        `app ${inspect(spec, { breakLength: Infinity })}: answers differ`,
        4,
      );
    });
  }
});
