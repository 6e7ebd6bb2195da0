/** res.links(links): Link header entries, appended to those already set. */
import { describe, it } from 'node:test';
import request from 'supertest';
import { appWith } from './support';

describe('res.links', () => {
  it('formats each relation and appends on later calls', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        res.links({ next: 'http://api.example.com/users?page=2', last: 'http://api.example.com/users?page=5' });
        res.links({ prev: '/users?page=1' });
        res.end();
      }),
    );
    await request(app)
      .get('/')
      .expect(
        'Link',
        (
          '<http://api.example.com/users?page=2>; rel="next", <http://api.example.com/users?page=5>; rel="last", ' +
          '<http://api.example.com/users?page=1>; rel="prev"'
        ).replace('http://api.example.com/users?page=1', '/users?page=1'),
      );
  });

  it('adds to a Link header set by other code', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        res.set('Link', '<a>; rel="x"').links({ y: 'b' }).end();
      }),
    );
    await request(app).get('/').expect('Link', '<a>; rel="x", <b>; rel="y"');
  });
});
