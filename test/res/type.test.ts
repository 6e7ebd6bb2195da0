/** res.type(type) / res.contentType: a media type as is, or an extension looked up as Express 4 does. */
import { describe, it } from 'node:test';
import request from 'supertest';
import { appWith } from './support';

describe('res.type', () => {
  const app = appWith((a) => {
    a.get('/ext/:ext', (req, res) => {
      res.type(req.params.ext).end();
    });
    a.get('/full', (_req, res) => {
      res.contentType('application/vnd.thing+xml').end();
    });
    a.get('/empty', (_req, res) => {
      res.type('').end();
    });
  });

  it('looks extensions up, with or without the dot, adding the charset', async () => {
    await request(app).get('/ext/html').expect('Content-Type', 'text/html; charset=utf-8');
    await request(app).get('/ext/.json').expect('Content-Type', 'application/json; charset=utf-8');
    await request(app).get('/ext/js').expect('Content-Type', 'application/javascript; charset=utf-8');
    await request(app).get('/ext/png').expect('Content-Type', 'image/png');
    await request(app).get('/ext/ico').expect('Content-Type', 'image/x-icon');
    await request(app).get('/ext/file.CSS').expect('Content-Type', 'text/css; charset=utf-8');
  });

  it('falls back to application/octet-stream for unknown extensions', async () => {
    await request(app).get('/ext/unknownthing').expect('Content-Type', 'application/octet-stream');
    await request(app).get('/empty').expect('Content-Type', 'application/octet-stream');
  });

  it('uses a value containing / as is', async () => {
    await request(app).get('/full').expect('Content-Type', 'application/vnd.thing+xml');
  });
});
