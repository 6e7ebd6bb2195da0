// koa with @koa/router. Koa ships no body parser and no static middleware, so
// those workloads are n/a here rather than measured with third-party add-ons.
import Router from '@koa/router';
import Koa from 'koa';
import { ROUTE_COUNT, announce, kind, routePath, unsupported } from './shared.mjs';

const app = new Koa();
const router = new Router();

switch (kind) {
  case 'hello':
    router.get('/', (ctx) => { ctx.body = 'Hello World'; });
    break;
  case 'json':
    router.get('/json', (ctx) => { ctx.body = { hello: 'world' }; });
    break;
  case 'routes':
    for (let i = 0; i < ROUTE_COUNT; i++) router.get(`${routePath(i)}/:id`, (ctx) => { ctx.body = ctx.params.id; });
    break;
  case 'body':
  case 'static':
    unsupported('koa has no built-in body parser or static middleware');
    break;
  default:
    throw new Error(`unknown workload ${kind}`);
}

app.use(router.routes());
const server = app.listen(0, '127.0.0.1', () => announce(server.address().port));
