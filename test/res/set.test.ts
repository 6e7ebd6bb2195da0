/** res.set(field, value) / res.header and res.set(object). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { appWith } from './support';
import { assertSameResponses } from '../support/differential';

describe('res.set', () => {
  it('sets a header as a string, or several values from an array', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        res
          .set('X-Number', 123 as unknown as string)
          .header('X-List', ['a', 1 as unknown as string])
          .end();
      }),
    );
    const res = await request(app).get('/');
    assert.equal(res.headers['x-number'], '123');
    assert.equal(res.headers['x-list'], 'a, 1');
  });

  it('sets every field of an object, including inherited ones', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        const fields = Object.create({ 'X-Inherited': 'i' }) as Record<string, string>;
        fields['X-Own'] = 'o';
        fields['Content-Type'] = 'text/plain';
        res.set(fields).end();
      }),
    );
    const res = await request(app).get('/').expect('X-Own', 'o').expect('X-Inherited', 'i');
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
  });

  it('adds the charset to Content-Type where the MIME tables give one', async () => {
    const app = appWith((a) =>
      a.get('/:type/:sub', (req, res) => {
        res.set('content-type', req.params.type + '/' + req.params.sub).end();
      }),
    );
    await request(app).get('/text/html').expect('Content-Type', 'text/html; charset=utf-8');
    await request(app).get('/application/json').expect('Content-Type', 'application/json; charset=utf-8');
    await request(app).get('/application/javascript').expect('Content-Type', 'application/javascript; charset=utf-8');
    await request(app).get('/image/png').expect('Content-Type', 'image/png');
  });

  it('leaves a Content-Type that already names a charset', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        res.set('Content-Type', 'text/plain; charset=latin1').end();
      }),
    );
    await request(app).get('/').expect('Content-Type', 'text/plain; charset=latin1');
  });

  it('rejects an array Content-Type with a TypeError and keeps serving', async () => {
    const app = appWith((a) => {
      a.get('/bad', (_req, res) => {
        res.set('Content-Type', ['text/html', 'text/plain']).end();
      });
      a.get('/ok', (_req, res) => {
        res.end('ok');
      });
    });
    const res = await request(app).get('/bad').expect(500);
    assert.equal(JSON.parse(res.text).message, 'Content-Type cannot be set to an Array');
    await request(app).get('/ok').expect(200, 'ok');
  });

  it('lets Node reject header injection', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        res.set('X-Evil', 'a\r\nSet-Cookie: x=1').end();
      }),
    );
    const res = await request(app).get('/').expect(500);
    assert.equal(res.headers['set-cookie'], undefined);
  });

  it('a name that is not a string throws what express@4 throws', async () => {
    await assertSameResponses(
      (framework) => {
        const app = framework();
        app.get('/:kind', (req, res) => {
          const names: Record<string, unknown> = { number: 123, undefined: undefined, object: { a: 1 }, null: null };
          try {
            res.set(names[req.params.kind] as string, 'x');
            res.send('set');
          } catch (err) {
            res.status(500).send(`${(err as Error).name}: ${(err as Error).message}`);
          }
        });
        return app;
      },
      ['/number', '/undefined', '/object', '/null'].map((path) => ({ path })),
    );
  });
});
