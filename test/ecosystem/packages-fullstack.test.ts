/**
 * Full-stack framework adapters from npm, unmodified, on webapp: @react-router/express 7
 * and @remix-run/express 2 turn Express's request into a Fetch API Request (req.protocol,
 * req.hostname and req.originalUrl make its URL, the body is the request stream), run a
 * hand-written server build (what `react-router build` or `remix build` would emit: route
 * modules, an assets manifest, an entry whose handleRequest renders the document), and
 * write the Fetch Response back with res.status, res.append and res.flushHeaders. The same
 * app on express@4 and on webapp gets the same requests, and the answers must match.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import {
  assertSameFlow,
  assertSameResponses,
  rawRequest,
  type Framework,
  type RawResponse,
  type RequestSpec,
} from '../support/differential';
import { openStream, until, within } from '../support/open-stream';

type Any = any;

const React: Any = require('react');
const { renderToPipeableStream, renderToStaticMarkup } = require('react-dom/server');
const RR: Any = require('react-router');
const { createReadableStreamFromReadable }: Any = require('@react-router/node');
const reactRouterExpress: Any = require('@react-router/express');
const remixExpress: Any = require('@remix-run/express');
const remixNode: Any = require('@remix-run/node');

const h = React.createElement;
const publicFolder = join(__dirname, 'fixtures', 'fullstack', 'public');
const json = { 'Content-Type': 'application/json' };
const form = { 'Content-Type': 'application/x-www-form-urlencoded' };

/**
 * The adapters build the Request's URL from the Host header, which a client sets to the
 * port each app happened to listen on: the requests name a fixed host instead, as a
 * browser in front of a deployed app would.
 */
function atHost(requests: RequestSpec[]): RequestSpec[] {
  return requests.map((spec) => ({ ...spec, headers: { Host: 'notes.test:3000', ...spec.headers } }));
}

/** A body sent as UTF-8 (rawRequest keeps bytes as latin1 text), parsed as JSON. */
function jsonOf(res: RawResponse): Any {
  return JSON.parse(Buffer.from(res.body, 'latin1').toString('utf8'));
}

/** The status line as sent: `<code> <reason>` (Node's client exposes the reason as statusMessage). */
function statusLine(port: number, path: string): Promise<string> {
  return within(
    new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(`${res.statusCode} ${res.statusMessage}`));
        })
        .on('error', reject);
    }),
    `GET ${path}`,
  );
}

/** A readable stream of `chunks`, one per pull, each after a turn of the event loop. */
function chunked(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    async pull(controller) {
      await new Promise((resolve) => setImmediate(resolve));
      if (i < chunks.length) controller.enqueue(encoder.encode(chunks[i++]));
      else controller.close();
    },
  });
}

/**
 * A stream the test writes into (server-sent events, a client that leaves), and what
 * happened to it on the server: the request's AbortSignal firing, the stream cancelled.
 */
interface Feed {
  controller?: ReadableStreamDefaultController<Uint8Array>;
  events: string[];
}

function feedStream(feed: Feed, signal: AbortSignal, first: string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  signal.addEventListener('abort', () => feed.events.push(`aborted: ${(signal.reason as Error)?.name}`));
  return new ReadableStream({
    start(controller) {
      feed.controller = controller;
      if (first) controller.enqueue(encoder.encode(first));
    },
    cancel() {
      feed.events.push('cancelled');
    },
  });
}

function push(feed: Feed | undefined, text: string | null): void {
  assert.ok(feed?.controller, 'the stream has started');
  if (text === null) feed.controller.close();
  else feed.controller.enqueue(new TextEncoder().encode(text));
}

/** What getLoadContext builds from Express's req and res, as a React Router or Remix app reads it. */
function loadContext(req: Any, res: Any): Record<string, unknown> {
  if (req.get('x-fail-context')) throw new Error('no context for you');
  res.set('X-Load-Context', 'set');
  return {
    method: req.method,
    url: req.url,
    originalUrl: req.originalUrl,
    baseUrl: req.baseUrl,
    path: req.path,
    query: req.query,
    hostname: req.hostname,
    protocol: req.protocol,
    secure: req.secure,
    ip: req.ip,
    ips: req.ips,
    xhr: req.xhr,
    accepts: req.accepts(['html', 'json']),
    cookie: req.get('cookie') ?? null,
    locals: { ...res.locals },
  };
}

/** What an app's Express error handler does with an error the adapter passed to next(). */
function errorHandler(err: Any, _req: Any, res: Any, _next: Any): void {
  res.status(503).json({ caught: err.message });
}

// ---------------------------------------------------------------------------------------
// React Router 7: a server build as `react-router build` emits it, written by hand.

interface RouteSpec {
  id: string;
  parentId?: string;
  path?: string;
  index?: boolean;
  module: Record<string, unknown>;
}

/** The document: React rendered to a stream once everything is ready, as entry.server.tsx does for bots. */
function handleReactRouterDocument(
  request: Request,
  statusCode: number,
  headers: Headers,
  context: Any,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    let status = statusCode;
    const timer = setTimeout(() => abort(), 5_000);
    const { pipe, abort } = renderToPipeableStream(h(RR.ServerRouter, { context, url: request.url }), {
      onAllReady() {
        clearTimeout(timer);
        const body = new PassThrough();
        headers.set('Content-Type', 'text/html; charset=utf-8');
        resolve(new Response(createReadableStreamFromReadable(body), { status, headers }));
        pipe(body);
      },
      onShellError(error: unknown) {
        clearTimeout(timer);
        reject(error);
      },
      onError() {
        status = 500;
      },
    });
  });
}

/** A ServerBuild for `routes`; errors the runtime reports go to `reported` instead of the console. */
function reactRouterBuild(routes: RouteSpec[], reported: string[], basename?: string): Any {
  const serverRoutes: Record<string, unknown> = {};
  const assetRoutes: Record<string, unknown> = {};
  for (const { id, parentId, path, index, module } of routes) {
    serverRoutes[id] = { id, parentId, path, index, caseSensitive: undefined, module };
    assetRoutes[id] = {
      id,
      parentId,
      path,
      index,
      hasAction: 'action' in module,
      hasLoader: 'loader' in module,
      hasClientAction: false,
      hasClientLoader: false,
      hasClientMiddleware: false,
      hasErrorBoundary: 'ErrorBoundary' in module,
      module: `/assets/${id.replace('/', '.')}-1a2b.js`,
      clientActionModule: undefined,
      clientLoaderModule: undefined,
      clientMiddlewareModule: undefined,
      hydrateFallbackModule: undefined,
      imports: [],
      css: [],
    };
  }
  return {
    entry: {
      module: {
        default: handleReactRouterDocument,
        handleError: (error: Any, { request }: Any) => {
          if (!request.signal.aborted) reported.push(String(error?.message ?? error));
        },
      },
    },
    routes: serverRoutes,
    assets: {
      entry: { imports: [], module: '/assets/entry.client-9c1d.js' },
      routes: assetRoutes,
      url: '/assets/manifest-5e6f.js',
      version: '5e6f',
    },
    basename,
    publicPath: '/assets/',
    assetsBuildDirectory: 'build/client/assets',
    future: { v8_middleware: false, v8_passThroughRequests: false, v8_trailingSlashAwareDataRequests: false },
    ssr: true,
    isSpaMode: false,
    prerender: [],
    routeDiscovery: { mode: 'lazy', manifestPath: '/__manifest' },
  };
}

function Root(): unknown {
  const { user } = RR.useLoaderData();
  return h(
    'html',
    { lang: 'en' },
    h('head', null, h('meta', { charSet: 'utf-8' }), h(RR.Meta), h(RR.Links)),
    h('body', null, h('header', null, `Signed in as ${user}`), h(RR.Outlet), h(RR.Scripts)),
  );
}

function RootErrorBoundary(): unknown {
  const error = RR.useRouteError();
  const text = RR.isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}: ${JSON.stringify(error.data)}`
    : `Error: ${(error as Error)?.message}`;
  return h('html', null, h('head', null, h(RR.Meta)), h('body', null, h('h1', null, text), h(RR.Scripts)));
}

function Home(): unknown {
  const { greeting } = RR.useLoaderData();
  return h('main', null, h('p', null, greeting), h(RR.Link, { to: '/notes' }, 'Notes'));
}

function Notes(): unknown {
  const { notes, created } = RR.useLoaderData();
  const actionData = RR.useActionData();
  return h(
    'main',
    null,
    created ? h('p', { role: 'status' }, `Created ${created}`) : null,
    actionData ? h('p', { role: 'alert' }, actionData.error) : null,
    h(
      'ul',
      null,
      notes.map((note: string) => h('li', { key: note }, note)),
    ),
    h(RR.Form, { method: 'post' }, h('input', { name: 'title' }), h('button', null, 'Add')),
  );
}

/** The resource routes (no default export) and pages of a small notes app. */
function reactRouterRoutes(feeds: Feed[]): RouteSpec[] {
  const api = (path: string, module: Record<string, unknown>): RouteSpec => ({
    id: `routes/api.${path.replace(/\W/g, '-')}`,
    parentId: 'root',
    path: `api/${path}`,
    module,
  });
  return [
    {
      id: 'root',
      path: '',
      module: {
        loader: ({ context }: Any) => ({ user: context.cookie?.includes('user=ada') ? 'ada' : 'nobody' }),
        meta: () => [{ title: 'Notes' }, { name: 'description', content: 'A notes app' }],
        links: () => [{ rel: 'stylesheet', href: '/assets/app-3f2a.css' }],
        default: Root,
        ErrorBoundary: RootErrorBoundary,
      },
    },
    {
      id: 'routes/home',
      parentId: 'root',
      index: true,
      module: {
        loader: ({ request }: Any) => ({ greeting: `Hello from ${new URL(request.url).host}` }),
        headers: () => ({ 'Cache-Control': 'max-age=60' }),
        default: Home,
      },
    },
    {
      id: 'routes/notes',
      parentId: 'root',
      path: 'notes',
      module: {
        loader: ({ request }: Any) => ({
          notes: ['first', 'second'],
          created: new URL(request.url).searchParams.get('created'),
        }),
        action: async ({ request }: Any) => {
          const title = String((await request.formData()).get('title') ?? '');
          if (!title) return RR.data({ error: 'A title is required' }, { status: 422 });
          return RR.redirect(`/notes?created=${encodeURIComponent(title)}`, {
            headers: { 'Set-Cookie': 'flash=created; Path=/; HttpOnly' },
          });
        },
        default: Notes,
      },
    },
    {
      id: 'routes/boom',
      parentId: 'root',
      path: 'boom',
      module: {
        loader: () => {
          throw new Error('the database is down');
        },
        default: Home,
      },
    },
    {
      id: 'routes/teapot',
      parentId: 'root',
      path: 'teapot',
      module: {
        loader: () => {
          throw RR.data({ reason: 'short and stout' }, { status: 418, statusText: "I'm a teapot" });
        },
        default: Home,
      },
    },
    api('hello', { loader: ({ request }: Any) => ({ hello: 'world', search: new URL(request.url).search }) }),
    api('text', { loader: () => 'plain text from a loader' }),
    api('response', {
      loader: () =>
        Response.json({ id: 7 }, { status: 201, statusText: 'Made It', headers: { 'Cache-Control': 'no-store' } }),
    }),
    api('empty', { loader: () => new Response(null, { status: 204 }) }),
    api('echo', {
      action: async ({ request, params }: Any) => {
        const type = request.headers.get('content-type') ?? '';
        const body = type.includes('json')
          ? await request.json()
          : Object.fromEntries([...(await request.formData())].map(([k, v]) => [k, String(v)]));
        return Response.json({ method: request.method, type, body, params });
      },
    }),
    api('items/:id', {
      loader: ({ params }: Any) => ({ item: params.id }),
      action: async ({ request, params }: Any) => ({ deleted: request.method === 'DELETE', id: params.id }),
    }),
    api('redirect', {
      loader: () =>
        RR.redirect('/api/hello?from=redirect', { status: 303, headers: { 'Set-Cookie': 'seen=1; Path=/' } }),
    }),
    api('missing', {
      loader: () => {
        throw new Response('no such thing', { status: 404, statusText: 'Nothing Here' });
      },
    }),
    api('error', {
      loader: () => {
        throw new Error('secret database details');
      },
    }),
    api('cookies', {
      loader: () => {
        const headers = new Headers({ 'Content-Type': 'text/plain', Link: '</a.css>; rel=preload; as=style' });
        headers.append('Set-Cookie', 'a=1; Path=/; HttpOnly');
        headers.append('Set-Cookie', 'b=2; Path=/; Secure; SameSite=Lax');
        headers.append('Set-Cookie', 'c=3; Expires=Thu, 01 Jan 2099 00:00:00 GMT');
        headers.append('Vary', 'Cookie');
        return new Response('three cookies', { status: 202, statusText: 'Cookies Baked', headers });
      },
    }),
    api('stream', {
      loader: () => new Response(chunked(['one\n', 'two\n', 'three\n']), { headers: { 'Content-Type': 'text/plain' } }),
    }),
    api('big', {
      // 2 MB in 64 kB chunks: more than a socket takes at once, so the writer waits for 'drain'.
      loader: () => new Response(chunked(Array.from({ length: 32 }, (_, i) => String(i % 10).repeat(65_536)))),
    }),
    api('events', {
      loader: ({ request }: Any) => {
        const feed: Feed = { events: [] };
        feeds.push(feed);
        return new Response(feedStream(feed, request.signal, ''), {
          headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' },
        });
      },
    }),
    api('slow', {
      loader: ({ request }: Any) => {
        const feed: Feed = { events: [] };
        feeds.push(feed);
        return new Response(feedStream(feed, request.signal, 'first chunk\n'));
      },
    }),
    api('context', {
      loader: ({ request, context }: Any) => ({
        url: request.url,
        host: request.headers.get('host'),
        context,
      }),
    }),
  ];
}

/**
 * An app per framework, each given its own list of the errors its server build reports:
 * `reported` holds the lists in the order the apps are made.
 */
function reportingApps(makeApp: (fw: Framework, options: { reported: string[] }) => http.RequestListener): {
  reported: string[][];
  define: (fw: Framework) => http.RequestListener;
} {
  const reported: string[][] = [];
  const define = (fw: Framework): http.RequestListener => {
    const list: string[] = [];
    reported.push(list);
    return makeApp(fw, { reported: list });
  };
  return { reported, define };
}

/** The React Router app as the express template writes it: middleware first, then the adapter for every path. */
function reactRouterApp(
  fw: Framework,
  { reported = [], feeds = [], trustProxy = false }: { reported?: string[]; feeds?: Feed[]; trustProxy?: boolean },
): http.RequestListener {
  const app: Any = fw();
  if (trustProxy) app.set('trust proxy', true);
  app.use((req: Any, res: Any, next: Any) => {
    res.locals.theme = 'dark';
    if (req.path === '/api/cookies') {
      res.cookie('session', 'abc', { httpOnly: true });
      res.vary('Accept-Language');
    }
    next();
  });
  app.all(
    '*',
    reactRouterExpress.createRequestHandler({
      build: reactRouterBuild(reactRouterRoutes(feeds), reported),
      mode: 'production',
      getLoadContext: loadContext,
    }),
  );
  app.use(errorHandler);
  return app;
}

describe('@react-router/express 7 on webapp (differential against express@4)', () => {
  it('resource routes: JSON, text, Responses, 204, redirects, thrown responses, errors, 404, HEAD', async () => {
    const { reported, define } = reportingApps(reactRouterApp);
    const answers = await assertSameResponses(
      define,
      atHost([
        { path: '/api/hello?x=1&y=%C3%A9' },
        { path: '/api/text' },
        { path: '/api/response' },
        { path: '/api/empty' },
        { path: '/api/items/42' },
        { method: 'DELETE', path: '/api/items/42' },
        { path: '/api/redirect' },
        { path: '/api/missing' },
        { path: '/api/error' },
        { method: 'HEAD', path: '/api/hello' },
        { method: 'HEAD', path: '/api/missing' },
        // A loader-less resource route asked for with GET, and an action-less one POSTed to.
        { path: '/api/echo' },
        { method: 'POST', path: '/api/hello', headers: json, body: '{}' },
        { path: '/api/items/%E2%9C%93?q=a+b' },
        { path: '/api/text', headers: { 'X-Fail-Context': '1' } },
      ]),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 201, 204, 200, 200, 303, 404, 500, 200, 404, 400, 405, 200, 503],
    );
    assert.equal(answers[2]!.headers['cache-control'], 'no-store');
    assert.equal(answers[6]!.headers.location, '/api/hello?from=redirect');
    assert.equal(answers[8]!.body, 'Unexpected Server Error');
    assert.equal(answers[9]!.body, '');
    assert.deepEqual(JSON.parse(answers[14]!.body), { caught: 'no context for you' });
    assert.deepEqual(reported[1], reported[0]);
    assert.ok(reported[1]!.includes('secret database details'));
  });

  it('a custom statusText and several Set-Cookie headers appended to those Express middleware set', async () => {
    const define = (fw: Framework): http.RequestListener => reactRouterApp(fw, {});
    const statusLines = await assertSameFlow(define, async (port) => {
      const seen: string[] = [];
      for (const path of ['/api/cookies', '/api/response', '/api/missing', '/api/hello']) {
        seen.push(await statusLine(port, path));
      }
      return seen;
    });
    // A Response without a statusText leaves Node's reason phrase.
    assert.deepEqual(statusLines, ['202 Cookies Baked', '201 Made It', '404 Nothing Here', '200 OK']);
    const [cookies] = await assertSameResponses(define, atHost([{ path: '/api/cookies' }]));
    assert.deepEqual(cookies!.headers['set-cookie'], [
      'session=abc; Path=/; HttpOnly',
      'a=1; Path=/; HttpOnly',
      'b=2; Path=/; Secure; SameSite=Lax',
      'c=3; Expires=Thu, 01 Jan 2099 00:00:00 GMT',
    ]);
    assert.equal(cookies!.headers.vary, 'Accept-Language, Cookie');
  });

  it('POST bodies read by actions: urlencoded, JSON, multipart, empty, malformed JSON', async () => {
    const { reported, define } = reportingApps(reactRouterApp);
    const boundary = '----webapp1234';
    const multipart =
      `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nméli-mélo\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="tags"\r\n\r\na,b\r\n--${boundary}--\r\n`;
    const answers = await assertSameResponses(
      define,
      atHost([
        { method: 'POST', path: '/api/echo', headers: form, body: 'title=Hello+world&tag=a&tag=b' },
        { method: 'POST', path: '/api/echo', headers: json, body: '{"title":"Hello","n":[1,2]}' },
        { method: 'PUT', path: '/api/echo', headers: json, body: '"just a string"' },
        {
          method: 'POST',
          path: '/api/echo',
          headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
          body: Buffer.from(multipart),
        },
        { method: 'POST', path: '/api/echo', headers: form, body: '' },
        { method: 'POST', path: '/api/echo', headers: json, body: '{"broken' },
        {
          method: 'POST',
          path: '/api/echo',
          headers: { ...json, 'Transfer-Encoding': 'chunked' },
          body: '{"chunked":true}',
        },
      ]),
    );
    assert.deepEqual(jsonOf(answers[0]!).body, { title: 'Hello world', tag: 'b' });
    assert.deepEqual(jsonOf(answers[3]!).body, { title: 'méli-mélo', tags: 'a,b' });
    assert.equal(answers[5]!.status, 500);
    assert.deepEqual(reported[1], reported[0]);
  });

  it('documents rendered by handleRequest: loader data, actions, error boundaries, 404, HEAD, .data', async () => {
    const { reported, define } = reportingApps(reactRouterApp);
    const answers = await assertSameResponses(
      define,
      atHost([
        { path: '/', headers: { Cookie: 'user=ada' } },
        { path: '/notes?created=x' },
        { method: 'POST', path: '/notes', headers: form, body: 'title=' },
        { method: 'POST', path: '/notes', headers: form, body: 'title=Groceries%20%26%20more' },
        // A cross-site form post: the Origin does not match the request's URL.
        { method: 'POST', path: '/notes', headers: { ...form, Origin: 'https://evil.example' }, body: 'title=x' },
        { path: '/boom' },
        { path: '/teapot' },
        { path: '/nowhere/at/all' },
        { method: 'HEAD', path: '/' },
        { method: 'HEAD', path: '/nowhere' },
        // Single fetch (client navigations) and lazy route discovery.
        { path: '/notes.data' },
        { path: '/_root.data' },
        { method: 'POST', path: '/notes.data', headers: form, body: 'title=' },
        { method: 'POST', path: '/notes.data', headers: form, body: 'title=fetched' },
        { path: '/__manifest?version=5e6f&paths=/notes,/api/hello' },
        { path: '/__manifest?version=old&paths=/notes' },
      ]),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 422, 302, 400, 500, 418, 404, 200, 404, 200, 200, 422, 202, 200, 204],
    );
    assert.match(answers[0]!.body, /^<!DOCTYPE html><html lang="en">.*Signed in as ada.*Hello from notes\.test:3000/s);
    assert.match(answers[0]!.body, /<title>Notes<\/title>/);
    assert.equal(answers[0]!.headers['cache-control'], 'max-age=60');
    assert.match(answers[2]!.body, /A title is required/);
    assert.equal(answers[3]!.headers.location, '/notes?created=Groceries%20%26%20more');
    assert.match(answers[5]!.body, /Error: Unexpected Server Error/);
    assert.match(answers[6]!.body, /418 I&#x27;m a teapot/);
    assert.equal(answers[8]!.body, '');
    assert.equal(answers[10]!.headers['content-type'], 'text/x-script; charset=utf-8');
    assert.deepEqual(reported[1], reported[0]);
  });

  it('streamed bodies: chunks as yielded, backpressure; text/event-stream flushed before the first event', async () => {
    const [streamed, big, head] = await assertSameResponses(
      (fw) => reactRouterApp(fw, {}),
      atHost([{ path: '/api/stream' }, { path: '/api/big' }, { method: 'HEAD', path: '/api/stream' }]),
    );
    assert.equal(streamed!.headers['transfer-encoding'], 'chunked');
    assert.equal(streamed!.body, 'one\ntwo\nthree\n');
    assert.equal(big!.body.length, 32 * 65_536);
    assert.equal(head!.body, '');

    const feeds: Feed[] = [];
    const seen = await assertSameFlow(
      (fw) => reactRouterApp(fw, { feeds }),
      async (port) => {
        // The head arrives while the stream has yielded nothing: the adapter flushed it.
        const client = await openStream(port, '/api/events');
        const feed = feeds.at(-1);
        push(feed, 'event: hello\ndata: 1\n\n');
        await client.waitFor('data: 1\n\n');
        push(feed, 'data: 2\n\n');
        push(feed, null);
        await client.ended();
        return { status: client.status, headers: client.headers, text: client.text(), events: feed!.events };
      },
    );
    // res.append goes through res.set, which gives a text type its charset.
    assert.equal(seen.headers['content-type'], 'text/event-stream; charset=utf-8');
    assert.equal(seen.text, 'event: hello\ndata: 1\n\ndata: 2\n\n');
    assert.deepEqual(seen.events, []);
  });

  it('a client leaving mid-stream: the request signal aborts, the stream is cancelled, the app serves on', async () => {
    const feeds: Feed[] = [];
    const seen = await assertSameFlow(
      (fw) => reactRouterApp(fw, { feeds }),
      async (port) => {
        const client = await openStream(port, '/api/slow');
        await client.waitFor('first chunk\n');
        client.close();
        const feed = feeds.at(-1)!;
        await until(() => feed.events.length === 2, 'the abort and the cancel');
        const next = await rawRequest(port, { path: '/api/hello' });
        return { status: client.status, text: client.text(), events: feed.events.sort(), next: next.body };
      },
    );
    assert.deepEqual(seen.events, ['aborted: AbortError', 'cancelled']);
    assert.equal(seen.next, '{"hello":"world","search":""}');
  });

  it('getLoadContext reads req and res; X-Forwarded-Host and -Proto with and without trust proxy', async () => {
    const forwarded = { 'X-Forwarded-Host': 'shop.example.com:8443', 'X-Forwarded-Proto': 'https' };
    const requests: RequestSpec[] = [
      { path: '/api/context?tags=a&tags=b', headers: { Cookie: 'user=ada', 'X-Requested-With': 'XMLHttpRequest' } },
      { path: '/api/context', headers: { ...forwarded, 'X-Forwarded-For': '203.0.113.9, 10.0.0.1' } },
      { path: '/api/context', headers: { 'X-Forwarded-Host': 'a.example, b.example', 'X-Forwarded-Proto': 'http' } },
      { path: '/api/context', headers: { Host: 'app.example:3000', Accept: 'application/json' } },
      // An action posted from the public origin, as the browser behind the proxy sends it.
      {
        method: 'POST',
        path: '/notes',
        headers: { ...form, ...forwarded, Origin: 'https://shop.example.com:8443' },
        body: 'title=proxied',
      },
      { path: '/', headers: forwarded },
    ];
    const seen: Record<string, string[]> = {};
    for (const trustProxy of [false, true]) {
      const answers = await assertSameResponses((fw) => reactRouterApp(fw, { trustProxy }), atHost(requests));
      seen[String(trustProxy)] = [...answers.slice(0, 4).map((a) => jsonOf(a).url), String(answers[4]!.status)];
      assert.equal(answers[0]!.headers['x-load-context'], 'set');
      assert.match(
        answers[5]!.body,
        new RegExp(trustProxy ? 'Hello from shop.example.com:8443' : 'Hello from notes.test:3000'),
      );
    }
    assert.match(seen.false![1]!, /^http:\/\/notes\.test:3000\/api\/context$/);
    assert.equal(seen.true![1], 'https://shop.example.com:8443/api/context');
    // The first forwarded host, and the port of the Host header (the forwarded one has none).
    assert.equal(seen.true![2], 'http://a.example:3000/api/context');
    assert.deepEqual([seen.false![4], seen.true![4]], ['400', '302']);
  });

  it('mounted with app.use("/app") behind compression and express.static, with the build basename', async () => {
    const define = (fw: Framework, feeds: Feed[] = []): http.RequestListener => {
      const compression = require('compression');
      const app: Any = fw();
      app.use(compression());
      app.use('/app/assets', fw.static(join(publicFolder, 'assets'), { immutable: true, maxAge: '1y' }));
      app.use('/app', fw.static(publicFolder, { maxAge: '1h' }));
      app.get('/', (req: Any, res: Any) => res.redirect('/app/'));
      const build = reactRouterBuild(reactRouterRoutes(feeds), [], '/app');
      app.use(
        '/app',
        reactRouterExpress.createRequestHandler({ build, mode: 'production', getLoadContext: loadContext }),
      );
      return app;
    };
    const gzip = { 'Accept-Encoding': 'gzip' };
    const answers = await assertSameResponses(
      define,
      atHost([
        { path: '/' },
        { path: '/app/robots.txt' },
        { path: '/app/assets/app-3f2a.css' },
        { path: '/app/assets/missing.css' },
        { path: '/app/', headers: gzip },
        { path: '/app/notes' },
        { path: '/app/api/context?x=1' },
        { path: '/app/api/stream', headers: gzip },
        { path: '/app/api/redirect' },
        { path: '/app/nowhere' },
        { path: '/elsewhere' },
      ]),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [302, 200, 200, 404, 200, 200, 200, 200, 303, 404, 404],
    );
    assert.equal(answers[2]!.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(answers[4]!.headers['content-encoding'], 'gzip');
    const context = JSON.parse(answers[6]!.body);
    assert.deepEqual([context.context.baseUrl, context.context.path], ['/app', '/api/context']);
    assert.match(context.url, /\/app\/api\/context\?x=1$/);

    // Server-sent events through compression: the adapter calls res.flush() after every chunk.
    const feeds: Feed[] = [];
    const seen = await assertSameFlow(
      (fw) => define(fw, feeds),
      async (port) => {
        const client = await openStream(port, '/app/api/events', { 'Accept-Encoding': 'gzip' });
        push(feeds.at(-1), 'data: compressed\n\n');
        await client.waitFor('data: compressed\n\n');
        push(feeds.at(-1), null);
        await client.ended();
        return { status: client.status, headers: client.headers, text: client.text() };
      },
    );
    assert.equal(seen.headers['content-encoding'], 'gzip');
    assert.equal(seen.text, 'data: compressed\n\n');
  });
});

// ---------------------------------------------------------------------------------------
// Remix 2: a server build as `remix vite:build` emits it, without single fetch.

/** The document: a plain HTML page made from the loaders' data (no @remix-run/react on the server). */
function handleRemixDocument(request: Request, statusCode: number, headers: Headers, context: Any): Response {
  const { loaderData, actionData, errors } = context.staticHandlerContext;
  const html = renderToStaticMarkup(
    h(
      'html',
      null,
      h(
        'body',
        null,
        h('h1', null, new URL(request.url).pathname),
        h('pre', null, JSON.stringify({ loaderData, actionData, errors })),
      ),
    ),
  );
  headers.set('Content-Type', 'text/html; charset=utf-8');
  return new Response('<!DOCTYPE html>' + html, { status: statusCode, headers });
}

/** A Remix ServerBuild for `routes` (no single fetch: ?_data requests); reported errors go to `reported`. */
function remixBuild(routes: RouteSpec[], reported: string[], basename?: string): Any {
  const serverRoutes: Record<string, unknown> = {};
  const assetRoutes: Record<string, unknown> = {};
  for (const { id, parentId, path, index, module } of routes) {
    serverRoutes[id] = { id, parentId, path, index, caseSensitive: undefined, module };
    assetRoutes[id] = {
      id,
      parentId,
      path,
      index,
      hasAction: 'action' in module,
      hasLoader: 'loader' in module,
      hasClientAction: false,
      hasClientLoader: false,
      hasErrorBoundary: 'ErrorBoundary' in module,
      module: `/build/${id.replace('/', '.')}-AB12.js`,
      imports: [],
      css: [],
    };
  }
  return {
    mode: 'production',
    entry: {
      module: {
        default: handleRemixDocument,
        handleError: (error: Any, { request }: Any) => {
          if (!request.signal.aborted) reported.push(String(error?.message ?? error));
        },
      },
    },
    routes: serverRoutes,
    assets: {
      entry: { imports: [], module: '/build/entry.client-CD34.js' },
      routes: assetRoutes,
      url: '/build/manifest-EF56.js',
      version: 'EF56',
    },
    basename,
    publicPath: '/build/',
    assetsBuildDirectory: 'public/build',
    future: {
      v3_fetcherPersist: true,
      v3_relativeSplatPath: true,
      v3_throwAbortReason: true,
      v3_lazyRouteDiscovery: false,
      v3_singleFetch: false,
    },
    isSpaMode: false,
  };
}

/** Pages, a login form setting a signed cookie, and resource routes (JSON, streams, events, a session counter). */
function remixRoutes(feeds: Feed[]): RouteSpec[] {
  const { json: remixJson, redirect, createCookie } = remixNode;
  const prefs = createCookie('prefs', { path: '/', httpOnly: true, secrets: ['s3cret'], sameSite: 'lax' });
  const Page = (): null => null;
  return [
    { id: 'root', path: '', module: { loader: () => remixJson({ app: 'remix' }), default: Page, ErrorBoundary: Page } },
    { id: 'routes/_index', parentId: 'root', index: true, module: { loader: () => ({ home: true }), default: Page } },
    {
      id: 'routes/login',
      parentId: 'root',
      path: 'login',
      module: {
        loader: async ({ request }: Any) => ({ prefs: (await prefs.parse(request.headers.get('cookie'))) ?? null }),
        action: async ({ request }: Any) => {
          const body = await request.formData();
          const user = String(body.get('user') ?? '');
          if (!user) return remixJson({ error: 'Who are you?' }, { status: 400 });
          const headers = new Headers();
          headers.append('Set-Cookie', await prefs.serialize({ user, theme: 'dark' }));
          headers.append('Set-Cookie', 'flash=welcome; Path=/');
          return redirect('/', { headers });
        },
        default: Page,
      },
    },
    {
      id: 'routes/broken',
      parentId: 'root',
      path: 'broken',
      module: {
        loader: () => {
          throw new Error('loader exploded');
        },
        default: Page,
      },
    },
    {
      id: 'routes/api.items',
      parentId: 'root',
      path: 'api/items/:id',
      module: {
        loader: ({ params, context }: Any) => {
          if (params.id === 'gone') throw remixJson({ message: 'Gone' }, { status: 410, statusText: 'Long Gone' });
          if (params.id === 'away') throw redirect('/api/items/1', 301);
          if (params.id === 'bad') throw new Error('bad item');
          return remixJson({ id: params.id, path: context.path }, { headers: { 'X-Item': params.id } });
        },
        action: async ({ request, params }: Any) =>
          remixJson({ id: params.id, method: request.method, body: await request.json() }, { status: 201 }),
      },
    },
    {
      id: 'routes/api.events',
      parentId: 'root',
      path: 'api/events',
      module: {
        loader: ({ request }: Any) => {
          const feed: Feed = { events: [] };
          feeds.push(feed);
          return new Response(feedStream(feed, request.signal, 'retry: 1000\n\n'), {
            headers: { 'Content-Type': 'text/event-stream' },
          });
        },
      },
    },
    {
      id: 'routes/api.stream',
      parentId: 'root',
      path: 'api/stream',
      module: { loader: () => new Response(chunked(['a', 'b', 'c']), { statusText: 'Streaming' }) },
    },
    {
      id: 'routes/api.counter',
      parentId: 'root',
      path: 'api/counter',
      module: {
        loader: ({ context }: Any) => remixJson({ views: context.session?.views ?? 0 }),
        action: ({ context }: Any) => {
          context.session.views = (context.session.views ?? 0) + 1;
          return remixJson({ views: context.session.views }, { status: 201 });
        },
      },
    },
    {
      id: 'routes/api.context',
      parentId: 'root',
      path: 'api/context',
      module: { loader: ({ request, context }: Any) => remixJson({ url: request.url, context }) },
    },
  ];
}

/** The Remix app as its express template writes it: static files, a middleware, then the adapter. */
function remixApp(
  fw: Framework,
  { reported = [], feeds = [], trustProxy = false }: { reported?: string[]; feeds?: Feed[]; trustProxy?: boolean },
): http.RequestListener {
  const app: Any = fw();
  if (trustProxy) app.set('trust proxy', 'loopback');
  app.disable('x-powered-by');
  app.use('/build', fw.static(join(publicFolder, 'assets'), { immutable: true, maxAge: '1y' }));
  app.use(fw.static(publicFolder, { maxAge: '1h' }));
  app.use((req: Any, res: Any, next: Any) => {
    res.cookie('visit', '1');
    next();
  });
  app.all(
    '*',
    remixExpress.createRequestHandler({
      build: remixBuild(remixRoutes(feeds), reported),
      mode: 'production',
      getLoadContext: loadContext,
    }),
  );
  app.use(errorHandler);
  return app;
}

describe('@remix-run/express 2 on webapp (differential against express@4)', () => {
  it('resource routes, ?_data requests, documents, actions with signed cookies, errors, 404, HEAD', async () => {
    const { reported, define } = reportingApps(remixApp);
    const answers = await assertSameResponses(
      define,
      atHost([
        { path: '/api/items/1' },
        { path: '/api/items/gone' },
        { path: '/api/items/away' },
        { path: '/api/items/bad' },
        { method: 'PATCH', path: '/api/items/2', headers: json, body: '{"done":true}' },
        { path: '/' },
        { path: '/?_data=root' },
        { path: '/login?_data=routes%2Flogin', headers: { Cookie: 'prefs=eyJ0aGVtZSI6ImRhcmsifQ%3D%3D.forged' } },
        { method: 'POST', path: '/login', headers: form, body: 'user=' },
        { method: 'POST', path: '/login', headers: form, body: 'user=ada' },
        { method: 'POST', path: '/login?_data=routes%2Flogin', headers: form, body: 'user=ada' },
        { path: '/broken' },
        { path: '/broken?_data=routes%2Fbroken' },
        { path: '/nowhere' },
        { method: 'HEAD', path: '/api/items/1' },
        { path: '/robots.txt' },
        { path: '/build/app-3f2a.css' },
        { path: '/api/items/1', headers: { 'X-Fail-Context': '1' } },
      ]),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 410, 301, 500, 201, 200, 200, 200, 400, 302, 204, 500, 500, 404, 200, 200, 200, 503],
    );
    assert.deepEqual(answers[9]!.headers['set-cookie']!.length, 3);
    assert.equal(answers[10]!.headers['x-remix-redirect'], '/');
    assert.equal(answers[14]!.body, '');
    assert.deepEqual(reported[1], reported[0]);

    // The signed cookie the action set reads back in the loader.
    const cookie = answers[9]!.headers['set-cookie']!.map((c) => c.split(';')[0]).join('; ');
    const [back] = await assertSameResponses(
      define,
      atHost([{ path: '/login?_data=routes%2Flogin', headers: { Cookie: cookie } }]),
    );
    assert.deepEqual(JSON.parse(back!.body), { prefs: { user: 'ada', theme: 'dark' } });
  });

  it('a statusText, streams, text/event-stream flushed, a client leaving, trust proxy', async () => {
    const lines = await assertSameFlow(
      (fw) => remixApp(fw, {}),
      async (port) => [await statusLine(port, '/api/stream'), await statusLine(port, '/api/items/gone')],
    );
    assert.deepEqual(lines, ['200 Streaming', '410 Long Gone']);

    const feeds: Feed[] = [];
    const seen = await assertSameFlow(
      (fw) => remixApp(fw, { feeds }),
      async (port) => {
        const events = await openStream(port, '/api/events');
        await events.waitFor('retry: 1000\n\n');
        push(feeds.at(-1), 'data: one\n\n');
        await events.waitFor('data: one\n\n');
        events.close();
        const feed = feeds.at(-1)!;
        // Remix 2's writer stops at the next write; it does not cancel the stream.
        await until(() => feed.events.length === 1, 'the abort');
        const streamed = await rawRequest(port, { path: '/api/stream' });
        // The clock's: the two sides' answers may fall in different seconds.
        const { date: _date, ...streamHeaders } = streamed.headers;
        const stream = { ...streamed, headers: streamHeaders };
        return { head: [events.status, events.headers], text: events.text(), events: feed.events.sort(), stream };
      },
    );
    assert.deepEqual(seen.events, ['aborted: AbortError']);
    assert.equal(seen.stream.body, 'abc');

    const forwarded = { 'X-Forwarded-Host': 'remix.example:8080', 'X-Forwarded-Proto': 'https' };
    for (const trustProxy of [false, true]) {
      const [answer] = await assertSameResponses(
        (fw) => remixApp(fw, { trustProxy }),
        atHost([{ path: '/api/context?a=1', headers: forwarded }]),
      );
      const { url, context } = JSON.parse(answer!.body);
      if (trustProxy) assert.deepEqual([url, context.secure], ['https://remix.example:8080/api/context?a=1', true]);
      // Remix 2 takes the port from X-Forwarded-Host even when the proxy is not trusted.
      else assert.match(url, /^http:\/\/notes\.test:8080\/api\/context\?a=1$/);
    }
  });

  it('a sub-app under /remix behind helmet and cookie-session: trust proxy inherited, session in context', async () => {
    const helmet = require('helmet');
    const cookieSession = require('cookie-session');
    const define = (fw: Framework): http.RequestListener => {
      const app: Any = fw();
      app.set('trust proxy', 'loopback');
      app.use(helmet());
      app.use(cookieSession({ name: 'session', keys: ['key one', 'key two'], httpOnly: true }));
      const remix: Any = fw();
      remix.all(
        '*',
        remixExpress.createRequestHandler({
          build: remixBuild(remixRoutes([]), [], '/remix'),
          mode: 'production',
          // An async getLoadContext, as apps that look a user up write it.
          getLoadContext: async (req: Any, res: Any) => ({ ...loadContext(req, res), session: req.session }),
        }),
      );
      app.use('/remix', remix);
      app.use(errorHandler);
      return app;
    };
    // With no port in X-Forwarded-Host the adapters take the Host header's; the proxy names 443, which the URL drops.
    const forwarded = { 'X-Forwarded-Host': 'public.example:443', 'X-Forwarded-Proto': 'https' };
    const seen = await assertSameFlow(define, async (port) => {
      const send = async (spec: RequestSpec): Promise<Any> => {
        const res = await rawRequest(port, atHost([spec])[0]!);
        const headers = { ...res.headers };
        // The clock's and the brand's (helmet removes X-Powered-By, the sub-app sets it again).
        delete headers.date;
        delete headers['x-powered-by'];
        return { status: res.status, headers, body: res.body };
      };
      const first = await send({ method: 'POST', path: '/remix/api/counter', headers: json, body: '{}' });
      const cookie = (first.headers['set-cookie'] as string[]).map((c) => c.split(';')[0]).join('; ');
      return [
        first,
        await send({ method: 'POST', path: '/remix/api/counter', headers: { ...json, Cookie: cookie }, body: '{}' }),
        await send({ path: '/remix/api/counter', headers: { Cookie: cookie } }),
        await send({ path: '/remix/api/context?page=2', headers: forwarded }),
        await send({ path: '/remix/?_data=root', headers: forwarded }),
        await send({ path: '/remix/nowhere' }),
        await send({ path: '/nowhere' }),
      ];
    });
    assert.deepEqual(
      seen.map((s: Any) => s.status),
      [201, 201, 200, 200, 200, 404, 404],
    );
    assert.equal(seen[1].body, '{"views":2}');
    assert.equal(seen[2].body, '{"views":1}');
    const context = JSON.parse(seen[3].body);
    assert.equal(context.url, 'https://public.example/remix/api/context?page=2');
    assert.deepEqual(
      [context.context.baseUrl, context.context.path, context.context.secure],
      ['/remix', '/api/context', true],
    );
    assert.equal(seen[0].headers['x-content-type-options'], 'nosniff');
  });
});
