/**
 * Views differential against express@4: lookup order and failures (one directory,
 * arrays of two and three), locals precedence, the `cache` local, what engines
 * receive, synchronous and throwing engines, app.render's callback forms.
 */
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertSameResponses, type Framework } from '../support/differential';

type Any = any;
const fixtures = join(__dirname, '..', 'views', 'fixtures');
const dir = (name: string) => join(fixtures, name);
const scrub = (text: string) => text.split(fixtures).join('<fixtures>');

function errorHandler(app: Any) {
  app.use((err: Any, _req: Any, res: Any, _next: Any) => {
    res.statusCode = 500;
    res.end(
      scrub(
        `${String(err.message).split('\n')[0]} | view: ` +
          (err.view
            ? `${scrub(String(err.view.name))} ${scrub(JSON.stringify(err.view.root))} ${err.view.ext} ${err.view.path}`
            : 'none'),
      ),
    );
  });
}

describe('views compatibility with express@4', () => {
  it('lookup: name.ext before name/index.ext, nested names, absolute paths, every failure message', async () => {
    await assertSameResponses(
      (framework: Framework) => {
        const app: Any = framework();
        app.set('view engine', 'ejs');
        app.locals.who = 'app';
        app.get('/both', (_req: Any, res: Any) => res.render('both', { settings: { views: dir('d') } }));
        app.get('/views/:set/:name', (req: Any, res: Any) => {
          const sets: Record<string, unknown> = {
            d: dir('d'),
            da: [dir('d'), dir('a')],
            one: [dir('d')],
            three: [dir('a'), dir('b'), dir('d')],
          };
          app.set('views', sets[req.params.set]);
          res.render(req.params.name.replace(/~/g, '/'));
        });
        app.get('/absolute', (_req: Any, res: Any) => res.render(join(dir('d'), 'nested', 'deep')));
        errorHandler(app);
        return app;
      },
      [
        '/views/d/both',
        '/views/d/nested~deep',
        '/views/d/nested',
        '/views/da/hello',
        '/views/da/both',
        '/views/d/missing',
        '/views/one/missing',
        '/views/da/missing',
        '/views/three/missing',
        '/views/three/users',
        '/absolute',
        '/views/d/..~a~hello',
      ].map((path) => ({ path })),
    );
  });

  it('locals: app.locals < res.locals < render options; cache and settings reach the engine', async () => {
    await assertSameResponses(
      (framework: Framework) => {
        const app: Any = framework();
        app.set('views', dir('a'));
        app.locals.a = 'app';
        app.locals.b = 'app';
        app.locals.c = 'app';
        app.engine('.tpl', (path: string, options: Any, callback: Any) => {
          callback(
            null,
            JSON.stringify({
              path: scrub(path),
              a: options.a,
              b: options.b,
              c: options.c,
              cache: options.cache,
              views: scrub(options.settings.views),
              hasLocals: '_locals' in options,
              inherited: options.inherited,
            }),
          );
        });
        app.use((_req: Any, res: Any, next: Any) => {
          res.locals.b = 'res';
          res.locals.c = 'res';
          next();
        });
        app.get('/', (_req: Any, res: Any) => res.render('hello.tpl', { c: 'render' }));
        app.get('/cache', (_req: Any, res: Any) => res.render('hello.tpl', { cache: true }));
        app.get('/production', (_req: Any, res: Any) => {
          app.enable('view cache');
          res.render('hello.tpl', () => res.end('rendered with callback'));
        });
        app.get('/inherited', (_req: Any, res: Any) => res.render('hello.tpl', Object.create({ inherited: 'proto' })));
        app.get('/app-render', (_req: Any, res: Any) =>
          app.render('hello.tpl', (err: Any, html: string) => res.end(err ? 'err' : html)),
        );
        app.get('/app-render-opts', (_req: Any, res: Any) =>
          app.render('hello.tpl', { _locals: { b: 'private' } }, (err: Any, html: string) =>
            res.end(err ? 'err' : html),
          ),
        );
        errorHandler(app);
        return app;
      },
      ['/', '/cache', '/production', '/inherited', '/app-render', '/app-render-opts'].map((path) => ({ path })),
    );
  });

  it('engines: synchronous callbacks, throwing engines, errors, unknown modules', async () => {
    await assertSameResponses(
      (framework: Framework) => {
        const app: Any = framework();
        app.set('views', dir('d'));
        app.engine('tpl', (_path: string, options: Any, callback: Any) => {
          if (options.mode === 'throw') throw new Error('engine threw');
          if (options.mode === 'error') return callback(new Error('engine error'));
          callback(null, 'sync ' + options.mode);
        });
        app.get('/:mode', (req: Any, res: Any) => {
          let order = 'before';
          res.render('only-d.tpl', { mode: req.params.mode }, (err: Any, html: string) => {
            res.end(`${order} ${err ? 'err:' + err.message : html}`);
          });
          order = 'after';
        });
        app.get('/unknown/module', (_req: Any, res: Any) => res.render('x.nosuchengine'));
        app.get('/no/engine', (_req: Any, res: Any) => res.render('only-d'));
        errorHandler(app);
        return app;
      },
      ['/ok', '/throw', '/error', '/unknown/module', '/no/engine'].map((path) => ({ path })),
    );
  });

  it('ejs and pug by view engine name, with and without a leading dot', async () => {
    for (const engine of ['ejs', '.ejs', 'pug']) {
      await assertSameResponses(
        (framework: Framework) => {
          const app: Any = framework();
          app.set('views', dir('a'));
          app.set('view engine', engine);
          app.locals.title = 'T';
          app.locals.who = 'W';
          app.get('/', (_req: Any, res: Any) => res.render(engine === 'pug' ? 'page' : 'hello'));
          errorHandler(app);
          return app;
        },
        [{ path: '/' }],
      );
    }
  });
});
