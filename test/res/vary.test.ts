/** res.vary(field): adds to Vary once, case-insensitively (arrays work, though @types/express types a string). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { appWith } from './support';

describe('res.vary', () => {
  it('appends fields once, keeping the first spelling', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        res
          .vary('Accept')
          .vary('accept')
          .vary(['Origin', 'User-Agent'] as unknown as string)
          .vary('origin, Accept-Encoding')
          .end();
      }),
    );
    await request(app).get('/').expect('Vary', 'Accept, Origin, User-Agent, Accept-Encoding');
  });

  it('collapses to * and ignores an empty field (deprecated) without failing', async () => {
    const app = appWith((a) => {
      a.get('/star', (_req, res) => {
        res.vary('Accept').vary('*').end();
      });
      a.get('/empty', (_req, res) => {
        res
          .vary('' as string)
          .vary([] as unknown as string)
          .end();
      });
    });
    await request(app).get('/star').expect('Vary', '*');
    const res = await request(app).get('/empty').expect(200);
    assert.equal(res.headers.vary, undefined);
  });

  it('rejects an invalid header name with an error', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        res.vary('bad name').end();
      }),
    );
    const res = await request(app).get('/').expect(500);
    assert.match(JSON.parse(res.text).message, /invalid header name/);
  });
});
