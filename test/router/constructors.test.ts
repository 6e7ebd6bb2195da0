/**
 * Express's Route and Layer are plain functions, and code built on them relies on it:
 * Express's own route.js calls `Layer('/', {}, fn)` without `new`, and modules subclass
 * them the ES5 way (`ExpressRoute.call(this, path)`). Run under the npm alias (the
 * migration guide's setup), such a module failed at start on webapp: its classes cannot
 * be called as functions, and a Layer made without options threw.
 */
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { describe, it } from 'node:test';
import express from 'express';
import webapp = require('../../src/index');
import webappLayer = require('../../src/lib/router/layer');
import webappRoute = require('../../src/lib/router/route');
import { assertSameResponses } from '../support/differential';

type Any = any;

/** What `require('express/lib/router/...')` gives, on each framework. */
const internals = new Map<unknown, { Route: Any; Layer: Any }>([
  [express, { Route: require('express/lib/router/route'), Layer: require('express/lib/router/layer') }],
  [webapp, { Route: webappRoute, Layer: webappLayer }],
]);

/**
 * A route class of an app's own, as a module on npm writes one: an ES5 subclass of
 * Express's Route whose `read` makes its layers by calling Layer without `new`.
 */
function customRouteClass(ExpressRoute: Any, Layer: Any) {
  function ReadRoute(this: Any, path: string) {
    ExpressRoute.call(this, path);
  }
  ReadRoute.prototype = Object.create(ExpressRoute.prototype);
  ReadRoute.prototype.constructor = ReadRoute;
  ReadRoute.prototype.read = function (this: Any, ...handles: Any[]) {
    for (const handle of handles.flat(Infinity)) {
      const layer = Layer('/', {}, handle);
      layer.method = 'get';
      this.methods.get = true;
      this.stack.push(layer);
    }
    return this;
  };
  return ReadRoute as Any;
}

describe("Express's Route and Layer called as plain functions", () => {
  it('an ES5 subclass of Route with layers made without `new` routes as on express@4', async () => {
    await assertSameResponses(
      (framework) => {
        const { Route, Layer } = internals.get(framework)!;
        const ReadRoute = customRouteClass(Route, Layer);
        const app = framework();
        const router = framework.Router();
        const route = new ReadRoute('/item/:id');
        route.read((req: Any, res: Any) => res.json({ id: req.params.id, route: req.route.path }));
        // Options left out, as Express takes them (`options || {}`): matches the whole path.
        const layer = new Layer('/item/:id', undefined, route.dispatch.bind(route));
        layer.route = route;
        router.stack.push(layer);
        app.use(router);
        return app as unknown as http.RequestListener;
      },
      ['/item/7', '/item/7/', '/item/7/more', '/item'].map((path) => ({ path })),
    );
  });

  it('is the constructor of the objects it makes, with or without `new`, as on express@4', () => {
    const describeOn = (framework: Any) => {
      const { Route, Layer } = internals.get(framework)!;
      const handler = function named() {};
      const called = Layer('/x', null, handler);
      const made = new Layer('/x', null, handler);
      const route = new Route('/r');
      class Extended extends (Route as new (path: string) => Any) {}
      const extended = new Extended('/e');
      return {
        names: [Route.name, Layer.name, Route.length, Layer.length],
        exported: [framework.Route === Route, framework.Router().route('/p') instanceof Route],
        layers: [called, made].map((layer) => [
          layer instanceof Layer,
          layer.constructor === Layer,
          layer.name,
          Object.keys(layer),
          layer.match('/x'),
          layer.match('/x/y'),
        ]),
        routes: [route, extended].map((made) => [
          made instanceof Route,
          made.constructor === Route,
          Object.keys(made),
          made.path,
        ]),
        extended: [extended instanceof Extended, typeof extended.dispatch],
      };
    };
    assert.deepEqual(describeOn(webapp), describeOn(express));
  });
});
