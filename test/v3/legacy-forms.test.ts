/**
 * 3.x response and request members no other test reaches, differential against
 * express@3.21.2: res.render, res.download, res.status, the deprecated
 * (body, status) argument orders, 204/304 from res.send, the etag setting's
 * values, cookies (numbers, signed, cleared with options), and the request
 * getters without the headers they read.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import https from 'node:https';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { captureStderr } from '../support/capture-stderr';
import { assertSameResponses, type RequestSpec } from '../support/differential';
import { express3, express3Pair as pair } from '../support/legacy-oracles';
import { itWithLiveOracle, oracleRunValue } from '../support/oracle-recording';
import { close, listen } from '../support/raw-http';
import { selfSignedCert } from '../support/self-signed-cert';
import webapp3 = require('../../src/v3/index');

type Any = any;

const views = join(__dirname, '..', 'views', 'fixtures', 'a');
const scrub = (text: string) => text.split(views).join('<views>');

let files: string;
before(() => {
  // Its path shows in an error message the oracle's answer was recorded with.
  files = oracleRunValue('download dir', mkdtempSync(join(tmpdir(), 'webapp-v3-forms-')));
  writeFileSync(join(files, 'notes.txt'), 'some notes\n');
  // A fixed modification time: Last-Modified and the ETag are then the recorded ones on every run.
  const fixed = new Date('2020-01-02T03:04:05Z');
  utimesSync(join(files, 'notes.txt'), fixed, fixed);
});
after(() => rmSync(files, { recursive: true, force: true }));

const get = (path: string, headers?: Record<string, string>): RequestSpec => ({ path, headers });

/** An app whose GET routes are the table's, with an error handler that shows the error's message and status. */
function routes(table: Record<string, (req: Any, res: Any, next: Any) => void>, configure?: (app: Any) => void) {
  return (framework: Any) => {
    const app = framework();
    app.set('json spaces', 0);
    configure?.(app);
    for (const [path, handler] of Object.entries(table)) app.get(path, handler);
    app.use((err: Any, _req: Any, res: Any, _next: Any) => {
      res.statusCode = 500;
      res.end(`error: ${scrub(String(err.message))} (status ${err.status})`);
    });
    return app;
  };
}

/** Runs `fn` with deprecation notices kept off the test output. */
function quietly<T>(fn: () => T): T {
  let result: T;
  captureStderr(() => (result = fn()));
  return result!;
}

describe('webapp/v3 response and request forms compatibility with express@3', () => {
  it('res.render: options, a callback, res.locals and app.locals, a missing view', async () => {
    await assertSameResponses(
      routes(
        {
          '/render': (_q, s) => s.render('hello.tpl', { c: 'render option' }),
          '/callback': (_q, s) => s.render('hello.tpl', (err: Error | null, html: string) => s.send('cb ' + html)),
          '/missing': (_q, s) => s.render('missing.tpl'),
        },
        (app) => {
          app.set('views', views);
          app.locals.a = 'app local';
          app.engine('tpl', (path: string, options: Any, callback: Any) =>
            callback(null, JSON.stringify({ path: scrub(path), a: options.a, b: options.b, c: options.c })),
          );
          app.use((_req: Any, res: Any, next: Any) => {
            res.locals.b = 'res local';
            next();
          });
        },
      ),
      ['/render', '/callback', '/missing'].map((path) => get(path)),
      pair,
    );
  });

  it('res.download: the file as an attachment, a filename, a callback, a missing file', async () => {
    // webapp's callback outcomes only: a replayed oracle runs no callback.
    const outcomes: string[] = [];
    await assertSameResponses(
      (framework: Any) =>
        routes({
          '/file': (_q, s) => s.download(join(files, 'notes.txt')),
          '/named': (_q, s) => s.download(join(files, 'notes.txt'), 'report.txt'),
          '/callback': (_q, s) =>
            s.download(join(files, 'notes.txt'), (err?: Error) => {
              if (framework === webapp3) outcomes.push(err ? 'error' : 'sent');
            }),
          '/missing': (_q, s) => s.download(join(files, 'nope.txt')),
          // 3.x's sendfile has no headers option: nothing of it is sent.
          '/sendfile-headers': (_q, s) => s.sendfile(join(files, 'notes.txt'), { headers: { 'X-Extra': 'no' } }),
          '/missing-callback': (_q, s) =>
            s.download(join(files, 'nope.txt'), 'x.txt', (err: Any) => {
              s.set('X-Disposition', String(s.get('Content-Disposition')));
              s.send(404, 'callback: ' + err.code);
            }),
        })(framework),
      ['/file', '/named', '/callback', '/missing', '/missing-callback', '/sendfile-headers'].map((path) => get(path)),
      pair,
    );
    assert.deepEqual(outcomes, ['sent']);
  });

  it('res.status, send(true), 204 and 304 from send, an unknown type, jsonp with two callbacks', async () => {
    await assertSameResponses(
      routes({
        '/status': (_q, s) => s.status(201).send('made'),
        '/boolean': (_q, s) => s.send(true),
        '/no-content': (_q, s) => s.send(204, 'dropped'),
        '/tagged': (_q, s) => {
          s.set('ETag', '"v1"');
          s.send('cached body');
        },
        '/unknown-type': (_q, s) => s.type('no-such-extension').send('x'),
        '/full-type': (_q, s) => s.type('text/x-own').send('x'),
        '/jsonp': (_q, s) => s.jsonp({ a: 1 }),
        '/vary-nothing': (_q, s) => {
          s.vary([]);
          s.vary('');
          s.end('no vary');
        },
      }),
      [
        get('/status'),
        get('/boolean'),
        get('/no-content'),
        get('/tagged', { 'If-None-Match': '"v1"' }),
        get('/tagged', { 'If-None-Match': '"v2"' }),
        get('/unknown-type'),
        get('/full-type'),
        get('/jsonp?callback=first&callback=second'),
        get('/vary-nothing'),
      ],
      pair,
    );
  });

  it('the deprecated (body, status) orders of json, jsonp and redirect', async () => {
    await assertSameResponses(
      routes({
        '/json': (_q, s) => quietly(() => s.json({ a: 1 }, 201)),
        '/json-number': (_q, s) => quietly(() => s.json(5, 202)),
        '/jsonp': (_q, s) => quietly(() => s.jsonp({ a: 1 }, 203)),
        '/redirect': (_q, s) => quietly(() => s.redirect('/there', 301)),
      }),
      ['/json', '/json-number', '/jsonp?callback=cb', '/redirect'].map((path) => get(path)),
      pair,
    );
  });

  it('cookies: a number, signed with the cookieParser secret or without one, cleared with options', async () => {
    const cookieRoutes = {
      '/number': (_q: Any, s: Any) => s.cookie('n', 42).end('ok'),
      '/signed': (_q: Any, s: Any) => s.cookie('s', 'value', { signed: true }).end('ok'),
      '/clear': (_q: Any, s: Any) => s.clearCookie('c', { path: '/admin', httpOnly: true }).end('ok'),
    };
    const paths = ['/number', '/signed', '/clear'].map((path) => get(path));
    // 3.x signs with the secret cookieParser puts on the request.
    await assertSameResponses(
      (framework: Any) => routes(cookieRoutes, (app) => app.use(framework.cookieParser('k')))(framework),
      paths,
      pair,
    );
    await assertSameResponses(routes(cookieRoutes), paths, pair);
  });

  it("the etag setting: true, 'weak', 'strong', false or a function; anything else throws", async () => {
    const settings: unknown[] = [true, 'weak', 'strong', false, (body: string) => `"custom-${body.length}"`];
    for (const setting of settings) {
      await assertSameResponses(
        routes({ '/': (_q, s) => s.send('tagged body') }, (app) => app.set('etag', setting)),
        [get('/'), { method: 'HEAD', path: '/' }],
        pair,
      );
    }
    for (const framework of [express3, webapp3] as Any[]) {
      assert.throws(() => framework().set('etag', 'bogus'), {
        name: 'TypeError',
        message: 'unknown value for etag function: bogus',
      });
    }
  });

  it('request getters without the headers they read, with and without a trusted proxy; accept lists', async () => {
    for (const trusted of [true, false]) {
      await assertSameResponses(
        (framework: Any) => {
          const app = framework();
          app.set('trust proxy', trusted);
          app.use((req: Any, res: Any) => {
            res.setHeader('Content-Type', 'application/json');
            res.end(
              JSON.stringify({
                stale: req.stale,
                host: req.host ?? 'undefined',
                subdomains: req.subdomains,
                protocol: req.protocol,
                secure: req.secure,
                param: req.param('missing', 'default'),
                query: req.param('q') ?? 'undefined',
                languages: req.acceptedLanguages,
                isUnknown: req.is('no-such-extension'),
              }),
            );
          });
          return app;
        },
        [
          get('/', { Host: '' }),
          get('/?q=1', {
            Host: 'a.b.example.com',
            'X-Forwarded-Proto': 'https, http',
            'Accept-Language': 'en ,  fr;q=0.5 , de;q=0.5  ',
          }),
          get('/', {
            Host: '127.0.0.1',
            'X-Forwarded-Host': 'c.d.example.org',
            'Content-Type': 'application/octet-stream',
          }),
        ],
        pair,
      );
    }
  });

  itWithLiveOracle(
    'over TLS: req.protocol is https and req.secure true, unless a trusted proxy says otherwise',
    'an https server (recordings are of plain HTTP)',
    async () => {
      const tls = selfSignedCert();
      const answers = async (framework: Any) => {
        const app = framework();
        app.set('trust proxy', 'loopback');
        app.use((req: Any, res: Any) => res.end(JSON.stringify({ protocol: req.protocol, secure: req.secure })));
        const server = https.createServer(tls, app);
        const port = await listen(server as unknown as http.Server);
        try {
          const ask = (headers: Record<string, string>) =>
            new Promise<string>((resolve, reject) => {
              const req = https.get(
                { host: '127.0.0.1', port, rejectUnauthorized: false, headers, agent: false },
                (res) => {
                  let body = '';
                  res.on('data', (chunk) => (body += chunk));
                  res.on('end', () => resolve(body));
                },
              );
              req.on('error', reject);
            });
          return [await ask({}), await ask({ 'X-Forwarded-Proto': 'http' })];
        } finally {
          await close(server as unknown as http.Server);
        }
      };
      const subject = await answers(webapp3);
      assert.deepEqual(subject, await answers(express3));
      assert.deepEqual(subject, ['{"protocol":"https","secure":true}', '{"protocol":"http","secure":false}']);
    },
  );
});
