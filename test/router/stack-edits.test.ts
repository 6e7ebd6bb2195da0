/**
 * A layer's `regexp` reassigned in place (code that renames a route, or swaps in a
 * hand-written expression): Express matches every layer by its `regexp` as it is at
 * each request, so the new expression decides from the next request on. webapp
 * matches through a pattern compiled from the path, which must give way to a
 * replaced expression, and its layer index (from 8 layers) must not file such a layer
 * under the segment of its old path once the index is built again (the stack
 * growing, shrinking or changing at either end rebuilds it).
 */
import { describe, it } from 'node:test';
import type http from 'node:http';
import { assertSameResponses, type Framework, type RequestSpec } from '../support/differential';

type Res = http.ServerResponse & { send(body: unknown): void; status(code: number): Res };
type Req = http.IncomingMessage & { params: Record<string, string> };
type Handler = (req: Req, res: Res) => void;
interface StackLayer {
  regexp: RegExp;
  keys: Array<{ name: string; optional: boolean }>;
  route?: { path: string };
}
interface RoutedApp {
  (req: http.IncomingMessage, res: http.ServerResponse): void;
  get(path: string, handler: Handler): RoutedApp;
  post(path: string, handler: Handler): RoutedApp;
  use(...args: unknown[]): RoutedApp;
  _router: { stack: StackLayer[] };
}

const NAMES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];

/** The last layer of a throwaway app that routes `GET path`: a layer to put into another stack. */
function routeLayer(framework: Framework, path: string, text: string): StackLayer {
  const other = framework() as unknown as RoutedApp;
  other.get(path, (_req, res) => res.send(text));
  return other._router.stack[other._router.stack.length - 1];
}

function indexOfRoute(stack: StackLayer[], path: string): number {
  return stack.findIndex((layer) => layer.route?.path === path);
}

/** `count` routes, a fallback, and `POST /edit` running `edit` on the app's stack. */
function editedApp(count: number, edit: (framework: Framework, stack: StackLayer[]) => void) {
  return (framework: Framework): http.RequestListener => {
    const app = framework() as unknown as RoutedApp;
    app.post('/edit', (_req, res) => {
      edit(framework, app._router.stack);
      res.send('edited');
    });
    for (const name of NAMES.slice(0, count))
      app.get('/' + name, (req, res) => res.send(`route ${name} ${JSON.stringify(req.params)}`));
    app.use((_req: unknown, res: Res) => res.status(404).send('fallback'));
    return app as unknown as http.RequestListener;
  };
}

function gets(...paths: string[]): RequestSpec[] {
  return paths.map((path) => ({ path }));
}

const EDIT: RequestSpec = { method: 'POST', path: '/edit' };

describe("a layer's regexp reassigned in place", () => {
  it('on a small stack (scanned): the new expression matches, the old one no more', async () => {
    const define = editedApp(3, (framework, stack) => {
      stack[indexOfRoute(stack, '/b')].regexp = routeLayer(framework, '/renamed', '').regexp;
    });
    await assertSameResponses(define, [...gets('/b', '/renamed'), EDIT, ...gets('/renamed', '/b', '/c')]);
  });

  it('a hand-written expression with a parameter, and keys to name it', async () => {
    const define = editedApp(3, (_framework, stack) => {
      const layer = stack[indexOfRoute(stack, '/b')];
      layer.regexp = /^\/items\/(\d+)\/?$/i;
      layer.keys = [{ name: 'id', optional: false }];
    });
    await assertSameResponses(define, [EDIT, ...gets('/items/42', '/items/x', '/b')]);
  });

  it('on an indexed stack, once a layer is added: filed by its new expression', async () => {
    const define = editedApp(10, (framework, stack) => {
      stack[indexOfRoute(stack, '/g')].regexp = routeLayer(framework, '/renamed', '').regexp;
      // Moves the fallback: the stack's last layer changes, so the index is built again.
      stack.splice(stack.length - 1, 0, routeLayer(framework, '/late', 'late'));
    });
    await assertSameResponses(define, [...gets('/g', '/renamed'), EDIT, ...gets('/renamed', '/g', '/late', '/h')]);
  });
});
