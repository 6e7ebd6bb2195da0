/** res.status(code): sets statusCode, chains, and warns about non-integer codes as Express 4 does. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NextFunction, Request, Response } from 'express';
import request from 'supertest';
import { appWith } from './support';

describe('res.status', () => {
  it('sets the status and returns the response', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        assert.equal(res.status(201), res);
        res.end('made');
      }),
    );
    await request(app).get('/').expect(201, 'made');
  });

  it('accepts the deprecated string and float forms (Node decides at write time)', async () => {
    const app = appWith((a) => {
      a.get('/string', (_req, res) => {
        res.status('202' as unknown as number).end();
      });
      a.get('/float', (_req, res) => {
        res.status(200.0).end();
      });
    });
    await request(app).get('/string').expect(202);
    await request(app).get('/float').expect(200);
  });

  it('leaves an invalid code to Node, whose error reaches the error handler (as in Express)', async () => {
    const app = appWith((a) => {
      a.get('/bad', (_req, res) => {
        res.status(99).send('x');
      });
      a.get('/ok', (_req, res) => {
        res.status(200).send('ok');
      });
      // send() set Content-Length before Node refused the status, as Express's does.
      a.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
        res.removeHeader('Content-Length');
        res.status(500).end(err.message);
      });
    });
    await request(app).get('/bad').expect(500, 'Invalid status code: 99');
    await request(app).get('/ok').expect(200, 'ok');
  });
});
