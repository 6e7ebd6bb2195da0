/** webapp/v3 exposes the middleware Express 3 bundled, as Express 3 did (express.cookieParser() ...). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import webapp3 = require('../../src/v3/index');
import * as bundle from '../../src/middleware';

type Any = any;

describe('webapp/v3 middleware members', () => {
  it('has every middleware of webapp/middleware as a member', () => {
    for (const name of Object.keys(bundle)) {
      if (name === 'default') continue;
      assert.equal((webapp3 as Any)[name], (bundle as Any)[name], name);
    }
    for (const name of [
      'basicAuth',
      'cookieParser',
      'logger',
      'methodOverride',
      'static',
      'favicon',
      'compress',
      'cookieSession',
    ]) {
      assert.equal(typeof (webapp3 as Any)[name], 'function', name);
    }
  });

  it('runs a 3.x app built from the bundle: cookieParser + basicAuth + methodOverride', async () => {
    const app: Any = webapp3();
    app.use(webapp3.cookieParser('s3cret'));
    app.use(webapp3.methodOverride());
    app.use('/admin', webapp3.basicAuth('tobi', 'ferret'));
    app.get('/cookies', (req: Any, res: Any) => res.json({ cookies: req.cookies }));
    app.get('/admin', (req: Any, res: Any) => res.send('hi ' + req.user));
    await request(app)
      .get('/cookies')
      .set('Cookie', 'a=1; j=j%3A%7B%22x%22%3A2%7D')
      .expect(200, { cookies: { a: '1', j: { x: 2 } } });
    await request(app).get('/admin').expect(401).expect('WWW-Authenticate', 'Basic realm="Authorization Required"');
    await request(app).get('/admin').auth('tobi', 'ferret').expect(200, 'hi tobi');
    await request(app).get('/admin').set('Authorization', 'Basic').expect(400);
  });
});
