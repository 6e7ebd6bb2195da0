// fastify, with its own router, its built-in JSON body parser, hooks for the no-op
// middlewares, prefixed plugins for nested routers, and @fastify/static (also for
// reply.sendFile). Nested query strings go through fastify's documented
// `querystringParser` option with qs; fastify ships no form parser, view engine,
// compression or cookie support, so those workloads are n/a.
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import { createRequire } from 'node:module';
import { basename, dirname } from 'node:path';
import {
  BODY_LIMIT_BYTES,
  COUNT,
  ROUTE_COUNT,
  announce,
  cityOf,
  kind,
  routePath,
  sendFilePath,
  staticRoot,
  summariseBody,
  unsupported,
} from './shared.mjs';

const options = { logger: false, bodyLimit: BODY_LIMIT_BYTES };
if (kind === 'query') {
  const qs = createRequire(import.meta.url)('qs');
  options.querystringParser = (text) => qs.parse(text);
}
const app = Fastify(options);

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
  case 'middleware':
    for (let i = 0; i < COUNT; i++) app.addHook('onRequest', (request, reply, done) => done());
    app.get('/', async () => 'Hello World');
    break;
  case 'routers':
    app.register(
      async (api) => {
        api.register(
          async (v1) => {
            v1.register(
              async (users) => {
                users.get('/:id', async (request) => request.params.id);
              },
              { prefix: '/users' },
            );
          },
          { prefix: '/v1' },
        );
      },
      { prefix: '/api' },
    );
    break;
  case 'body':
    app.post('/body', async (request) => summariseBody(request.body));
    break;
  case 'query':
    app.get('/query', async (request) => cityOf(request.query));
    break;
  case 'static':
    app.register(fastifyStatic, { root: staticRoot, prefix: '/static/' });
    break;
  case 'sendfile':
    app.register(fastifyStatic, { root: dirname(sendFilePath), serve: false });
    app.get('/file', (request, reply) => reply.sendFile(basename(sendFilePath)));
    break;
  case 'form':
  case 'ejs':
  case 'gzip':
  case 'cookies':
    unsupported('fastify has no built-in form parser, view engine, compression or cookies (plugins only)');
    break;
  default:
    throw new Error(`unknown workload ${kind}`);
}

await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server.address().port);
