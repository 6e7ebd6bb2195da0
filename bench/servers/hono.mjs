// hono on @hono/node-server: its own router and nested `app.route()`, `c.req.json()`
// and `c.req.parseBody()` behind the bodyLimit middleware (the same limit as
// every other parser), node-server's serveStatic, hono/compress and hono/cookie.
// Its query parser does not nest and it has no view engine or sendFile: n/a.
import { serve } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { compress } from 'hono/compress';
import { getCookie, setCookie } from 'hono/cookie';
import {
  BODY_LIMIT_BYTES,
  COUNT,
  GZIP_TEXT,
  ROUTE_COUNT,
  SET_COOKIE,
  announce,
  kind,
  routePath,
  staticRoot,
  summariseBody,
  summariseForm,
  unsupported,
} from './shared.mjs';

const app = new Hono();

switch (kind) {
  case 'hello':
    app.get('/', (c) => c.text('Hello World'));
    break;
  case 'json':
    app.get('/json', (c) => c.json({ hello: 'world' }));
    break;
  case 'routes':
    for (let i = 0; i < ROUTE_COUNT; i++) app.get(`${routePath(i)}/:id`, (c) => c.text(c.req.param('id')));
    break;
  case 'middleware':
    for (let i = 0; i < COUNT; i++)
      app.use(async (c, next) => {
        await next();
      });
    app.get('/', (c) => c.text('Hello World'));
    break;
  case 'routers': {
    const users = new Hono().get('/:id', (c) => c.text(c.req.param('id')));
    const v1 = new Hono().route('/users', users);
    app.route('/api', new Hono().route('/v1', v1));
    break;
  }
  case 'body':
    app.post('/body', bodyLimit({ maxSize: BODY_LIMIT_BYTES }), async (c) => c.json(summariseBody(await c.req.json())));
    break;
  case 'form':
    app.post('/form', bodyLimit({ maxSize: BODY_LIMIT_BYTES }), async (c) =>
      c.json(summariseForm(await c.req.parseBody())),
    );
    break;
  case 'static':
    app.use('/static/*', serveStatic({ root: staticRoot, rewriteRequestPath: (path) => path.slice('/static'.length) }));
    break;
  case 'gzip':
    app.use(compress({ encoding: 'gzip' }));
    app.get('/gzip', (c) => c.html(GZIP_TEXT));
    break;
  case 'cookies':
    app.get('/cookies', (c) => {
      setCookie(c, SET_COOKIE.name, SET_COOKIE.value, { path: '/' });
      return c.text(String(getCookie(c, 'theme')));
    });
    break;
  case 'query':
  case 'sendfile':
  case 'ejs':
    unsupported('hono has no nested query parser, sendFile or ejs views built in');
    break;
  default:
    throw new Error(`unknown workload ${kind}`);
}

serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => announce(info.port));
