// The one app definition express@4, express@5 and webapp all run, in the idiom of
// Express's guide. What is not in the framework comes in `extras`: express uses
// compression and cookie-parser from npm, webapp its own webapp/middleware.
import { createRequire } from 'node:module';
import {
  BODY_LIMIT,
  COUNT,
  GZIP_TEXT,
  ROUTE_COUNT,
  SET_COOKIE,
  VIEW_LOCALS,
  announce,
  cityOf,
  kind,
  productionMiddleware,
  routePath,
  sendFilePath,
  staticRoot,
  summariseBody,
  summariseForm,
  unsupported,
  viewsRoot,
} from './shared.mjs';

// node:http through `require`, as bench/servers/node-http.mjs loads it and the frameworks
// do: imported from ESM on Node 22 and later, its namespace's lazy WebSocket getters
// load undici, 30 to 50 ms and several MB that would be charged to the server's cold
// start and RSS.
const http = createRequire(import.meta.url)('node:http');

function requireResponse(express, method) {
  if (typeof express.response[method] !== 'function') unsupported(`no res.${method}() in this build`);
}

/**
 * `extras[name]`, else the framework's own member of that name. Read only by the
 * scenario that uses it: webapp loads `json` and `urlencoded` on first read, and
 * reading them up front would charge every scenario (cold start, RSS) for the body parsers.
 */
function requireExtra(express, extras, name) {
  const middleware = extras[name] ?? express[name];
  if (typeof middleware !== 'function') unsupported(`no ${name}() in this build`);
  return middleware;
}

function nestedRouters(express) {
  const api = express.Router();
  const v1 = express.Router();
  const users = express.Router();
  users.get('/:id', (req, res) => res.send(req.params.id));
  v1.use('/users', users);
  api.use('/v1', v1);
  return api;
}

/** The production middleware (shared.mjs), the framework's json, a router. */
function productionStack(express, app) {
  for (const middleware of productionMiddleware()) app.use(middleware);
  app.use(express.json());
  const api = express.Router();
  api.get('/users/:id', (req, res) => res.json({ id: req.params.id, name: 'Ada' }));
  app.use('/api', api);
}

function defineApp(express, app, extras) {
  switch (kind) {
    case 'hello':
      requireResponse(express, 'send');
      app.get('/', (req, res) => res.send('Hello World'));
      return;
    // Not scenarios of the standard run, for bench/cpu.mjs (bench/README.md, "Requests
    // whose prototype is swapped"): GET /api → 'Hello World' from a mounted app, and
    // from the app itself to compare with.
    case 'subapp': {
      const sub = express();
      sub.get('/', (req, res) => res.send('Hello World'));
      app.use('/api', sub);
      return;
    }
    case 'subapp-direct':
      app.get('/api', (req, res) => res.send('Hello World'));
      return;
    // Also not a standard scenario (bench/README.md, "A production stack"): GET
    // /api/users/42 through the middleware a production app typically runs, the same
    // npm packages for every framework, as a user who swaps `require('express')` keeps them.
    case 'stack':
      productionStack(express, app);
      return;
    case 'json':
      requireResponse(express, 'json');
      app.get('/json', (req, res) => res.json({ hello: 'world' }));
      return;
    case 'routes':
      requireResponse(express, 'send');
      for (let i = 0; i < ROUTE_COUNT; i++) app.get(`${routePath(i)}/:id`, (req, res) => res.send(req.params.id));
      return;
    case 'middleware':
      for (let i = 0; i < COUNT; i++) app.use((req, res, next) => next());
      app.get('/', (req, res) => res.send('Hello World'));
      return;
    case 'routers':
      if (typeof express.Router !== 'function') unsupported('no Router() in this build');
      app.use('/api', nestedRouters(express));
      return;
    case 'body':
      app.post('/body', requireExtra(express, extras, 'json')({ limit: BODY_LIMIT }), (req, res) =>
        res.json(summariseBody(req.body)),
      );
      return;
    case 'form':
      app.post(
        '/form',
        requireExtra(express, extras, 'urlencoded')({ extended: true, limit: BODY_LIMIT }),
        (req, res) => res.json(summariseForm(req.body)),
      );
      return;
    case 'query':
      // Express 5 parses queries with the 'simple' parser unless told otherwise;
      // Express 4 and webapp default to 'extended'.
      app.set('query parser', 'extended');
      app.get('/query', (req, res) => res.send(cityOf(req.query)));
      return;
    case 'static':
      if (typeof express.static !== 'function') unsupported('no static() middleware in this build');
      app.use('/static', express.static(staticRoot));
      return;
    case 'sendfile':
      requireResponse(express, 'sendFile');
      app.get('/file', (req, res) => res.sendFile(sendFilePath));
      return;
    case 'ejs':
      requireResponse(express, 'render');
      app.set('views', viewsRoot);
      app.set('view engine', 'ejs');
      app.get('/page', (req, res) => res.render('page', VIEW_LOCALS));
      return;
    case 'gzip':
      app.use(requireExtra(express, extras, 'compress')());
      app.get('/gzip', (req, res) => res.type('html').send(GZIP_TEXT));
      return;
    case 'cookies':
      requireResponse(express, 'cookie');
      app.use(requireExtra(express, extras, 'cookieParser')());
      app.get('/cookies', (req, res) => {
        res.cookie(SET_COOKIE.name, SET_COOKIE.value);
        res.send(String(req.cookies.theme));
      });
      return;
    default:
      throw new Error(`unknown workload ${kind}`);
  }
}

/** `extras`: json, urlencoded (default: the framework's own), compress and cookieParser. */
export function startExpressStyle(express, extras = {}) {
  const app = express();
  defineApp(express, app, extras);
  const ready = () => announce(server.address().port);
  // BENCH_LISTENER=wrapped: the app reached through a function of the server's own, as
  // behind socket.io or a wrapper; webapp then cannot construct the requests itself.
  const server =
    process.env.BENCH_LISTENER === 'wrapped'
      ? http.createServer((req, res) => app(req, res)).listen(0, '127.0.0.1', ready)
      : app.listen(0, '127.0.0.1', ready);
}
