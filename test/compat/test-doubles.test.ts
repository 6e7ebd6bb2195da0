/**
 * Apps called with objects that are not Node's messages: node-mocks-http's request
 * and response, as controller unit tests build them. Express gives them its
 * prototypes (Node's methods included) and answers; webapp must do the same, where
 * it once took them for HTTP/2 objects (upper-cased `post`, no `res.setTimeout`) and
 * listened to their `{}` socket (`res.sendFile` failed with a TypeError).
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { describe, it } from 'node:test';
import httpMocks = require('node-mocks-http');
import { assertSameResponses, frameworks, type Framework } from '../support/differential';

type Any = any;

/** A file sure to be there: this test's own. */
const fileName = path.basename(__filename);

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

/** Runs one mock request through `app` and resolves with what the mock response received. */
function callWithMocks(app: Any, options: httpMocks.RequestOptions): Promise<Answer> {
  const { req, res } = httpMocks.createMocks(options, { eventEmitter: EventEmitter });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the mock response never ended')), 2000);
    res.on('end', () => {
      clearTimeout(timer);
      const headers = { ...res._getHeaders() };
      delete headers['x-powered-by'];
      // The ETag and Last-Modified of a file depend on its times: present on both is what counts.
      for (const name of ['etag', 'last-modified']) if (name in headers) headers[name] = 'present';
      resolve({ status: res.statusCode, headers, body: String(res._getData()) });
    });
    app(req, res);
  });
}

async function sameOnBoth(build: (framework: Framework) => Any, options: httpMocks.RequestOptions): Promise<Answer> {
  const answers: Answer[] = [];
  for (const [, framework] of frameworks) answers.push(await callWithMocks(build(framework), options));
  assert.deepEqual(answers[1], answers[0]);
  return answers[1];
}

function errorsAsText(app: Any): void {
  app.use((err: Error, _req: Any, res: Any, _next: unknown) => {
    res.statusCode = 500;
    res.end(`error: ${err.message}`);
  });
}

describe('apps called with node-mocks-http objects, as express@4', () => {
  it('give them the app prototypes, Node methods below, and keep the method as given', async () => {
    const answer = await sameOnBoth(
      (framework) => {
        const app = framework();
        app.post('/', (req: Any, res: Any) => {
          res.setTimeout(1000);
          res.json({
            method: req.method,
            request: Object.prototype.isPrototypeOf.call(app.request, req),
            response: Object.prototype.isPrototypeOf.call(app.response, res),
            cork: typeof res.cork,
            flushHeaders: typeof res.flushHeaders,
            query: req.query,
          });
        });
        errorsAsText(app);
        return app;
      },
      { method: 'post' as Any, url: '/?page=2' },
    );
    assert.deepEqual(JSON.parse(answer.body), {
      method: 'post',
      request: true,
      response: true,
      cork: 'function',
      flushHeaders: 'function',
      query: { page: '2' },
    });
  });

  it('res.sendFile and res.download answer with the file and its headers', async () => {
    for (const route of ['/file', '/download']) {
      const answer = await sameOnBoth(
        (framework) => {
          const app = framework();
          app.get('/file', (_req: Any, res: Any) => res.sendFile(fileName, { root: __dirname }));
          app.get('/download', (_req: Any, res: Any) => res.download(__filename, 'doubles.ts'));
          errorsAsText(app);
          return app;
        },
        { method: 'GET', url: route },
      );
      assert.equal(answer.status, 200, route);
      assert.equal(answer.headers.etag, 'present', route);
    }
  });

  it('routers, params, redirects and errors answer alike', async () => {
    for (const url of ['/users/7', '/old', '/boom', '/missing']) {
      await sameOnBoth(
        (framework) => {
          const app = framework();
          const users = framework.Router();
          users.get('/:id', (req: Any, res: Any) => res.status(201).send(`user ${req.params.id} at ${req.baseUrl}`));
          app.use('/users', users);
          app.get('/old', (_req: Any, res: Any) => res.redirect(301, '/new'));
          app.get('/boom', () => {
            throw new Error('boom');
          });
          app.use((_req: Any, res: Any) => res.status(404).json({ missing: true }));
          errorsAsText(app);
          return app;
        },
        { method: 'GET', url },
      );
    }
  });

  it('a request carrying its connection as `connection` alone: protocol, secure, hostname and ip read it', async () => {
    // An adapter or an older test double builds the request as a plain object, with the
    // TLS and peer facts on `req.connection` (Node's requests have them on both names).
    const answers = await assertSameResponses(
      (framework) => {
        const app: Any = framework();
        app.set('trust proxy', 'loopback');
        app.get('/', (req: Any, res: Any) =>
          res.json({ protocol: req.protocol, secure: req.secure, hostname: req.hostname, ip: req.ip }),
        );
        return (incoming, res) => {
          const { method, url, headers } = incoming;
          app({ method, url, headers, connection: { encrypted: true, remoteAddress: '127.0.0.1' } }, res);
        };
      },
      [{ path: '/' }, { path: '/', headers: { 'X-Forwarded-Host': 'shop.example', 'X-Forwarded-Proto': 'http' } }],
    );
    assert.deepEqual(JSON.parse(answers[0]!.body), {
      protocol: 'https',
      secure: true,
      hostname: '127.0.0.1',
      ip: '127.0.0.1',
    });
    assert.deepEqual(JSON.parse(answers[1]!.body), {
      protocol: 'http',
      secure: false,
      hostname: 'shop.example',
      ip: '127.0.0.1',
    });
  });
});
