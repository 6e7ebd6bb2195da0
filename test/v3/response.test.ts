/** webapp/v3 response API, differential against express@3.21.2. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import request from 'supertest';
import { assertSameResponses, withClockExpires, type RequestSpec } from '../support/differential';
import { express3, express3Pair as pair } from '../support/legacy-oracles';
import webapp = require('../../src/index');
import webapp3 = require('../../src/v3/index');
import { itWithLiveOracle } from '../support/oracle-recording';

type Any = any;

function routes(table: Record<string, (req: Any, res: Any) => void>) {
  return (framework: Any) => {
    const app = framework();
    app.set('json spaces', 0);
    for (const [path, handler] of Object.entries(table)) app.get(path, handler);
    return app;
  };
}
const get = (path: string, headers?: Record<string, string>): RequestSpec => ({ path, headers });

describe('webapp/v3 response compatibility with express@3', () => {
  it('format: a frozen object of handlers with a default answers as on 3.x, default kept', async () => {
    await assertSameResponses(
      routes({
        '/': (_q, s) =>
          s.format(
            Object.freeze({
              text: () => s.send('text'),
              json: () => s.send({ json: true }),
              default: () => s.send(406, 'none'),
            }),
          ),
      }),
      [get('/', { Accept: 'text/plain' }), get('/', { Accept: 'application/json' }), get('/', { Accept: 'image/png' })],
      pair,
    );
  });

  it('render: frozen, sealed or primitive options (a string, a number) render without res.locals', async () => {
    const views = mkdtempSync(join(tmpdir(), 'webapp-v3-render-options-'));
    writeFileSync(
      join(views, 'page.ejs'),
      'title=<%= typeof title === "undefined" ? "-" : title %> ' +
        'user=<%= typeof user === "undefined" ? "-" : user %>',
    );
    try {
      await assertSameResponses(
        (framework: Any) => {
          const app = framework();
          app.set('views', views);
          app.set('view engine', 'ejs');
          app.use((_req: Any, res: Any, next: Any) => {
            res.locals.user = 'ada';
            next();
          });
          const frozen = Object.freeze({ title: 'About us' });
          const sealed = Object.seal({ title: 'Sealed' });
          app.get('/plain', (_req: Any, res: Any) => res.render('page', { title: 'Plain' }));
          app.get('/frozen', (_req: Any, res: Any) => res.render('page', frozen));
          app.get('/sealed', (_req: Any, res: Any) => res.render('page', sealed));
          app.get('/string', (_req: Any, res: Any) => res.render('page', 'xy'));
          app.get('/number', (_req: Any, res: Any) => res.render('page', 5));
          app.get('/callback', (_req: Any, res: Any) =>
            res.render('page', frozen, (err: Error | null, html: string) => res.send(err ? 'error' : html)),
          );
          return app;
        },
        ['/plain', '/frozen', '/sealed', '/string', '/number', '/callback'].map((path) => get(path)),
        pair,
      );
    } finally {
      rmSync(views, { recursive: true, force: true });
    }
  });

  it('send: status-first, number alone, strings, buffers, objects, null, HEAD, 304', async () => {
    await assertSameResponses(
      routes({
        '/str': (_q, s) => s.send('<p>hi</p>'),
        '/status-body': (_q, s) => s.send(201, 'created'),
        '/body-status': (_q, s) => s.send('late', 202),
        '/num': (_q, s) => s.send(404),
        '/ok': (_q, s) => s.send(200),
        '/buf': (_q, s) => s.send(Buffer.from('bytes')),
        '/obj': (_q, s) => s.send({ a: [1, 2] }),
        '/null': (_q, s) => s.send(null),
        '/typed': (_q, s) => s.type('text').send('plain'),
        // Anything but a string is a TypeError (an array fails in Express 3's MIME lookup).
        '/type-query': (q, s) => {
          try {
            s.type(q.query.format).send('typed');
          } catch (err) {
            s.send(500, (err as Error).name);
          }
        },
        // A String object works as its value (Express 3 calls only string methods on it).
        '/type-object': (_q, s) => s.type(new String('json') as unknown as string).send('{}'),
        '/type-object-full': (_q, s) => s.type(new String('text/plain') as unknown as string).send('plain'),
        '/charset': (_q, s) => {
          s.charset = 'iso-8859-1';
          s.set('Content-Type', 'text/plain');
          s.end('x');
        },
      }),
      [
        get('/str'),
        get('/status-body'),
        get('/body-status'),
        get('/num'),
        get('/ok'),
        get('/buf'),
        get('/obj'),
        get('/null'),
        get('/typed'),
        get('/type-query?format=html'),
        get('/type-query?format[]=html'),
        get('/type-query?format[]=a&format[]=b'),
        get('/type-query?format[a]=1'),
        get('/type-object'),
        get('/type-object-full'),
        get('/charset'),
        { method: 'HEAD', path: '/str' },
        get('/str', { 'If-None-Match': 'W/"9-0"' }),
      ],
      pair,
    );
  });

  it('send through a wrapped res.end: the wrapper gets the body and encoding Express 3 gives it', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.use((_q: Any, s: Any, next: () => void) => {
          const end = s.end;
          s.end = function (...args: unknown[]) {
            const [chunk, encoding] = args;
            const kind = Buffer.isBuffer(chunk) ? 'Buffer' : chunk === null ? 'null' : typeof chunk;
            if (!this.headersSent) this.setHeader('X-End-Called-With', `${args.length} ${kind} ${String(encoding)}`);
            return end.apply(this, args);
          };
          next();
        });
        app.get('/str', (_q: Any, s: Any) => s.send('héllo'));
        app.get('/buf', (_q: Any, s: Any) => s.send(Buffer.from('bytes')));
        app.get('/json', (_q: Any, s: Any) => s.json({ a: 1 }));
        app.get('/null', (_q: Any, s: Any) => s.send(null));
        app.get('/empty', (_q: Any, s: Any) => s.send(204));
        return app;
      },
      [get('/str'), get('/buf'), get('/json'), get('/null'), get('/empty'), { method: 'HEAD', path: '/buf' }],
      pair,
    );
  });

  it('res.charset: kept by a Content-Type naming one, replaced when send sets utf-8, quoted if needed', async () => {
    const charsets = ['ISO-8859-1', 'bogus value', 'x"y;q=1', 'é', ''];
    const flows: Record<string, (s: Any) => void> = {
      html: (s) => s.send('hi'),
      typed: (s) => s.type('text').send('hi'),
      header: (s) => {
        s.set('Content-Type', 'text/plain');
        s.end('x');
      },
      own: (s) => {
        s.set('Content-Type', 'text/plain; charset=latin1');
        s.send('x');
      },
      json: (s) => s.json({ a: 1 }),
      buffer: (s) => s.send(Buffer.from('b')),
      'bad-type': (s) => {
        s.set('Content-Type', 'not a type');
        s.end('unreached');
      },
    };
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.get('/:flow/:charset', (q: Any, s: Any) => {
          s.charset = decodeURIComponent(q.params.charset);
          flows[q.params.flow](s);
        });
        app.get('/:flow/', (q: Any, s: Any) => {
          s.charset = '';
          flows[q.params.flow](s);
        });
        app.use((err: Any, _q: Any, s: Any, _n: Any) => {
          s.statusCode = 500;
          s.end(err.name + ': ' + err.message);
        });
        return app;
      },
      Object.keys(flows).flatMap((flow) =>
        charsets.map((charset) => get('/' + flow + '/' + encodeURIComponent(charset))),
      ),
      pair,
    );
  });

  it("Connect's response patch: 'header' listeners run just before the head; headerSent; Set-Cookie adds", async () => {
    const flows: Record<string, (s: Any) => void> = {
      'bare-end': (s) => {
        s.on('header', function (this: Any) {
          this.setHeader('X-Header', String(s.headersSent) + ' ' + (this === s));
          this.statusCode = 201;
        });
        s.end();
      },
      'write-head': (s) => {
        const returned = s.on('header', () => s.setHeader('X-Header', 'before ' + s.getHeader('X-Given')));
        s.writeHead(202, { 'X-Given': 'given', 'Set-Cookie': 'w=1' });
        s.end(String(returned === s));
      },
      'write-head-reason': (s) => {
        s.on('header', () => {
          s.statusCode = 203;
        });
        s.writeHead(200, 'Fine', { 'X-Given': 'given' });
        s.end();
      },
      write: (s) => {
        s.on('header', () => s.setHeader('X-Header', 'write'));
        s.write('a');
        s.end('b');
      },
      'send-two-listeners': (s) => {
        s.on('header', () => s.setHeader('X-First', '1'));
        s.on('header', () => s.setHeader('X-Second', s.getHeader('X-First') + '2'));
        s.send('hello');
      },
      'once-and-add-listener-stay-plain-events': (s) => {
        s.once('header', () => s.setHeader('X-Once', 'ran'));
        s.addListener('header', () => s.setHeader('X-Add', 'ran'));
        s.end(String(s.listenerCount('header')));
      },
      'other-events': (s) => {
        const returned = s.on('finish', () => undefined);
        s.end(String(returned === s) + ' ' + s.listenerCount('finish'));
      },
      'header-sent': (s) => {
        const before = s.headerSent;
        s.writeHead(200);
        s.end(JSON.stringify([before, s.headerSent]));
      },
      'cookie-strings': (s) => {
        s.setHeader('Set-Cookie', 'a=1');
        s.setHeader('set-cookie', 'b=2');
        s.end();
      },
      'cookie-arrays': (s) => {
        s.setHeader('Set-Cookie', ['a=1', 'b=2']);
        s.setHeader('Set-Cookie', ['b=2', 'c=3']);
        s.setHeader('SET-COOKIE', ['d=4']);
        s.end();
      },
      'cookie-read-modify-write': (s) => {
        s.setHeader('Set-Cookie', 'a=1');
        s.setHeader('Set-Cookie', [...[].concat(s.getHeader('Set-Cookie')), 'z=9']);
        s.end();
      },
      'cookie-helper-then-set': (s) => {
        s.cookie('a', '1');
        s.set('Set-Cookie', ['x=1', 'y=2']);
        s.end();
      },
    };
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.get('/:flow', (q: Any, s: Any) => flows[q.params.flow](s));
        return app;
      },
      Object.keys(flows).map((flow) => get('/' + flow)),
      pair,
    );
  });

  it('json and jsonp with status-first forms and callbacks', async () => {
    await assertSameResponses(
      routes({
        '/json': (_q, s) => s.json({ a: 1 }),
        '/json-status': (_q, s) => s.json(201, { created: true }),
        '/json-num': (_q, s) => s.json(5),
        '/jsonp': (_q, s) => s.jsonp({ a: '\u2028' }),
        '/jsonp-status': (_q, s) => s.jsonp(400, ['x']),
      }),
      [
        get('/json'),
        get('/json-status'),
        get('/json-num'),
        get('/jsonp'),
        get('/jsonp?callback=cb'),
        get('/jsonp?callback=a.b[0]<script>'),
        get('/jsonp-status?callback=f'),
      ],
      pair,
    );
  });

  // A maxAge: 0 cookie's Expires is the clock's now: a recorded Express 3 answer cannot match a later run,
  // and a live one matches only up to the second (withClockExpires).
  itWithLiveOracle(
    'set/get/type/links/attachment/vary/cookies accumulate as Connect 2 did',
    'an Expires taken from the clock',
    async () => {
      await assertSameResponses(
        routes({
          '/headers': (_q, s) => {
            s.set({ 'X-A': 1, 'X-B': ['2', '3'] });
            s.type('json');
            s.links({ next: '/p2' });
            s.links({ last: '/p9' });
            s.vary('Accept').vary(['Origin', 'accept']);
            s.attachment('report.pdf');
            s.cookie('a', '1');
            s.cookie('obj', { x: 1 }, { maxAge: 0, httpOnly: true });
            s.clearCookie('old');
            s.end(String(s.get('X-A')));
          },
          '/unknown-type': (_q, s) => s.type('nosuchext').end(),
        }),
        [get('/headers'), get('/unknown-type')],
        pair,
        withClockExpires,
      );
    },
  );

  it("vary: field lists by 3.21's rules (empty names, names outside the token grammar, its message)", async () => {
    const fields: Record<string, string | string[]> = {
      empty: 'Accept,,Cookie',
      trailing: 'Accept, ',
      latin: 'ü-Lang',
      spaced: 'a b',
      paren: '(x)',
      array: ['Accept', '', 'ü'],
      star: 'Accept, *',
    };
    const table: Record<string, (req: Any, res: Any) => void> = {};
    for (const [name, field] of Object.entries(fields)) {
      table['/' + name] = (_q, s) => {
        try {
          s.vary(field);
        } catch (err) {
          s.set('X-Error', (err as Error).message);
        }
        s.end('vary');
      };
      table['/after-' + name] = (_q, s) => {
        s.set('Vary', 'X-Existing');
        try {
          s.vary(field);
        } catch (err) {
          s.set('X-Error', (err as Error).message);
        }
        s.end('vary');
      };
    }
    await assertSameResponses(
      routes(table),
      Object.keys(table).map((path) => get(path)),
      pair,
    );
    const res = await request(routes(table)(webapp3)).get('/empty');
    assert.equal(res.headers.vary, 'Accept, Cookie');
  });

  it('redirect and location: relative to the mount point, back, status-first, bodies by Accept', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        const blog = framework();
        blog.get('/r', (_q: Any, s: Any) => s.redirect('admin'));
        blog.get('/dot', (_q: Any, s: Any) => s.redirect('./sub'));
        app.use('/blog', blog);
        app.get('/abs', (_q: Any, s: Any) => s.redirect('http://example.com/x'));
        app.get('/status', (_q: Any, s: Any) => s.redirect(301, '/moved'));
        app.get('/back', (_q: Any, s: Any) => s.redirect('back'));
        app.get('/html-safe', (_q: Any, s: Any) => s.redirect('/a?b=c&d=e'));
        return app;
      },
      [
        get('/blog/r'),
        get('/blog/dot'),
        get('/abs'),
        get('/status'),
        get('/back'),
        get('/back', { Referer: '/prev' }),
        get('/html-safe', { Accept: 'text/html' }),
        get('/html-safe', { Accept: 'text/plain' }),
        get('/html-safe', { Accept: 'image/png' }),
        { method: 'HEAD', path: '/status' },
      ],
      pair,
    );
  });

  it('format picks by Accept, falls back to default, or 406', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.get('/f', (_q: Any, s: Any) =>
          s.format({ text: () => s.send('text'), json: () => s.send({ json: true }) }),
        );
        app.get('/d', (_q: Any, s: Any) =>
          s.format({ html: () => s.send('<b>html</b>'), default: () => s.send(406, 'fallback') }),
        );
        app.use((err: Any, _q: Any, s: Any, _n: Any) =>
          s.send(err.status, err.message + ' ' + JSON.stringify(err.types)),
        );
        return app;
      },
      [
        get('/f', { Accept: 'text/plain' }),
        get('/f', { Accept: 'application/json' }),
        get('/f', { Accept: 'image/png' }),
        get('/d', { Accept: 'image/png' }),
        get('/d'),
      ],
      pair,
    );
  });
});

describe('webapp/v3 security fixes over express@3', () => {
  it("Connect's patch stays on the 3.x response: Node's and 4.x responses in one process are untouched", async () => {
    const v3app = webapp3();
    v3app.get('/', (_q: Any, s: Any) => {
      s.on('header', () => s.setHeader('X-Header', 'v3'));
      s.end(String(s.headerSent));
    });
    const v3 = await request(v3app).get('/').expect(200, 'false');
    assert.equal(v3.headers['x-header'], 'v3');

    for (const name of ['headerSent', 'on', 'setHeader', 'appendHeader', 'charset']) {
      assert.equal(Object.prototype.hasOwnProperty.call(http.ServerResponse.prototype, name), false, name);
    }
    const plain = (_q: unknown, s: Any) => {
      s.on('header', () => s.setHeader('X-Header', 'should not run'));
      s.charset = 'latin1';
      s.setHeader('Content-Type', 'text/plain');
      s.end(String(s.headerSent));
    };
    const v4app = webapp();
    v4app.get('/', plain as webapp.RequestHandler);
    for (const listener of [plain, v4app]) {
      const res = await request(http.createServer(listener as http.RequestListener))
        .get('/')
        .expect(200, 'undefined');
      assert.equal(res.headers['x-header'], undefined);
      assert.equal(res.headers['content-type'], 'text/plain');
    }
  });

  it('percent-encodes redirect locations (3.x sent them raw; non-ASCII crashed the response)', async () => {
    const app = webapp3();
    app.get('/r', (_q: Any, s: Any) => s.redirect('/a?b=<c>&d'));
    app.get('/u', (_q: Any, s: Any) => s.redirect('/café'));
    const request = (await import('supertest')).default;
    const res = await request(app).get('/r').set('Accept', 'text/html').expect(302);
    assert.equal(res.headers.location, '/a?b=%3Cc%3E&d');
    assert.equal(res.text, '<p>Found. Redirecting to <a href="/a?b=%3Cc%3E&amp;d">/a?b=%3Cc%3E&amp;d</a></p>');
    const unicode = await request(app).get('/u').expect(302);
    assert.equal(unicode.headers.location, '/caf%C3%A9');
  });
});

describe('webapp/v3 media types: Express 3.21 (mime 1.3.4) tables', () => {
  // Fonts, markdown, Windows binaries and the like have other names in mime 1.3.4 than
  // in Express 4's tables, and what it does not know (mjs, wasm...) is served as unknown.
  const extensions = ['md', 'markdown', 'woff', 'woff2', 'ttf', 'otf', 'wav', 'exe', 'mjs', 'wasm', 'gz', 'html'];

  it("express.mime.lookup answers as express@3's for every extension either table knows", () => {
    const theirs = express3.mime as { lookup(path: string): string; types: Record<string, string> };
    const known = new Set([...Object.keys(theirs.types), ...Object.keys(require('mime-types').types)]);
    const differing = [...known].filter((ext) => webapp3.mime.lookup('f.' + ext) !== theirs.lookup('f.' + ext));
    assert.deepEqual(differing, []);
    assert.ok(known.size > 1000);
  });

  it('res.type and res.format: the same Content-Type as express@3 (a charset for text/* only)', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.get('/type/:ext', (req: Any, res: Any) => {
          res.type(req.params.ext);
          res.end('x');
        });
        app.get('/format', (_req: Any, res: Any) =>
          res.format({
            json: () => res.end('{}'),
            'application/javascript': () => res.end('x'),
            md: () => res.end('#'),
          }),
        );
        return app;
      },
      [
        ...extensions.map((ext) => get('/type/' + ext)),
        get('/format', { Accept: 'application/json' }),
        get('/format', { Accept: 'application/javascript' }),
        get('/format', { Accept: 'text/x-markdown' }),
      ],
      pair,
    );
  });

  itWithLiveOracle(
    'static and res.sendfile: the same Content-Type as express@3',
    'file dates of a new directory',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'webapp-v3-types-'));
      try {
        for (const ext of extensions) writeFileSync(join(dir, 'file.' + ext), 'x');
        await assertSameResponses(
          (framework: Any) => {
            const app = framework();
            app.use('/static', framework.static(dir));
            app.get('/sendfile/:name', (req: Any, res: Any) => res.sendfile(join(dir, req.params.name)));
            return app;
          },
          extensions.flatMap((ext) => [get('/static/file.' + ext), get('/sendfile/file.' + ext)]),
          pair,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
