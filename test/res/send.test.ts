/** res.send(body): body kinds, lengths, ETags, conditional GET, HEAD and bodiless statuses. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { appWith } from './support';

describe('res.send', () => {
  it('sends strings as UTF-8 HTML with the length in bytes', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        res.send('héllo €');
      }),
    );
    const res = await request(app).get('/').expect(200).expect('Content-Type', 'text/html; charset=utf-8');
    assert.equal(res.headers['content-length'], String(Buffer.byteLength('héllo €')));
    assert.equal(res.text, 'héllo €');
  });

  it('keeps a Content-Type already set and sets its charset to utf-8', async () => {
    const app = appWith((a) => {
      a.get('/plain', (_req, res) => {
        res.set('Content-Type', 'text/plain; charset=iso-8859-1').send('x');
      });
      a.get('/params', (_req, res) => {
        res.set('Content-Type', 'text/x-thing; b=2; a="q x"').send('x');
      });
    });
    await request(app).get('/plain').expect('Content-Type', 'text/plain; charset=utf-8');
    await request(app).get('/params').expect('Content-Type', 'text/x-thing; a="q x"; b=2; charset=utf-8');
  });

  it('sends Buffers as application/octet-stream unless typed', async () => {
    const app = appWith((a) => {
      a.get('/', (_req, res) => {
        res.send(Buffer.from([1, 2, 3]));
      });
      a.get('/typed', (_req, res) => {
        res.type('png').send(Buffer.from([1]));
      });
    });
    const res = await request(app)
      .get('/')
      .expect(200)
      .expect('Content-Type', 'application/octet-stream')
      .expect('Content-Length', '3');
    assert.deepEqual([...(res.body as Buffer)], [1, 2, 3]);
    await request(app).get('/typed').expect('Content-Type', 'image/png');
  });

  it('sends objects, arrays and booleans as JSON, null as an empty untyped body', async () => {
    const app = appWith((a) => {
      a.get('/object', (_req, res) => {
        res.send({ a: 1 });
      });
      a.get('/array', (_req, res) => {
        res.send([1, 2]);
      });
      a.get('/bool', (_req, res) => {
        res.send(false);
      });
      a.get('/null', (_req, res) => {
        res.send(null);
      });
      a.get('/none', (_req, res) => {
        res.send();
      });
    });
    await request(app).get('/object').expect('Content-Type', 'application/json; charset=utf-8').expect('{"a":1}');
    await request(app).get('/array').expect('[1,2]');
    await request(app).get('/bool').expect('Content-Type', 'application/json; charset=utf-8').expect('false');
    const nullBody = await request(app).get('/null').expect('Content-Length', '0').expect('');
    assert.equal(nullBody.headers['content-type'], undefined);
    // No body: Node itself ends the response with a zero length.
    const none = await request(app).get('/none').expect(200).expect('Content-Length', '0');
    assert.equal(none.headers['content-type'], undefined);
  });

  it('keeps the deprecated status forms: send(status), send(body, status), send(status, body)', async () => {
    const app = appWith((a) => {
      const send = (res: unknown) => (res as { send: (...args: unknown[]) => void }).send.bind(res);
      a.get('/status', (_req, res) => send(res)(404));
      a.get('/unknown', (_req, res) => send(res)(299));
      a.get('/body-status', (_req, res) => send(res)('made', 201));
      a.get('/status-body', (_req, res) => send(res)(202, { ok: true }));
      a.get('/number-body', (_req, res) => send(res)(200, 5));
    });
    await request(app)
      .get('/status')
      .expect(404)
      .expect('Content-Type', 'text/plain; charset=utf-8')
      .expect('Not Found');
    const unknown = await request(app).get('/unknown').expect(299);
    assert.equal(unknown.text, '');
    await request(app).get('/body-status').expect(201, 'made');
    await request(app).get('/status-body').expect(202, '{"ok":true}');
    await request(app).get('/number-body').expect(200, '5');
  });

  it('adds a weak ETag by default, only with a body and when none is set', async () => {
    const app = appWith((a) => {
      a.get('/', (_req, res) => {
        res.send('hello');
      });
      a.get('/own', (_req, res) => {
        res.set('ETag', '"own"').send('hello');
      });
      a.get('/empty', (_req, res) => {
        res.send();
      });
    });
    await request(app).get('/').expect('ETag', 'W/"5-qvTGHdzF6KLavt4PO0gs2a6pQ00"');
    await request(app).get('/own').expect('ETag', '"own"');
    const empty = await request(app).get('/empty');
    assert.equal(empty.headers.etag, undefined);
  });

  it('follows the etag setting: strong, disabled, a function given the bytes', async () => {
    const seen: unknown[] = [];
    const strong = appWith((a) => {
      a.set('etag', 'strong');
      a.get('/', (_req, res) => {
        res.send('hello');
      });
    });
    const off = appWith((a) => {
      a.set('etag', false);
      a.get('/', (_req, res) => {
        res.send('hello');
      });
    });
    const custom = appWith((a) => {
      a.set('etag', (body: Buffer, encoding?: string) => {
        seen.push(Buffer.isBuffer(body), encoding);
        return '"custom"';
      });
      a.get('/', (_req, res) => {
        res.send('hello');
      });
      a.get('/none', (_req, res) => {
        res.set('X', 'y');
        res.send('');
      });
    });
    await request(strong).get('/').expect('ETag', '"5-qvTGHdzF6KLavt4PO0gs2a6pQ00"');
    const res = await request(off).get('/');
    assert.equal(res.headers.etag, undefined);
    await request(custom).get('/').expect('ETag', '"custom"');
    assert.deepEqual(seen, [true, undefined]);
    assert.throws(() => appWith((a) => a.set('etag', 'sometimes')), /unknown value for etag function/);
  });

  it('answers 304 without entity headers when the request is fresh', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        res.send('hello');
      }),
    );
    const res = await request(app).get('/').set('If-None-Match', 'W/"5-qvTGHdzF6KLavt4PO0gs2a6pQ00"').expect(304);
    assert.equal(res.headers['content-type'], undefined);
    assert.equal(res.headers['content-length'], undefined);
    assert.equal(res.text, '');
    await request(app).get('/').set('If-None-Match', '"other"').expect(200, 'hello');
  });

  it('strips the body and entity headers for 204 and 304, and empties 205', async () => {
    const app = appWith((a) => {
      a.get('/204', (_req, res) => {
        res.status(204).set('Transfer-Encoding', 'chunked').send('gone');
      });
      a.get('/304', (_req, res) => {
        res.status(304).send('gone');
      });
      a.get('/205', (_req, res) => {
        res.status(205).send('gone');
      });
    });
    const noContent = await request(app).get('/204').expect(204);
    assert.equal(noContent.headers['content-type'], undefined);
    assert.equal(noContent.headers['transfer-encoding'], undefined);
    await request(app).get('/304').expect(304);
    const reset = await request(app).get('/205').expect(205).expect('Content-Length', '0');
    assert.equal(reset.text, '');
  });

  it('sends headers but no body for HEAD', async () => {
    const app = appWith((a) =>
      a.get('/', (_req, res) => {
        res.send('hello');
      }),
    );
    const res = await request(app).head('/').expect(200).expect('Content-Length', '5');
    assert.equal(res.text, undefined);
  });

  it('turns an unparseable Content-Type into an error, and keeps serving', async () => {
    const app = appWith((a) => {
      a.get('/bad', (_req, res) => {
        res.set('Content-Type', 'not a type').send('x');
      });
      a.get('/ok', (_req, res) => {
        res.send('ok');
      });
    });
    const res = await request(app).get('/bad').expect(500);
    assert.equal(JSON.parse(res.text).message, 'invalid media type');
    await request(app).get('/ok').expect(200, 'ok');
  });

  it('is chainable and keeps the arity of Express', () => {
    const app = appWith(() => {});
    const proto = Object.getPrototypeOf(app.response) as Record<string, (...args: unknown[]) => unknown>;
    assert.equal(proto.send.length, 1);
    assert.equal(proto.json.length, 1);
    assert.equal(proto.jsonp.length, 1);
    assert.equal(proto.redirect.length, 1);
    assert.equal(proto.status.length, 1);
    assert.equal(proto.set, proto.header);
    assert.equal(proto.type, proto.contentType);
  });
});
