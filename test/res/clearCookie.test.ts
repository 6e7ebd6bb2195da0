/** res.clearCookie(name, [options]): an empty cookie expired at the epoch, with the options it was set with. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { appWith } from './support';

describe('res.clearCookie', () => {
  const app = appWith((a) => {
    a.get('/', (_req, res) => {
      res.clearCookie('sid').end();
    });
    a.get('/scoped', (_req, res) => {
      res.clearCookie('sid', { path: '/admin', domain: 'example.com', secure: true }).end();
    });
    a.get('/max-age', (_req, res) => {
      res.clearCookie('sid', { maxAge: 1000 }).end();
    });
    a.get('/expires', (_req, res) => {
      res.clearCookie('sid', { expires: new Date(Date.UTC(2031, 0, 1)) }).end();
    });
  });

  it('expires the cookie at the epoch on path /', async () => {
    const res = await request(app).get('/');
    assert.deepEqual(res.headers['set-cookie'], ['sid=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT']);
  });

  it('keeps the path and domain it is given', async () => {
    const res = await request(app).get('/scoped');
    assert.deepEqual(res.headers['set-cookie'], [
      'sid=; Domain=example.com; Path=/admin; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Secure',
    ]);
  });

  it('still applies maxAge and expires, deprecated, as Express 4.22 does', async () => {
    const maxAge = await request(app).get('/max-age');
    assert.match((maxAge.headers['set-cookie'] as unknown as string[])[0], /^sid=; Max-Age=1; Path=\/; Expires=/);
    const expires = await request(app).get('/expires');
    assert.deepEqual(expires.headers['set-cookie'], ['sid=; Path=/; Expires=Wed, 01 Jan 2031 00:00:00 GMT']);
  });
});
