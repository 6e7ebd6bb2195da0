/**
 * An accessor code puts on `Layer.prototype` before the layers are made is used by
 * every layer, as with Express's constructor, which assigns `handle`, `name`,
 * `params` and `path`: express-async-errors wraps each handler this way (its setter
 * stores a wrapper keeping the function's arity). Differential against express@4.
 */
import { afterEach, describe, it } from 'node:test';
import type { NextFunction, Request, Response } from 'express';
import { assertSameResponses, type Framework } from '../support/differential';
import express from 'express';
import webapp = require('../../src/index');

type AnyFunction = (...args: unknown[]) => unknown;
type Counted = Request & { wrappedCalls?: number };

/** Layer.prototype of a framework, from a layer of one of its apps. */
function layerPrototypeOf(framework: Framework): object {
  const app = framework();
  app.get('/', () => undefined);
  const stack = (app as unknown as { _router: { stack: object[] } })._router.stack;
  return Object.getPrototypeOf(stack[stack.length - 1]) as object;
}

const prototypes = [layerPrototypeOf(express), layerPrototypeOf(webapp as unknown as Framework)];
const kHandle = Symbol('wrapped handle');

/** What express-async-errors installs: each function assigned to `handle` is stored wrapped. */
function installHandleAccessor(proto: object): void {
  Object.defineProperty(proto, 'handle', {
    configurable: true,
    enumerable: true,
    get(this: Record<symbol, unknown>) {
      return this[kHandle];
    },
    set(this: Record<symbol, unknown>, fn: AnyFunction) {
      const wrapped = function (this: unknown, ...args: unknown[]) {
        const req = args[args.length === 4 ? 1 : 0] as Counted;
        req.wrappedCalls = (req.wrappedCalls ?? 0) + 1;
        return fn.apply(this, args);
      };
      Object.defineProperty(wrapped, 'length', { value: fn.length });
      this[kHandle] = wrapped;
    },
  });
}

afterEach(() => {
  for (const proto of prototypes) Reflect.deleteProperty(proto, 'handle');
});

describe('an accessor on Layer.prototype', () => {
  it('`handle`: every layer stores its function through the setter and calls what the getter gives', async () => {
    for (const proto of prototypes) installHandleAccessor(proto);
    await assertSameResponses(
      (fw) => {
        const app = fw();
        app.use((_req: Request, _res: Response, next: NextFunction) => next());
        const router = fw.Router();
        router.get('/:id', (req: Request, _res: Response, next: NextFunction) => next(new Error(req.params.id)));
        app.use('/items', router);
        app.get('/', (req: Counted, res: Response) => res.send(`calls ${req.wrappedCalls}`));
        app.use((err: Error, req: Counted, res: Response, _next: NextFunction) => {
          res.status(500).send(`${err.message} after ${req.wrappedCalls} calls`);
        });
        return app;
      },
      [{ path: '/' }, { path: '/items/7' }, { path: '/missing' }],
    );
  });
});
