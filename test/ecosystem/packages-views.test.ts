/**
 * View engines from npm, unmodified, on webapp through `app.engine`, `view engine`,
 * `res.render` and `app.render`: layouts, partials, `app.locals` and `res.locals`,
 * render callbacks, missing views and errors in templates. The same app on
 * express@4 and on webapp gets the same requests, and the answers must match.
 */
import assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import {
  assertSameResponses,
  withoutStackFrames,
  type Framework,
  type RawResponse,
  type RequestSpec,
} from '../support/differential';

type Any = any;

const views = join(__dirname, 'fixtures', 'views');

interface Engine {
  /** The package (and how it is used), for the test's name. */
  name: string;
  /** The views folder under fixtures/views. */
  folder: string;
  /** Registers the engine on the app (`app.engine`, `view engine`, engine settings). */
  setup(app: Any): void;
  /**
   * Views whose rendering fails (syntax errors, errors thrown while rendering), with
   * the status of the answer: 500, or 200 where the engine renders what it has.
   */
  failing: Record<string, number>;
  /** What the page must contain (checked on webapp's answer). */
  page: RegExp;
}

const engines: Engine[] = [
  {
    name: 'mustache-express (partials folder, its template cache)',
    folder: 'mustache',
    setup(app) {
      const mustacheExpress = require('mustache-express');
      app.engine('mustache', mustacheExpress(join(views, 'mustache', 'partials'), '.mustache'));
      app.set('view engine', 'mustache');
    },
    failing: { broken: 500 },
    page: /<header>the site: Tea &lt;&amp;&gt; biscuits<\/header>\n<h1>Tea &lt;&amp;&gt; biscuits<\/h1>\n<ul><li>a<\/li><li>b<\/li><\/ul>\n<p><em>raw<\/em> the site res.locals<\/p>/,
  },
  {
    name: 'eta (an Eta instance behind app.engine, layout and include)',
    folder: 'eta',
    setup(app) {
      const { Eta } = require('eta');
      const root = join(views, 'eta');
      const eta = new Eta({ views: root, cache: false });
      app.engine('eta', (path: string, options: object, callback: (err: unknown, html?: string) => void) => {
        try {
          callback(null, eta.render('./' + relative(root, path), options));
        } catch (err) {
          callback(err);
        }
      });
      app.set('view engine', 'eta');
    },
    failing: { throws: 500, syntax: 500 },
    page: /^<html><title>Tea &lt;&amp;&gt; biscuits<\/title><body><b>Tea &lt;&amp;&gt; biscuits<\/b>\n<ul><li>a<\/li><li>b<\/li><\/ul>\n<p>the site res.locals<\/p>\n<\/body><\/html>/,
  },
  {
    name: 'liquidjs (engine.express(), layout blocks, render, strict filters)',
    folder: 'liquid',
    setup(app) {
      const { Liquid } = require('liquidjs');
      const engine = new Liquid({ root: join(views, 'liquid'), extname: '.liquid', strictFilters: true });
      app.engine('liquid', engine.express());
      app.set('view engine', 'liquid');
    },
    failing: { 'unknown-filter': 500, syntax: 500 },
    page: /^<html><title>TEA <&> BISCUITS<\/title><body><b>Tea &lt;&amp;&gt; biscuits<\/b>\n<ul><li>a<\/li><li>b<\/li><\/ul><p>the site res.locals <\/p><\/body><\/html>/,
  },
  {
    name: 'twig (its __express found by `view engine`, extends and include, twig options)',
    folder: 'twig',
    setup(app) {
      // Twig.js logs the errors it renders through; the answers carry what the test compares.
      require('twig').extend((Twig: Any) => {
        Twig.log.error = () => {};
      });
      app.set('view engine', 'twig');
      app.set('twig options', { allowAsync: true, strict_variables: false });
    },
    // Twig.js logs a template's compile error and renders what it has: no error reaches Express.
    failing: { syntax: 200, throws: 500 },
    page: /^<html><title>TEA <&> BISCUITS<\/title><body><b>Tea &lt;&amp;&gt; biscuits<\/b>\n<ul><li>a<\/li><li>b<\/li><\/ul><p>the site res.locals<\/p><\/body><\/html>/,
  },
  {
    name: 'ejs-mate (layout, block, partial with the page’s locals)',
    folder: 'ejs-mate',
    setup(app) {
      app.engine('ejs', require('ejs-mate'));
      app.set('view engine', 'ejs');
    },
    failing: { throws: 500 },
    page: /^<html><head><title>Tea <&> biscuits<\/title><\/head><body><b>Tea &lt;&amp;&gt; biscuits<\/b>\n\n<ul><li>a<\/li><li>b<\/li><\/ul>\n<p>the site res.locals<\/p>\n<\/body><\/html>/,
  },
  {
    name: 'consolidate (handlebars with partials as the default engine, mustache by extension)',
    folder: 'consolidate',
    setup(app) {
      const cons = require('consolidate');
      app.engine('hbs', cons.handlebars);
      app.engine('mustache', cons.mustache);
      app.set('view engine', 'hbs');
      app.locals.partials = { header: 'partials/header' };
    },
    failing: { broken: 500 },
    page: /^<header>Tea &lt;&amp;&gt; biscuits<\/header>\n<ul><li>a<\/li><li>b<\/li><\/ul><p>the site res.locals<\/p>/,
  },
];

const locals = { title: 'Tea <&> biscuits', items: ['a', 'b'], raw: '<em>raw</em>' };

/**
 * Error pages carry stack frames; a view engine that cannot be required lists the
 * modules that required it (express's lib/view.js, webapp's view.ts): both are cut.
 */
function normalize(res: RawResponse): RawResponse {
  const out = withoutStackFrames(res);
  const cut = out.body.indexOf('<br>Require stack:');
  if (cut === -1) return out;
  const headers = { ...out.headers };
  delete headers['content-length'];
  return { ...out, headers, body: out.body.slice(0, cut) };
}

describe('view engines from npm on webapp (differential against express@4)', () => {
  for (const engine of engines) {
    it(engine.name, async () => {
      const requests: RequestSpec[] = [
        { path: '/' },
        { path: '/callback' },
        { path: '/app-render' },
        { path: '/missing' },
        { path: '/cached' },
        { path: '/cached' },
        ...Object.keys(engine.failing).map((view) => ({ path: '/fail/' + view })),
        ...Object.keys(engine.failing).map((view) => ({ path: '/fail-callback/' + view })),
      ];
      if (engine.folder === 'consolidate') requests.push({ path: '/by-extension' });
      const answers = await assertSameResponses(
        (fw: Framework) => {
          const app: Any = fw();
          // Error pages show the stack as in development, but the final handler logs nothing.
          app.set('env', 'test');
          app.set('views', join(views, engine.folder));
          engine.setup(app);
          app.locals.site = 'the site';
          app.use((_req: Any, res: Any, next: Any) => {
            res.locals.who = 'res.locals';
            next();
          });
          app.get('/', (_req: Any, res: Any) => res.render('page', locals));
          app.get('/callback', (_req: Any, res: Any) =>
            res.render('page', { ...locals, site: 'overridden' }, (err: Any, html: string) =>
              res.json({ err: err && err.message, html }),
            ),
          );
          app.get('/app-render', (_req: Any, res: Any, next: Any) =>
            app.render('page', locals, (err: Any, html: string) => (err ? next(err) : res.type('text').send(html))),
          );
          app.get('/missing', (_req: Any, res: Any) => res.render('nope'));
          app.get('/cached', (_req: Any, res: Any) => {
            app.enable('view cache');
            res.render('page', locals);
          });
          app.get('/fail/:view', (req: Any, res: Any) => res.render(req.params.view, locals));
          app.get('/fail-callback/:view', (req: Any, res: Any) =>
            res.render(req.params.view, locals, (err: Any, html: string) =>
              res.status(err ? 500 : 200).json({ failed: Boolean(err), name: err && err.name, html }),
            ),
          );
          app.get('/by-extension', (_req: Any, res: Any) => res.render('page.mustache', locals));
          return app;
        },
        requests,
        undefined,
        normalize,
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        [
          200,
          200,
          200,
          500,
          200,
          200,
          ...Object.values(engine.failing),
          ...Object.values(engine.failing),
          ...(engine.folder === 'consolidate' ? [200] : []),
        ],
      );
      assert.match(answers[0]!.body, engine.page);
      assert.equal(answers[4]!.body, answers[0]!.body);
      assert.match(answers[3]!.body, /Failed to lookup view &quot;nope&quot; in views directory/);
    });
  }
});

describe('several engines in one app (differential against express@4)', () => {
  it('views in several folders, engines by extension, no default engine, an engine that throws', async () => {
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.set('env', 'test');
        app.set('views', [join(views, 'liquid'), join(views, 'ejs-mate')]);
        const { Liquid } = require('liquidjs');
        app.engine('liquid', new Liquid({ root: join(views, 'liquid'), extname: '.liquid' }).express());
        app.engine('ejs', require('ejs-mate'));
        app.engine('boom', () => {
          throw new Error('the engine threw');
        });
        app.locals.site = 'the site';
        app.get('/liquid', (_req: Any, res: Any) => res.render('page.liquid', locals));
        app.get('/ejs', (_req: Any, res: Any) => res.render('page.ejs', { ...locals, who: 'me' }));
        app.get('/no-extension', (_req: Any, res: Any) => res.render('page', locals));
        app.get('/unknown-extension', (_req: Any, res: Any) => res.render('page.nothing', locals));
        app.get('/throws', (_req: Any, res: Any) => res.render('engine-throws.boom', locals));
        return app;
      },
      [
        { path: '/liquid' },
        { path: '/ejs' },
        { path: '/no-extension' },
        { path: '/unknown-extension' },
        { path: '/throws' },
      ],
      undefined,
      normalize,
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 500, 500, 500],
    );
    assert.match(answers[2]!.body, /No default engine was specified and no extension was provided/);
    assert.match(normalize(answers[3]!).body, /Cannot find module &#39;nothing&#39;$/);
    assert.match(answers[4]!.body, /Error: the engine threw/);
  });
  it('res.render’s odd calls (liquidjs): a folder’s index, ../ and absolute paths, odd options', async () => {
    const { Liquid } = require('liquidjs');
    const liquid = join(views, 'liquid');
    const paths = [
      '/index',
      '/parent',
      '/absolute',
      '/absolute-with-extension',
      '/callback-only',
      '/string-options',
      '/null-options',
      '/replaced-locals',
      '/status',
      '/type',
      '/number',
      '/empty',
      '/cache-option',
      '/cache-option-again',
    ];
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.set('env', 'test');
        app.engine('liquid', new Liquid({ root: liquid, extname: '.liquid' }).express());
        app.set('view engine', 'liquid');
        app.set('views', liquid);
        app.get('/index', (_req: Any, res: Any) => res.render('section', { title: 'section/index' }));
        app.get('/parent', (_req: Any, res: Any) => res.render('../liquid/item', { name: 'parent' }));
        app.get('/absolute', (_req: Any, res: Any) => res.render(join(liquid, 'item'), { name: 'absolute' }));
        app.get('/absolute-with-extension', (_req: Any, res: Any) =>
          res.render(join(liquid, 'item.liquid'), { name: 'absolute' }),
        );
        app.get('/callback-only', (_req: Any, res: Any) =>
          res.render('item', (err: Any, html: string) => res.send('callback: ' + (err ? err.message : html))),
        );
        app.get('/string-options', (_req: Any, res: Any) => res.render('item', 'a string'));
        app.get('/null-options', (_req: Any, res: Any) => res.render('item', null));
        app.get('/replaced-locals', (_req: Any, res: Any) => {
          res.locals = { name: 'a new res.locals' };
          res.render('item');
        });
        app.get('/status', (_req: Any, res: Any) => res.status(201).render('item', { name: 'created' }));
        app.get('/type', (_req: Any, res: Any) => res.type('text/plain').render('item', { name: 'text' }));
        app.get('/head', (_req: Any, res: Any) => res.render('item', { name: 'head' }));
        app.get('/number', (_req: Any, res: Any) => res.render(42));
        app.get('/empty', (_req: Any, res: Any) => res.render(''));
        app.get('/cache-option', (_req: Any, res: Any) => res.render('item', { name: 'first', cache: true }));
        app.get('/cache-option-again', (_req: Any, res: Any) => res.render('item', { name: 'second', cache: true }));
        return app;
      },
      [...paths.map((path) => ({ path })), { method: 'HEAD', path: '/head' }],
      undefined,
      normalize,
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 200, 200, 500, 200, 200, 201, 200, 500, 500, 200, 200, 200],
    );
    assert.equal(answers[0]!.body, '<section>section/index</section>\n');
    assert.equal(answers[13]!.body, '<b>second</b>\n');
  });
});
