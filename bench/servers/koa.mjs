// koa with @koa/router (nested with `router.use(prefix, other.routes())`) and its
// built-in cookies. Koa ships no body parser, static or sendFile middleware, view
// engine, compression or nesting query parser: those workloads are n/a here
// rather than measured with third-party add-ons.
import Router from '@koa/router';
import Koa from 'koa';
import { COUNT, ROUTE_COUNT, SET_COOKIE, announce, kind, routePath, unsupported } from './shared.mjs';

const app = new Koa();
const router = new Router();

switch (kind) {
  case 'hello':
    router.get('/', (ctx) => {
      ctx.body = 'Hello World';
    });
    break;
  case 'json':
    router.get('/json', (ctx) => {
      ctx.body = { hello: 'world' };
    });
    break;
  case 'routes':
    for (let i = 0; i < ROUTE_COUNT; i++)
      router.get(`${routePath(i)}/:id`, (ctx) => {
        ctx.body = ctx.params.id;
      });
    break;
  case 'middleware':
    for (let i = 0; i < COUNT; i++) app.use((ctx, next) => next());
    router.get('/', (ctx) => {
      ctx.body = 'Hello World';
    });
    break;
  case 'routers': {
    const users = new Router();
    users.get('/:id', (ctx) => {
      ctx.body = ctx.params.id;
    });
    const v1 = new Router();
    v1.use('/users', users.routes());
    const api = new Router();
    api.use('/v1', v1.routes());
    router.use('/api', api.routes());
    break;
  }
  case 'cookies':
    router.get('/cookies', (ctx) => {
      ctx.cookies.set(SET_COOKIE.name, SET_COOKIE.value, { signed: false, httpOnly: false });
      ctx.body = String(ctx.cookies.get('theme'));
    });
    break;
  case 'body':
  case 'form':
  case 'query':
  case 'static':
  case 'sendfile':
  case 'ejs':
  case 'gzip':
    unsupported('koa has no built-in body parser, nesting query parser, static files, views or compression');
    break;
  default:
    throw new Error(`unknown workload ${kind}`);
}

app.use(router.routes());
const server = app.listen(0, '127.0.0.1', () => announce(server.address().port));
