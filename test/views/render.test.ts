/** Views: lookup, engines, locals and caching, differential against express@4 where both apply. */
import assert from 'node:assert/strict';
import { basename, join } from 'node:path';
import { inherits } from 'node:util';
import { describe, it } from 'node:test';
import request from 'supertest';
import { assertSameResponses, type Framework } from '../support/differential';
import webapp = require('../../src/index');

const express = require('express');

type Any = any;
const fixtures = join(__dirname, 'fixtures');

describe('rendering compatibility with express@4', () => {
  it('ejs and pug by extension, views arrays, name/index lookup, locals merging, lookup errors', async () => {
    await assertSameResponses(
      (framework: Framework) => {
        const app: Any = framework();
        app.set('env', 'production');
        app.set('views', [join(fixtures, 'a'), join(fixtures, 'b')]);
        app.set('view engine', 'ejs');
        app.locals.title = 'app title';
        app.locals.who = 'app';
        app.use((_req: Any, res: Any, next: Any) => {
          res.locals.who = 'res.locals';
          next();
        });
        app.get('/hello', (_req: Any, res: Any) => res.render('hello'));
        app.get('/override', (_req: Any, res: Any) => res.render('hello.ejs', { who: 'render locals' }));
        app.get('/second-dir', (_req: Any, res: Any) => res.render('only-b'));
        app.get('/index', (_req: Any, res: Any) => res.render('users', { users: ['tobi', 'loki'] }));
        app.get('/pug', (_req: Any, res: Any) => res.render('page.pug'));
        app.get('/missing', (_req: Any, res: Any) => res.render('nope'));
        app.get('/callback', (_req: Any, res: Any) =>
          res.render('hello', (err: Error, html: string) => res.end('cb:' + (err ? err.message : html))),
        );
        app.get('/app-render', (_req: Any, res: Any) =>
          app.render('hello', { who: 'app.render' }, (err: Error, html: string) => res.end(err ? 'err' : html)),
        );
        app.use((err: Any, _req: Any, res: Any, _next: Any) => {
          res.statusCode = 500;
          res.end(err.message.replace(fixtures, '<fixtures>').replace(fixtures, '<fixtures>'));
        });
        return app;
      },
      ['/hello', '/override', '/second-dir', '/index', '/pug', '/missing', '/callback', '/app-render'].map((path) => ({
        path,
      })),
    );
  });

  it('a custom engine receives the path, the merged options with settings, and may fail', async () => {
    await assertSameResponses(
      (framework: Framework) => {
        const app: Any = framework();
        app.set('views', join(fixtures, 'a'));
        app.engine('tpl', (path: string, options: Any, callback: Any) => {
          if (options.fail) return callback(new Error('engine failed'));
          // A synchronous throw reaches the callback (and the error handler) as an error.
          if (options.throws) throw new Error('engine threw');
          callback(null, `${path.replace(fixtures, '')} ${typeof options.settings} ${options.cache} ${options.x}`);
        });
        app.get('/', (_req: Any, res: Any) => res.render('hello.tpl', { x: 1 }));
        app.get('/fail', (_req: Any, res: Any) => res.render('hello.tpl', { fail: true }));
        app.get('/throw', (_req: Any, res: Any) => res.render('hello.tpl', { throws: true }));
        app.get('/throw-callback', (_req: Any, res: Any) =>
          app.render('hello.tpl', { throws: true }, (err: Error) => res.end('callback: ' + err.message)),
        );
        app.use((err: Any, _req: Any, res: Any, _next: Any) => res.end('error: ' + err.message));
        return app;
      },
      [{ path: '/' }, { path: '/fail' }, { path: '/throw' }, { path: '/throw-callback' }, { path: '/' }],
    );
  });

  it('app.render without options (and no callback in their place) throws as in Express', () => {
    const thrown = (framework: Framework, call: (app: Any) => void) => {
      const app: Any = framework();
      app.set('views', join(fixtures, 'a'));
      try {
        call(app);
        return 'no throw';
      } catch (err) {
        return `${(err as Error).name}: ${(err as Error).message}`;
      }
    };
    const calls = [
      (app: Any) => app.render('hello', undefined, () => undefined),
      (app: Any) => app.render('hello'),
      (app: Any) => app.render('hello', null, () => undefined),
    ];
    for (const call of calls) assert.equal(thrown(webapp as Any, call), thrown(express as Any, call));
    assert.equal(thrown(webapp as Any, calls[0]), "TypeError: Cannot read properties of undefined (reading '_locals')");
  });

  it('a `view` setting that is not a class fails with the error Express gives', async () => {
    await assertSameResponses(
      (framework: Framework) => {
        const app: Any = framework();
        app.set('view', {});
        app.get('/', (_req: Any, res: Any) => res.render('index'));
        app.use((err: Any, _req: Any, res: Any, _next: Any) => res.end(`${err.name}: ${err.message}`));
        return app;
      },
      [{ path: '/' }],
    );
  });

  it("View is Express's constructor function: ES5 subclasses, accessors, enumerable methods, its errors", () => {
    const shape = (framework: Framework) => {
      const View = (framework as Any)().get('view');
      const options = () => ({ root: join(fixtures, 'a'), engines: { '.ejs': () => undefined }, defaultEngine: 'ejs' });
      const outcome = (make: () => unknown) => {
        try {
          return make();
        } catch (err) {
          return `${(err as Error).name}: ${(err as Error).message}`;
        }
      };
      // As view plug-ins subclass it (engine-munger, react-engine): a class cannot be called so.
      function Es5View(this: Any, name: string, opts: Any) {
        View.call(this, name, opts);
      }
      inherits(Es5View, View);
      // An accessor on a subclass sees the base's assignment, as in Express; a class field would hide it.
      class FallbackView extends View {
        declare fallback?: string;
        get path(): string {
          return this.fallback ?? 'fallback.ejs';
        }
        set path(found: string | undefined) {
          if (found) this.fallback = found;
        }
      }
      return {
        es5: outcome(() => basename((new (Es5View as Any)('hello', options()) as Any).path)),
        es5IsView: outcome(() => new (Es5View as Any)('hello', options()) instanceof View),
        found: outcome(() => basename(new (FallbackView as Any)('hello', options()).path)),
        accessor: outcome(() => new (FallbackView as Any)('missing', options()).path),
        keys: Object.keys(View.prototype),
        copied: Object.keys(Object.assign({}, View.prototype)),
        noOptions: outcome(() => new View('hello')),
        noEngines: outcome(() => new View('hello.ejs', { root: fixtures })),
        name: View.name,
        length: View.length,
      };
    };
    assert.deepEqual(shape(webapp as Any), shape(express));
    assert.equal(shape(webapp as Any).es5, 'hello.ejs');
  });

  it('a `view` setting that cannot construct, and a callback that is not a function, fail as in Express', () => {
    const thrown = (framework: Framework, setup: (app: Any) => void) => {
      const app: Any = framework();
      app.set('views', join(fixtures, 'a'));
      setup(app);
      try {
        app.render('nope', {}, 'not a function');
        return 'no throw';
      } catch (err) {
        return `${(err as Error).name}: ${(err as Error).message}`;
      }
    };
    const setups = [
      (app: Any) => app.set('view', () => undefined),
      (app: Any) => app.set('view', { render() {} }.render),
      (app: Any) => app.set('view engine', 'ejs'),
    ];
    for (const setup of setups) assert.equal(thrown(webapp as Any, setup), thrown(express, setup));
    assert.equal(thrown(webapp as Any, setups[2]!), 'TypeError: done is not a function');
  });
});

describe('views', () => {
  it('caches View objects when view cache is on, and not otherwise', async () => {
    const app: Any = webapp();
    app.set('views', join(fixtures, 'a'));
    app.engine('tpl', (_p: string, _o: object, cb: Any) => cb(null, 'ok'));
    await new Promise<void>((resolve) => app.render('hello.tpl', () => resolve()));
    assert.equal(app.cache['hello.tpl'], undefined);
    app.enable('view cache');
    await new Promise<void>((resolve) => app.render('hello.tpl', () => resolve()));
    assert.ok(app.cache['hello.tpl']);
    await new Promise<void>((resolve) => app.render('hello.tpl', { cache: false }, () => resolve()));
  });

  it('throws without a default engine or an extension, as Express does', () => {
    const app: Any = webapp();
    assert.throws(
      () => app.render('hello', () => undefined),
      /No default engine was specified and no extension was provided/,
    );
  });

  it("prefers an engine module's __webapp export over __express", async () => {
    const app: Any = webapp();
    app.set('views', join(fixtures, 'a'));
    const Module = await import('node:module');
    const fake = {
      __webapp: (_p: string, _o: object, cb: Any) => cb(null, 'via __webapp'),
      __express: (_p: string, _o: object, cb: Any) => cb(null, 'via __express'),
    };
    const resolved = join(fixtures, 'c', 'node_modules', 'webapp-engine', 'index.js');
    const cache = (Module.default as Any)._cache as Record<string, Any>;
    cache[resolved] = { id: resolved, filename: resolved, loaded: true, exports: fake };
    const originalResolve = (Module.default as Any)._resolveFilename;
    (Module.default as Any)._resolveFilename = function (name: string, ...rest: unknown[]) {
      return name === 'webapp-engine' ? resolved : originalResolve.call(this, name, ...rest);
    };
    try {
      app.set('view engine', 'webapp-engine');
      app.get('/', (_req: Any, res: Any) => res.render('hello'));
      // hello.webapp-engine does not exist; the error proves the engine loaded, then lookup ran.
      app.use((err: Error, _req: Any, res: Any, _next: Any) =>
        res.end(err.message.includes('Failed to lookup view') ? 'engine loaded' : err.message),
      );
      await request(app).get('/').expect(200, 'engine loaded');
      assert.equal(app.engines['.webapp-engine'], fake.__webapp);
    } finally {
      (Module.default as Any)._resolveFilename = originalResolve;
      delete cache[resolved];
    }
  });
});
