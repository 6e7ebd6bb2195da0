/**
 * A run of middleware at `/` goes from one layer to the next without the layer walk
 * while nothing the walk reads has changed (src/router/dispatch.ts, continuePlainRun).
 * Whatever changes between two such layers must be seen as express@4 sees it: a
 * rewritten `req.url`, a layer added or wrapped during the request, a wrapped
 * `Layer.prototype.handle_request` or `router.process_params`, a `req.url` that no
 * longer parses, `next` called twice, `next('route')`, a throw, and a run longer
 * than the synchronous depth limit.
 */
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import type { NextFunction, Request, Response } from 'express';
import { assertSameResponses, type Framework, type RequestSpec } from '../support/differential';
import { hit } from '../support/trail';

type AnyFunction = (...args: unknown[]) => unknown;
interface StackLayer {
  name: string;
  handle: AnyFunction;
}

const get = (path: string): RequestSpec => ({ path });

function stackOf(app: ReturnType<Framework>): StackLayer[] {
  return (app as unknown as { _router: { stack: StackLayer[] } })._router.stack;
}

/** Answers with the trail and what the request looked like at the end. */
function answer(tag: string) {
  return (req: Request, res: Response) => {
    res.json({ tag, trail: res.getHeader('x-trail') ?? null, url: req.url, baseUrl: req.baseUrl, params: req.params });
  };
}

/** `hit(name)` as a function of that name: the layer's `name`, which wrappers of the layer methods report. */
function namedHit(name: string) {
  return Object.defineProperty(hit(name), 'name', { value: name });
}

/** A middleware that records the URL it saw in the trail. */
function sawUrl(name: string) {
  return (req: Request, res: ServerResponse, next: NextFunction) => hit(`${name}@${req.url}`)(req, res, next);
}

/**
 * The app the test builds on: on a small stack the walk scans every layer; with ten
 * routes of literal first segments in front, it walks the layer index's candidates
 * for the path (src/router/layer-index.ts), which a rewritten URL changes.
 */
function appWith(fw: Framework, unrelatedRoutes: number): ReturnType<Framework> {
  const app = fw();
  for (let i = 0; i < unrelatedRoutes; i++) app.get(`/unrelated${i}/:id`, answer(`unrelated ${i}`));
  return app;
}

const STACKS: Array<[string, number]> = [
  ['on a stack scanned whole', 0],
  ['on an indexed stack', 10],
];

describe('a run of middleware at /', () => {
  for (const [stackKind, unrelatedRoutes] of STACKS) {
    describe(stackKind, () => {
      it('sees a req.url rewritten between two of its layers, as express@4 does', async () => {
        await assertSameResponses(
          (fw) => {
            const app = appWith(fw, unrelatedRoutes);
            app.use(sawUrl('a'));
            app.use((req: Request, res: Response, next: NextFunction) => {
              if (req.url.startsWith('/old')) req.url = '/new' + req.url.slice(4);
              sawUrl('rewrite')(req, res, next);
            });
            app.use(sawUrl('b'));
            app.use('/new', sawUrl('mounted'));
            app.use(sawUrl('c'));
            app.get('/new/:id', answer('new'));
            app.get('/old/:id', answer('old'));
            return app;
          },
          [get('/old/1'), get('/new/2'), get('/other')],
        );
      });

      it('reaches a layer added, and a layer function wrapped, during the request', async () => {
        await assertSameResponses(
          (fw) => {
            const app = appWith(fw, unrelatedRoutes);
            let added = false;
            app.use(hit('first'));
            app.use((_req: Request, _res: Response, next: NextFunction) => {
              // Wraps the function of the layer two places on, as instrumentation does.
              const stack = stackOf(app);
              const target = stack.find((layer) => layer.handle.name === 'target');
              if (target && !target.handle.name.startsWith('wrapped')) {
                const original = target.handle;
                target.handle = Object.defineProperty(
                  function (this: unknown, ...args: unknown[]) {
                    hit('wrapper')(args[0], args[1] as ServerResponse, () => undefined);
                    return original.apply(this, args);
                  },
                  'name',
                  { value: 'wrapped target' },
                ) as AnyFunction;
              }
              if (!added) {
                added = true;
                app.use(hit('added during the first request'));
                app.use(answer('end'));
              }
              next();
            });
            app.use(hit('between'));
            app.use(namedHit('target'));
            return app;
          },
          [get('/'), get('/again')],
        );
      });

      it('follows the stack when a layer removes itself during the request, as express@4 does', async () => {
        await assertSameResponses(
          (fw) => {
            const app = appWith(fw, unrelatedRoutes);
            app.use(function once(req: Request, res: Response, next: NextFunction) {
              // One-time set-up that takes itself out: express@4 then skips the layer after it.
              const stack = stackOf(app);
              const at = stack.findIndex((layer) => layer.name === 'once');
              if (at !== -1) stack.splice(at, 1);
              hit('once')(req, res, next);
            });
            app.get('/zzz/:id', answer('zzz'));
            app.use(hit('b'));
            app.use(hit('c'));
            app.use(answer('end'));
            return app;
          },
          [get('/'), get('/'), get('/zzz/1')],
        );
      });

      it('goes through a Layer.prototype.handle_request wrapped by one of its layers', async () => {
        await assertSameResponses(
          (fw) => {
            const app = appWith(fw, unrelatedRoutes);
            let original: AnyFunction | undefined;
            app.use(hit('before'));
            app.use((req: Request, res: Response, next: NextFunction) => {
              const proto = Object.getPrototypeOf(stackOf(app)[0]) as { handle_request: AnyFunction };
              original = proto.handle_request;
              proto.handle_request = function (this: StackLayer, ...args: unknown[]) {
                hit('via ' + this.name)(args[0], args[1] as ServerResponse, () => undefined);
                return original!.apply(this, args);
              };
              // Put back once the response is sent, so the other framework's run is not wrapped.
              res.on('finish', () => {
                proto.handle_request = original!;
              });
              next();
            });
            app.use(namedHit('after'));
            app.get('/', answer('end'));
            return app;
          },
          [get('/')],
        );
      });

      it('leaves the router when a layer makes req.url unparseable, as express@4 does', async () => {
        await assertSameResponses(
          (fw) => {
            const app = appWith(fw, unrelatedRoutes);
            app.use(hit('before'));
            app.use((req: Request, _res: Response, next: NextFunction) => {
              if (req.query.empty) req.url = '';
              next();
            });
            app.use(hit('after'));
            app.use(answer('end'));
            return app;
          },
          [get('/'), get('/?empty=1')],
        );
      });

      it('goes through a router.process_params replaced before or during the request', async () => {
        for (const when of ['before', 'during'] as const) {
          await assertSameResponses(
            (fw) => {
              const app = appWith(fw, unrelatedRoutes);
              app.use(hit('first'));
              const router = (app as unknown as { _router: Record<string, AnyFunction> })._router;
              const wrap = (label: string) => {
                const original = router.process_params;
                router.process_params = function (this: unknown, ...args: unknown[]) {
                  const layer = args[0] as StackLayer;
                  hit(`${label}:${layer.name}`)(args[2], args[3] as ServerResponse, () => undefined);
                  return original.apply(this, args);
                };
                return original;
              };
              if (when === 'before') wrap('before');
              app.use((req: Request, res: Response, next: NextFunction) => {
                if (when === 'during' && req.query.wrap) {
                  const original = wrap('during');
                  res.on('finish', () => {
                    router.process_params = original;
                  });
                }
                next();
              });
              app.use(namedHit('second'));
              app.use(namedHit('third'));
              app.get('/', answer('end'));
              return app;
            },
            [get('/'), get('/?wrap=1')],
          );
        }
      });

      it("follows next called twice, next('route') and a throw as express@4 does", async () => {
        await assertSameResponses(
          (fw) => {
            const app = appWith(fw, unrelatedRoutes);
            app.use(hit('one'));
            app.use((req: Request, res: Response, next: NextFunction) => {
              if (req.query.twice) {
                next();
                next();
              } else if (req.query.route) next('route');
              else if (req.query.throw) throw new Error('thrown in the run');
              else next();
            });
            app.use(hit('two'));
            app.use(hit('three'));
            app.use((req: Request, res: Response, next: NextFunction) => {
              if (res.headersSent) return;
              if (req.query.twice && res.getHeader('x-seen')) return answer('second')(req, res);
              res.setHeader('x-seen', '1');
              if (req.query.twice) return next();
              answer('end')(req, res);
            });
            app.use((_err: Error, req: Request, res: Response, _next: NextFunction) => {
              res.status(500).json({ error: _err.message, trail: res.getHeader('x-trail') ?? null, url: req.url });
            });
            return app;
          },
          [get('/'), get('/?twice=1'), get('/?route=1'), get('/?throw=1')],
        );
      });

      it('of 250 synchronous layers runs every one, in order, on a bounded stack', async () => {
        await assertSameResponses(
          (fw) => {
            const app = appWith(fw, unrelatedRoutes);
            for (let i = 0; i < 250; i++) {
              app.use((_req: Request, res: Response, next: NextFunction) => {
                res.locals.count = ((res.locals.count as number) || 0) + 1;
                res.locals.last = i;
                next();
              });
            }
            app.get('/', (_req: Request, res: Response) =>
              res.json({ count: res.locals.count, last: res.locals.last }),
            );
            return app;
          },
          [get('/'), get('/')],
        );
      });

      it('yields to the event loop after as many synchronous layers as express@4 does', async () => {
        await assertSameResponses(
          (fw) => {
            const app = appWith(fw, unrelatedRoutes);
            const order: string[] = [];
            app.use((_req: Request, _res: Response, next: NextFunction) => {
              order.length = 0;
              setImmediate(() => order.push('immediate'));
              next();
            });
            for (let i = 1; i < 250; i++) {
              app.use((_req: Request, _res: Response, next: NextFunction) => {
                order.push(String(i));
                next();
              });
            }
            // Where the immediate came in the run: after the layer at which the walk yielded.
            app.get('/', (_req: Request, res: Response) => res.json({ after: order[order.indexOf('immediate') - 1] }));
            return app;
          },
          [get('/'), get('/')],
        );
      });
    });
  }
});
