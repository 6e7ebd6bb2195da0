// node:http, the ceiling: the least work that still answers each workload
// correctly. Routing is a hand-written Map lookup and the static files are a
// stat plus a stream, without conditional GET or ranges: a floor for the cost
// of a framework, not a competitor.
import { createReadStream, stat } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { BODY_LIMIT_BYTES, ROUTE_COUNT, announce, kind, routePath, staticRoot, summariseBody } from './shared.mjs';

function sendText(res, status, text) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendJson(res, value) {
  const body = JSON.stringify(value);
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function hello(req, res) {
  if (req.url === '/') sendText(res, 200, 'Hello World');
  else sendText(res, 404, 'Not Found');
}

function json(req, res) {
  if (req.url === '/json') sendJson(res, { hello: 'world' });
  else sendText(res, 404, 'Not Found');
}

function routes() {
  const table = new Map();
  for (let i = 0; i < ROUTE_COUNT; i++) table.set(routePath(i), (res, id) => sendText(res, 200, id));
  return (req, res) => {
    const slash = req.url.indexOf('/', 1);
    const handler = slash > 0 ? table.get(req.url.slice(0, slash)) : undefined;
    const id = slash > 0 ? req.url.slice(slash + 1) : '';
    if (handler && id && !id.includes('/')) handler(res, decodeURIComponent(id));
    else sendText(res, 404, 'Not Found');
  };
}

function body(req, res) {
  if (req.method !== 'POST' || req.url !== '/body') return sendText(res, 404, 'Not Found');
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > BODY_LIMIT_BYTES) req.destroy();
    else chunks.push(chunk);
  });
  req.on('end', () => {
    try {
      sendJson(res, summariseBody(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    } catch {
      sendText(res, 400, 'Bad Request');
    }
  });
}

const TYPES = { '.txt': 'text/plain; charset=UTF-8', '.bin': 'application/octet-stream' };

function serveFile(req, res) {
  const name = req.url.startsWith('/static/') ? req.url.slice('/static/'.length) : '';
  if (!/^[\w-]+\.\w+$/.test(name)) return sendText(res, 404, 'Not Found');
  const file = join(staticRoot, name);
  stat(file, (error, stats) => {
    if (error || !stats.isFile()) return sendText(res, 404, 'Not Found');
    res.writeHead(200, {
      'content-type': TYPES[name.slice(name.lastIndexOf('.'))] || 'application/octet-stream',
      'content-length': stats.size,
    });
    createReadStream(file).pipe(res);
  });
}

const handlers = { hello, json, routes: routes(), body, static: serveFile };
const server = createServer(handlers[kind]);
server.listen(0, '127.0.0.1', () => announce(server.address().port));
