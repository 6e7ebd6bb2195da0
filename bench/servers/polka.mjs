// polka (0.5): a router over node:http. It ships no body parser and no static
// middleware, so those workloads are n/a here.
import polka from 'polka';
import { ROUTE_COUNT, announce, kind, routePath, unsupported } from './shared.mjs';

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
  case 'body':
  case 'static':
    unsupported('polka has no built-in body parser or static middleware');
    break;
  default:
    throw new Error(`unknown workload ${kind}`);
}

app.listen(0, '127.0.0.1', () => announce(app.server.address().port));
