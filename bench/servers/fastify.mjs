// fastify, with its own router, its built-in JSON body parser and @fastify/static.
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import { BODY_LIMIT_BYTES, ROUTE_COUNT, announce, kind, routePath, staticRoot, summariseBody } from './shared.mjs';

const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT_BYTES });

switch (kind) {
  case 'hello':
    app.get('/', async () => 'Hello World');
    break;
  case 'json':
    app.get('/json', async () => ({ hello: 'world' }));
    break;
  case 'routes':
    for (let i = 0; i < ROUTE_COUNT; i++) app.get(`${routePath(i)}/:id`, async (request) => request.params.id);
    break;
  case 'body':
    app.post('/body', async (request) => summariseBody(request.body));
    break;
  case 'static':
    app.register(fastifyStatic, { root: staticRoot, prefix: '/static/' });
    break;
  default:
    throw new Error(`unknown workload ${kind}`);
}

await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server.address().port);
