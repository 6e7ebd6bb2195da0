// hono on @hono/node-server: its own router, `c.req.json()` behind the bodyLimit
// middleware (the same limit as every other parser), and node-server's serveStatic.
import { serve } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { BODY_LIMIT_BYTES, ROUTE_COUNT, announce, kind, routePath, staticRoot, summariseBody } from './shared.mjs';

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
  case 'body':
    app.post('/body', bodyLimit({ maxSize: BODY_LIMIT_BYTES }), async (c) => c.json(summariseBody(await c.req.json())));
    break;
  case 'static':
    app.use('/static/*', serveStatic({ root: staticRoot, rewriteRequestPath: (path) => path.slice('/static'.length) }));
    break;
  default:
    throw new Error(`unknown workload ${kind}`);
}

serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => announce(info.port));
