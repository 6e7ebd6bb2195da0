/** res.attachment([filename]): Content-Disposition, and the Content-Type of the file's extension. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { appWith } from './support';

describe('res.attachment', () => {
  const app = appWith((a) => {
    a.get('/', (_req, res) => {
      res.attachment().end();
    });
    a.get('/name', (req, res) => {
      res.attachment(String(req.query.f)).end();
    });
  });

  it('sets attachment without a name', async () => {
    const res = await request(app).get('/').expect('Content-Disposition', 'attachment');
    assert.equal(res.headers['content-type'], undefined);
  });

  it('names the file (base name only) and types it by extension', async () => {
    await request(app)
      .get('/name?f=/tmp/report.pdf')
      .expect('Content-Disposition', 'attachment; filename="report.pdf"')
      .expect('Content-Type', 'application/pdf');
    await request(app).get('/name?f=notes.txt').expect('Content-Type', 'text/plain; charset=utf-8');
  });

  it('adds the RFC 5987 form for names outside ISO-8859-1', async () => {
    await request(app)
      .get('/name?f=' + encodeURIComponent('€ rates.csv'))
      .expect('Content-Disposition', 'attachment; filename="? rates.csv"; filename*=UTF-8\'\'%E2%82%AC%20rates.csv');
  });

  it('escapes quotes in the name', async () => {
    await request(app)
      .get('/name?f=' + encodeURIComponent('a"b.html'))
      .expect('Content-Disposition', 'attachment; filename="a\\"b.html"');
  });
});
