/** res.format(handlers): negotiation by Accept, Content-Type of the chosen handler, 406 otherwise. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { formatKeyType } from '../../src/response/format';
import { appWith } from './support';
import { assertSameResponses, type Framework } from '../support/differential';

describe('formatKeyType', () => {
  it('looks extensions up and drops parameters', () => {
    assert.equal(formatKeyType('json'), 'application/json');
    assert.equal(formatKeyType('text/html; q=0.5'), 'text/html');
    assert.equal(formatKeyType('unknownext'), 'application/octet-stream');
  });
});

describe('res.format', () => {
  const app = appWith((a) => {
    a.get('/', (_req, res) => {
      res.format({
        text: () => {
          res.send('text');
        },
        'text/html': () => {
          res.send('<p>html</p>');
        },
        json: () => {
          res.send({ json: true });
        },
      });
    });
    a.get('/default', (_req, res) => {
      res.format({
        'image/png': () => {
          res.send('png');
        },
        default: () => {
          res.status(200).send('fallback');
        },
      });
    });
    a.get('/args', (req, res) => {
      res.format({
        text: (r: unknown, s: unknown, n: unknown) => {
          res.json([r === req, s === res, n === req.next]);
        },
      });
    });
  });

  it('runs the first handler without Accept, and sets Vary: Accept', async () => {
    await request(app)
      .get('/')
      .expect('Content-Type', 'text/plain; charset=utf-8')
      .expect('Vary', 'Accept')
      .expect('text');
  });

  it('follows the quality order of Accept', async () => {
    await request(app)
      .get('/')
      .set('Accept', 'text/html')
      .expect('Content-Type', 'text/html; charset=utf-8')
      .expect('<p>html</p>');
    await request(app)
      .get('/')
      .set('Accept', 'text/plain;q=0.1, application/json')
      .expect('Content-Type', 'application/json; charset=utf-8');
    await request(app).get('/').set('Accept', 'text/*;q=0.5, */*;q=0.1').expect('text');
  });

  it('falls back to default', async () => {
    await request(app).get('/default').set('Accept', 'text/html').expect(200, 'fallback');
  });

  it('passes a 406 error listing the offered types to next, and keeps serving', async () => {
    const res = await request(app).get('/').set('Accept', 'image/webp').expect(406).expect('Vary', 'Accept');
    assert.deepEqual(JSON.parse(res.text), {
      name: 'NotAcceptableError',
      message: 'Not Acceptable',
      status: 406,
      types: ['text/plain', 'text/html', 'application/json'],
    });
    await request(app).get('/').expect(200);
  });

  it('gives handlers (req, res, req.next)', async () => {
    await request(app).get('/args').expect('[true,true,true]');
  });

  it('a handler that is not a function throws the TypeError Express throws', async () => {
    await assertSameResponses(
      (framework: Framework) => {
        const app = framework();
        app.get('/key', (_req, res) => res.format({ json: 'not a handler' } as never));
        app.get('/default', (_req, res) => res.format({ png: () => res.send('png'), default: 'x' } as never));
        app.use(
          (err: Error, _req: unknown, res: { status(code: number): { send(body: string): void } }, _next: unknown) =>
            res.status(500).send(`${err.name}: ${err.message}`),
        );
        return app;
      },
      [
        { path: '/key', headers: { accept: 'application/json' } },
        { path: '/default', headers: { accept: 'text/html' } },
      ],
    );
  });
});
