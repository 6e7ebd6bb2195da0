// One app definition for everything with Express 4's API (express@4, express@5,
// webapp), so those three differ only in the framework underneath. A feature the
// framework does not have yet (webapp.json, webapp.static while they are being
// written) is reported as unsupported, not faked.
import { BODY_LIMIT, ROUTE_COUNT, announce, kind, routePath, staticRoot, summariseBody, unsupported } from './shared.mjs';

function requireResponse(express, method) {
  if (typeof express.response[method] !== 'function') unsupported(`no res.${method}() in this build`);
}

function defineApp(express, app, json) {
  switch (kind) {
    case 'hello':
      requireResponse(express, 'send');
      app.get('/', (req, res) => res.send('Hello World'));
      return;
    case 'json':
      requireResponse(express, 'json');
      app.get('/json', (req, res) => res.json({ hello: 'world' }));
      return;
    case 'routes':
      requireResponse(express, 'send');
      for (let i = 0; i < ROUTE_COUNT; i++) app.get(`${routePath(i)}/:id`, (req, res) => res.send(req.params.id));
      return;
    case 'body':
      if (typeof json !== 'function') unsupported('no json() parser in this build');
      requireResponse(express, 'json');
      app.post('/body', json({ limit: BODY_LIMIT }), (req, res) => res.json(summariseBody(req.body)));
      return;
    case 'static':
      if (typeof express.static !== 'function') unsupported('no static() middleware in this build');
      app.use('/static', express.static(staticRoot));
      return;
    default:
      throw new Error(`unknown workload ${kind}`);
  }
}

/** `json` defaults to `express.json`; webapp may pass its standalone body-parser's while the re-export is missing. */
export function startExpressStyle(express, json = express.json) {
  const app = express();
  defineApp(express, app, json);
  const server = app.listen(0, '127.0.0.1', () => announce(server.address().port));
}
