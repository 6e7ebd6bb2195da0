// The workloads. Each scenario names the server kind it needs (bench/servers/*
// take the kind as argv[2], and a count in BENCH_COUNT), the request the load
// generator repeats, and a check of one response made before measuring, so a
// server that answers wrongly (a 404 is fast) is reported instead of ranked.
import { deepStrictEqual } from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  COOKIE_HEADER,
  COOKIE_READ,
  FORM_FIELDS,
  GZIP_TEXT,
  NESTED_QUERY,
  QUERY_ANSWER,
  SET_COOKIE,
  VIEW_LOCALS,
} from './workloads.mjs';

const ok = (status) => (status === 200 ? null : `status ${status}`);
const shown = (body) => JSON.stringify(body.toString('utf8').slice(0, 60));

function expectText(expected) {
  return ({ status, body }) =>
    ok(status) ||
    (body.toString('utf8') === expected ? null : `body ${shown(body)}, expected ${JSON.stringify(expected)}`);
}

function expectJson(expected) {
  return ({ status, body }, fixtures) => {
    const value = typeof expected === 'function' ? expected(fixtures) : expected;
    try {
      deepStrictEqual(JSON.parse(body.toString('utf8')), value);
      return ok(status);
    } catch {
      return ok(status) || `body ${shown(body)}, expected ${JSON.stringify(value)}`;
    }
  };
}

function expectFile(fixtureName) {
  return ({ status, body }, fixtures) => {
    const expected = fixtures.files[fixtureName];
    return (
      ok(status) ||
      (body.equals(expected) ? null : `body of ${body.length} bytes differs from the ${expected.length}-byte file`)
    );
  };
}

/** The page exactly as ejs renders the template with the locals. */
function expectPage({ status, body }, fixtures) {
  const ejs = createRequire(import.meta.url)('ejs');
  const expected = ejs.render(readFileSync(join(fixtures.viewsRoot, 'page.ejs'), 'utf8'), VIEW_LOCALS);
  return ok(status) || (body.toString('utf8') === expected ? null : `page ${shown(body)} is not the rendered template`);
}

function expectGzip({ status, headers, body }) {
  if (status !== 200) return `status ${status}`;
  if (headers['content-encoding'] !== 'gzip') return `content-encoding ${headers['content-encoding']}, expected gzip`;
  try {
    return gunzipSync(body).toString('utf8') === GZIP_TEXT ? null : 'the gunzipped body is not the text';
  } catch (error) {
    return `body is not gzip: ${error.message}`;
  }
}

function expectCookies(response) {
  const cookies = [].concat(response.headers['set-cookie'] || []);
  if (!cookies.some((cookie) => cookie.startsWith(`${SET_COOKIE.name}=${SET_COOKIE.value}`)))
    return `set-cookie ${JSON.stringify(cookies)}`;
  return expectText(COOKIE_READ)(response);
}

const ROUTE_COUNTS = [10, 100, 1000];
const MIDDLEWARE_COUNTS = [5, 100];

export const SCENARIOS = [
  { id: 'hello', kind: 'hello', title: "GET / → 'Hello World'", path: '/', check: expectText('Hello World') },
  {
    id: 'json',
    kind: 'json',
    title: 'GET /json → {hello:"world"}',
    path: '/json',
    check: expectJson({ hello: 'world' }),
  },
  ...ROUTE_COUNTS.map((count) => ({
    id: `routes${count}`,
    kind: 'routes',
    count,
    title: `${count} routes /routeN/:id, GET the last`,
    path: `/route${count - 1}/42`,
    check: expectText('42'),
  })),
  ...MIDDLEWARE_COUNTS.map((count) => ({
    id: `mw${count}`,
    kind: 'middleware',
    count,
    title: `${count} no-op middlewares, then GET / → 'Hello World'`,
    path: '/',
    check: expectText('Hello World'),
  })),
  {
    id: 'routers3',
    kind: 'routers',
    title: 'three nested routers /api → /v1 → /users, GET /api/v1/users/42',
    path: '/api/v1/users/42',
    check: expectText('42'),
  },
  {
    id: 'body-1kb',
    kind: 'body',
    title: 'POST /body, 1 KB JSON through the JSON parser',
    method: 'POST',
    path: '/body',
    payload: '1kb',
    check: expectJson((f) => ({ count: f.payloads['1kb'].count })),
  },
  {
    id: 'body-100kb',
    kind: 'body',
    title: 'POST /body, 100 KB JSON through the JSON parser',
    method: 'POST',
    path: '/body',
    payload: '100kb',
    check: expectJson((f) => ({ count: f.payloads['100kb'].count })),
  },
  {
    id: 'form',
    kind: 'form',
    title: `POST /form, a urlencoded form of ${FORM_FIELDS} fields (one nested)`,
    method: 'POST',
    path: '/form',
    payload: 'form',
    check: expectJson({ fields: FORM_FIELDS }),
  },
  {
    id: 'query',
    kind: 'query',
    title: 'GET /query?user[name]=…&user[address][city]=…, a nested query string',
    path: `/query?${NESTED_QUERY}`,
    check: expectText(QUERY_ANSWER),
  },
  {
    id: 'static-4kb',
    kind: 'static',
    title: 'GET /static/small.txt, a 4 KB file',
    path: '/static/small.txt',
    check: expectFile('small.txt'),
  },
  {
    id: 'static-1mb',
    kind: 'static',
    title: 'GET /static/large.bin, a 1 MB file',
    path: '/static/large.bin',
    check: expectFile('large.bin'),
  },
  {
    id: 'sendfile',
    kind: 'sendfile',
    title: 'GET /file → res.sendFile of the 4 KB file',
    path: '/file',
    check: expectFile('small.txt'),
  },
  {
    id: 'ejs',
    kind: 'ejs',
    title: 'GET /page, an ejs view of 20 items (view cache on: NODE_ENV=production)',
    path: '/page',
    check: expectPage,
  },
  {
    id: 'gzip',
    kind: 'gzip',
    title: 'GET /gzip, 6 KB of HTML gzipped (compression / webapp/middleware compress)',
    path: '/gzip',
    headers: { 'accept-encoding': 'gzip' },
    check: expectGzip,
  },
  {
    id: 'cookies',
    kind: 'cookies',
    title: 'GET /cookies, reads one of three cookies and sets one',
    path: '/cookies',
    headers: { cookie: COOKIE_HEADER },
    check: expectCookies,
  },
].map((scenario) => ({ method: 'GET', headers: {}, ...scenario }));
