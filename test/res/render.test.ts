/** res.render(view, [locals], [callback]): delegates to req.app.render with res.locals, sends or calls back. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Express } from 'express';
import request from 'supertest';
import { appWith } from './support';

type Render = (name: string, options: Record<string, unknown>, cb: (err: Error | null, html?: string) => void) => void;

/** An app whose renderer echoes the view name and the locals it received (or fails for `broken`). */
function renderingApp(
  define: (app: Express, calls: Array<{ name: string; options: Record<string, unknown> }>) => void,
) {
  const calls: Array<{ name: string; options: Record<string, unknown> }> = [];
  const app = appWith((a) => {
    (a as unknown as { render: Render }).render = (name, options, cb) => {
      calls.push({ name, options });
      if (name === 'broken') return cb(new Error('render failed'));
      const locals = options._locals as Record<string, unknown>;
      cb(null, `<p>${name}:${String(options.title)}:${String(locals.user)}</p>`);
    };
    a.use((_req, res, next) => {
      res.locals.user = 'tobi';
      next();
    });
    define(a, calls);
  });
  return { app, calls };
}

describe('res.render', () => {
  it('sends the rendered HTML, giving res.locals as _locals', async () => {
    const { app, calls } = renderingApp((a) =>
      a.get('/', (_req, res) => {
        res.render('index', { title: 'Hi' });
      }),
    );
    await request(app)
      .get('/')
      .expect(200)
      .expect('Content-Type', 'text/html; charset=utf-8')
      .expect('<p>index:Hi:tobi</p>');
    assert.equal(calls.length, 1);
    assert.equal(calls[0].options.title, 'Hi');
  });

  it('works without locals and with the callback as second argument', async () => {
    const { app } = renderingApp((a) => {
      a.get('/plain', (_req, res) => {
        res.render('plain');
      });
      a.get('/cb', (_req, res) => {
        res.render('cb', (err: Error | null, html?: string) => {
          res.send('wrapped ' + String(err) + ' ' + html);
        });
      });
    });
    await request(app).get('/plain').expect('<p>plain:undefined:tobi</p>');
    await request(app).get('/cb').expect('wrapped null <p>cb:undefined:tobi</p>');
  });

  it('passes errors to next without a callback, and to the callback with one', async () => {
    const { app } = renderingApp((a) => {
      a.get('/next', (_req, res) => {
        res.render('broken');
      });
      a.get('/cb', (_req, res) => {
        res.render('broken', {}, (err: Error | null) => {
          res.status(418).send(err?.message);
        });
      });
    });
    const res = await request(app).get('/next').expect(500);
    assert.equal(JSON.parse(res.text).message, 'render failed');
    await request(app).get('/cb').expect(418, 'render failed');
  });

  it('renders with the app the request is in (req.app), for mounted apps too', async () => {
    const { app: sub } = renderingApp((a) =>
      a.get('/', (_req, res) => {
        res.render('sub', { title: 'S' });
      }),
    );
    const parent = appWith((a) => a.use('/sub', sub));
    await request(parent).get('/sub').expect('<p>sub:S:tobi</p>');
  });
});
