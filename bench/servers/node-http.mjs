// node:http, the ceiling: the least work that still answers each workload
// correctly. Routing is a hand-written Map lookup, middlewares are a plain loop of
// no-op calls, the static files are a stat plus a stream (without conditional GET
// or ranges), the nested query goes through qs, the view is compiled once and the
// gzip is one zlib call: a floor for the cost of a framework, not a competitor.
import { createRequire } from 'node:module';
import {
  BODY_LIMIT_BYTES,
  COUNT,
  GZIP_TEXT,
  ROUTE_COUNT,
  SET_COOKIE,
  VIEW_LOCALS,
  announce,
  cityOf,
  kind,
  productionMiddleware,
  routePath,
  sendFilePath,
  staticRoot,
  summariseBody,
  summariseForm,
  viewsRoot,
} from './shared.mjs';

const require = createRequire(import.meta.url);
// Node's modules through `require`, not `import`: on Node 22 and later, importing
// node:http from ESM builds a namespace of all its exports, and its lazy WebSocket,
// CloseEvent and MessageEvent getters load undici (30 to 50 ms before the first
// request). A floor for cold start must not pay that, and the other servers do not:
// they load node:http from CommonJS. zlib loads only for the gzip workload.
const { createReadStream, stat } = require('node:fs');
const { createServer } = require('node:http');
const { join } = require('node:path');
const gzip = kind === 'gzip' ? require('node:zlib').gzip : undefined;

function send(res, status, type, body) {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const sendText = (res, status, text) => send(res, status, 'text/plain; charset=utf-8', text);
const sendJson = (res, value) => send(res, 200, 'application/json; charset=utf-8', JSON.stringify(value));
const notFound = (res) => sendText(res, 404, 'Not Found');

function hello(req, res) {
  if (req.url === '/') sendText(res, 200, 'Hello World');
  else notFound(res);
}

function json(req, res) {
  if (req.url === '/json') sendJson(res, { hello: 'world' });
  else notFound(res);
}

function routes() {
  const table = new Map();
  for (let i = 0; i < ROUTE_COUNT; i++) table.set(routePath(i), (res, id) => sendText(res, 200, id));
  return (req, res) => {
    const slash = req.url.indexOf('/', 1);
    const handler = slash > 0 ? table.get(req.url.slice(0, slash)) : undefined;
    const id = slash > 0 ? req.url.slice(slash + 1) : '';
    if (handler && id && !id.includes('/')) handler(res, decodeURIComponent(id));
    else notFound(res);
  };
}

function middleware() {
  const chain = Array.from({ length: COUNT }, () => (req, res, next) => next());
  return (req, res) => {
    let index = 0;
    const next = () => (index < chain.length ? chain[index++](req, res, next) : hello(req, res));
    next();
  };
}

function routers(req, res) {
  const prefix = '/api/v1/users/';
  const id = req.url.startsWith(prefix) ? req.url.slice(prefix.length) : '';
  if (id && !id.includes('/')) sendText(res, 200, decodeURIComponent(id));
  else notFound(res);
}

/** The body, up to the limit, then `done(text)`; 413 beyond it. */
function collect(req, res, done) {
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > BODY_LIMIT_BYTES) req.destroy();
    else chunks.push(chunk);
  });
  req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
}

function body(req, res) {
  if (req.method !== 'POST' || req.url !== '/body') return notFound(res);
  collect(req, res, (text) => {
    try {
      sendJson(res, summariseBody(JSON.parse(text)));
    } catch {
      sendText(res, 400, 'Bad Request');
    }
  });
}

function form(req, res) {
  if (req.method !== 'POST' || req.url !== '/form') return notFound(res);
  collect(req, res, (text) => sendJson(res, summariseForm(Object.fromEntries(new URLSearchParams(text)))));
}

function query() {
  const qs = require('qs');
  return (req, res) => {
    const mark = req.url.indexOf('?');
    if ((mark === -1 ? req.url : req.url.slice(0, mark)) !== '/query') return notFound(res);
    sendText(res, 200, cityOf(qs.parse(mark === -1 ? '' : req.url.slice(mark + 1))));
  };
}

const TYPES = { '.txt': 'text/plain; charset=UTF-8', '.bin': 'application/octet-stream' };

function streamFile(res, file) {
  stat(file, (error, stats) => {
    if (error || !stats.isFile()) return notFound(res);
    res.writeHead(200, {
      'content-type': TYPES[file.slice(file.lastIndexOf('.'))] || 'application/octet-stream',
      'content-length': stats.size,
    });
    createReadStream(file).pipe(res);
  });
}

function serveFile(req, res) {
  const name = req.url.startsWith('/static/') ? req.url.slice('/static/'.length) : '';
  if (!/^[\w-]+\.\w+$/.test(name)) return notFound(res);
  streamFile(res, join(staticRoot, name));
}

function sendfile(req, res) {
  if (req.url === '/file') streamFile(res, sendFilePath);
  else notFound(res);
}

function ejs() {
  const { compile } = require('ejs');
  const { readFileSync } = require('node:fs');
  const render = compile(readFileSync(join(viewsRoot, 'page.ejs'), 'utf8'));
  return (req, res) => {
    if (req.url === '/page') send(res, 200, 'text/html; charset=utf-8', render(VIEW_LOCALS));
    else notFound(res);
  };
}

function gzipped(req, res) {
  if (req.url !== '/gzip') return notFound(res);
  gzip(GZIP_TEXT, (error, zipped) => {
    if (error) return sendText(res, 500, 'gzip failed');
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-encoding': 'gzip',
      vary: 'Accept-Encoding',
      'content-length': zipped.length,
    });
    res.end(zipped);
  });
}

function cookies(req, res) {
  if (req.url !== '/cookies') return notFound(res);
  const theme = /(?:^|;\s*)theme=([^;]*)/.exec(req.headers.cookie || '');
  res.setHeader('set-cookie', `${SET_COOKIE.name}=${SET_COOKIE.value}; Path=/`);
  sendText(res, 200, theme ? decodeURIComponent(theme[1]) : 'undefined');
}

/**
 * Not a standard scenario (bench/README.md, "A production stack"): the npm middleware
 * of express-app.mjs's `stack`, called in a loop on Node's own objects, then
 * GET /api/users/:id answered with JSON: what that stack costs without a framework.
 */
function stack() {
  const chain = [...productionMiddleware(), require('body-parser').json()];
  const route = (req, res) => {
    const user = /^\/api\/users\/([^/]+)\/?$/.exec(req.url);
    if (user) sendJson(res, { id: decodeURIComponent(user[1]), name: 'Ada' });
    else notFound(res);
  };
  return (req, res) => {
    let index = 0;
    const next = (error) => {
      if (error) return sendText(res, 500, 'Internal Server Error');
      const middleware = chain[index++];
      if (middleware) middleware(req, res, next);
      else route(req, res);
    };
    next();
  };
}

const handlers = {
  hello,
  json,
  routes,
  middleware,
  routers,
  body,
  form,
  query,
  static: serveFile,
  sendfile,
  ejs,
  gzip: gzipped,
  cookies,
  stack,
};
const factories = new Set([routes, middleware, query, ejs, stack]);
const handler = handlers[kind];
if (!handler) throw new Error(`unknown workload ${kind}`);
const server = createServer(factories.has(handler) ? handler() : handler);
server.listen(0, '127.0.0.1', () => announce(server.address().port));
