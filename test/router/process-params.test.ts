/**
 * APM agents learn a request's route by wrapping the router prototype's
 * `process_params`, which express@4 calls for every layer that matches (Sentry's
 * Express integration builds its transaction names that way; New Relic and Datadog
 * wrap it too). webapp skips the call where the router's own function has nothing to
 * do, so a replaced `process_params` must switch that off: the wrapper sees the same
 * layers, in the same order, as under express@4, and param callbacks still run.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { describe, it } from 'node:test';
import { frameworks, rawRequest, withServer, type Framework } from '../support/differential';

type App = ReturnType<Framework>;
type AnyFunction = (...args: unknown[]) => unknown;

interface SeenLayer {
  name: string;
  path?: string;
  route?: { path: string };
}

interface RouteCarrier {
  reconstructedRoute?: string;
}

/** The router prototype a wrapper patches: `Object.getPrototypeOf(app._router)`, as the agents find it. */
function routerPrototype(app: App): Record<string, AnyFunction> {
  (app as unknown as { lazyrouter(): void }).lazyrouter();
  return Object.getPrototypeOf((app as unknown as { _router: object })._router) as Record<string, AnyFunction>;
}

function defineApp(framework: Framework, events: string[]): App {
  const app = framework();
  app.use((_req, _res, next) => next());
  app.param('id', (req, _res, next, value) => {
    events.push(`param id=${String(value)}`);
    next();
  });
  app.get('/users/:id', (req, res) => res.send(`user ${req.params.id} ${(req as RouteCarrier).reconstructedRoute}`));
  const items = framework.Router();
  items.get('/:item', (req, res) => res.send(`item ${req.params.item} ${(req as RouteCarrier).reconstructedRoute}`));
  const v1 = framework.Router();
  v1.use('/items', items);
  app.use('/api/v1', v1);
  app.use('/static', (_req, res) => res.send('static'));
  return app;
}

/** Every request's answer and what a Sentry-style wrapper of `process_params` saw, in order. */
async function observe(framework: Framework): Promise<{ answers: string[]; events: string[] }> {
  const events: string[] = [];
  const app = defineApp(framework, events);
  const proto = routerPrototype(app);
  const original = proto.process_params;
  proto.process_params = function (this: unknown, ...args: unknown[]) {
    const [layer, , req] = args as [SeenLayer, unknown, RouteCarrier];
    const partial = layer.route?.path ?? layer.path ?? '';
    events.push(`layer ${layer.name} ${partial}`);
    if (partial !== '' && partial !== '/') req.reconstructedRoute = (req.reconstructedRoute ?? '') + partial;
    return original.apply(this, args);
  };
  const answers: string[] = [];
  try {
    await withServer(app as unknown as http.RequestListener, async (port) => {
      for (const path of ['/users/42', '/api/v1/items/7', '/static/x.css', '/missing']) {
        events.push(`request ${path}`);
        const answer = await rawRequest(port, { path });
        answers.push(`${answer.status} ${answer.status === 404 ? '' : answer.body}`);
      }
    });
  } finally {
    proto.process_params = original;
  }
  return { answers, events };
}

describe('a wrapped router process_params', () => {
  it('sees every matched layer as under express@4, and param callbacks still run', async () => {
    const theirs = await observe(frameworks[0][1]);
    const ours = await observe(frameworks[1][1]);
    assert.deepEqual(ours, theirs);
    assert.deepEqual(ours.answers.slice(0, 3), [
      '200 user 42 /users/:id',
      '200 item 7 /api/v1/items/:item',
      '200 static',
    ]);
    assert.ok(ours.events.includes('param id=42'));
    assert.ok(ours.events.filter((event) => event.startsWith('layer query')).length === 4);
  });

  it('is a method of the routers’ prototype under Express’s name', () => {
    const [express, webapp] = frameworks.map(
      ([, framework]) => framework.Router as unknown as Record<string, AnyFunction>,
    );
    assert.equal(typeof webapp.process_params, 'function');
    assert.equal(webapp.process_params.name, express.process_params.name);
    assert.equal(webapp.process_params.length, express.process_params.length);
  });

  it('is called for every layer of a router whose own process_params was replaced', async () => {
    const seen = async (framework: Framework): Promise<string[]> => {
      const events: string[] = [];
      const app = framework();
      const users = framework.Router();
      users.use((_req, _res, next) => next());
      users.get('/:id', (req, res) => res.send(req.params.id));
      const methods = users as unknown as Record<string, AnyFunction>;
      const original = methods.process_params;
      methods.process_params = function (this: unknown, ...args: unknown[]) {
        const layer = args[0] as SeenLayer;
        events.push(`${layer.name} ${layer.route?.path ?? layer.path}`);
        return original.apply(this, args);
      };
      app.use('/users', users);
      await withServer(app as unknown as http.RequestListener, async (port) => {
        events.push((await rawRequest(port, { path: '/users/9' })).body);
      });
      return events;
    };
    const theirs = await seen(frameworks[0][1]);
    assert.deepEqual(await seen(frameworks[1][1]), theirs);
    assert.deepEqual(theirs, ['<anonymous> ', 'bound dispatch /:id', '9']);
  });
});
