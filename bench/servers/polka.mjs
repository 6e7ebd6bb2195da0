// polka (0.5): a router over node:http, with use() for middlewares and mounted
// sub-apps for nested routers. It ships no body parser, static middleware,
// sendFile, views, compression, cookies or nesting query parser: n/a here.
import polka from 'polka';
import { COUNT, ROUTE_COUNT, announce, kind, routePath, unsupported } from './shared.mjs';

const app = polka();

switch (kind) {
  case 'hello':
    app.get('/', (req, res) => res.end('Hello World'));
    break;
  case 'json':
    app.get('/json', (req, res) => {
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.end(JSON.stringify({ hello: 'world' }));
    });
    break;
  case 'routes':
    for (let i = 0; i < ROUTE_COUNT; i++) app.get(`${routePath(i)}/:id`, (req, res) => res.end(req.params.id));
    break;
  case 'middleware':
    for (let i = 0; i < COUNT; i++) app.use((req, res, next) => next());
    app.get('/', (req, res) => res.end('Hello World'));
    break;
  case 'routers': {
    const users = polka().get('/:id', (req, res) => res.end(req.params.id));
    app.use('/api', polka().use('/v1', polka().use('/users', users)));
    break;
  }
  case 'body':
  case 'form':
  case 'query':
  case 'static':
  case 'sendfile':
  case 'ejs':
  case 'gzip':
  case 'cookies':
    unsupported(
      'polka has no built-in body parser, static files, sendFile, views, compression, cookies or nesting query parser',
    );
    break;
  default:
    throw new Error(`unknown workload ${kind}`);
}

app.listen(0, '127.0.0.1', () => announce(app.server.address().port));
