/**
 * res.send's two halves on their own: setBody decides the entity headers without
 * writing anything, respond writes what was decided (304, 204/205, HEAD).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { setBody } from '../../src/response/body';
import { respond } from '../../src/response/respond';
import type { Response as WebappResponse } from '../../src/response/types';
import { appWith } from './support';

describe('res.send in two parts', () => {
  it('setBody sets type, length and ETag and writes nothing; respond then sends the body', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        const body = setBody(res as unknown as WebappResponse, 'héllo');
        res.set('X-Decided', [String(res.headersSent), res.get('Content-Length'), res.get('Content-Type')].join('|'));
        respond(res as unknown as WebappResponse, body);
      }),
    );
    const res = await request(app).get('/').expect(200);
    assert.equal(res.headers['x-decided'], 'false|6|text/html; charset=utf-8');
    assert.match(res.headers.etag, /^W\/"6-/);
    assert.equal(res.text, 'héllo');
  });

  it('setBody leaves a body-less send without Content-Length; a function body is refused', async () => {
    const app = appWith((a) => {
      a.get('/none', (_req, res) => {
        const body = setBody(res as unknown as WebappResponse, undefined);
        res.set('X-Length', String(res.get('Content-Length')));
        respond(res as unknown as WebappResponse, body);
      });
      a.get('/function', (_req, res) => {
        res.send(() => 1);
      });
    });
    const none = await request(app).get('/none').expect(200);
    assert.equal(none.headers['x-length'], 'undefined');
    const refused = await request(app).get('/function').expect(500);
    assert.equal(refused.body.name, 'TypeError');
    await request(app).get('/none').expect(200);
  });

  it('respond answers 304 to a fresh request, with no entity headers and no body', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        res.set('ETag', '"v1"');
        respond(res as unknown as WebappResponse, setBody(res as unknown as WebappResponse, 'body'));
      }),
    );
    const res = await request(app).get('/').set('If-None-Match', '"v1"').expect(304);
    assert.equal(res.headers['content-type'], undefined);
    assert.equal(res.headers['content-length'], undefined);
    assert.equal(res.text, '');
  });

  it('respond sends 205 with an explicit zero length and HEAD without a body', async () => {
    const app = appWith((a) => {
      a.get('/reset', (_req, res) => {
        res.status(205);
        respond(res as unknown as WebappResponse, setBody(res as unknown as WebappResponse, 'ignored'));
      });
      a.get('/head', (_req, res) => {
        respond(res as unknown as WebappResponse, setBody(res as unknown as WebappResponse, 'twelve bytes'));
      });
    });
    const reset = await request(app).get('/reset').expect(205);
    assert.equal(reset.headers['content-length'], '0');
    assert.equal(reset.text, '');
    const head = await request(app).head('/head').expect(200);
    assert.equal(head.headers['content-length'], '12');
  });
});
