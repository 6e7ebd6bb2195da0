/**
 * The response API on express@4 and on webapp: the same apps, the same requests,
 * the same status, headers and body (Date and X-Powered-By aside).
 */
import { readFile } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { NextFunction, Request, Response } from 'express';
import { assertSameResponses, type Framework, type RequestSpec } from '../support/differential';

/** Errors are compared in production mode: the page shows the status phrase, not a stack. */
function production(framework: Framework) {
  const app = framework();
  app.set('env', 'production');
  return app;
}

const get = (path: string, headers?: Record<string, string | string[]>): RequestSpec => ({ path, headers });
const head = (path: string, headers?: Record<string, string>): RequestSpec => ({ method: 'HEAD', path, headers });

/** Errors become a JSON description, so what was passed to `next` is compared too. */
function describeErrors(
  err: { status?: number; message: string; types?: unknown },
  _req: Request,
  res: Response,
  _next: NextFunction,
) {
  res.status(err.status ?? 500).json({ message: err.message, status: err.status, types: err.types });
}

describe('response compatibility with express@4', () => {
  it('send: every body kind, charsets, lengths, ETags, HEAD, 204/205/304', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.get('/string', (_req, res) => {
          res.send('héllo <b>');
        });
        app.get('/empty', (_req, res) => {
          res.send('');
        });
        app.get('/long', (_req, res) => {
          res.send('x'.repeat(5000));
        });
        // Around the length where webapp stops writing strings as strings (send.ts), multibyte included.
        app.get('/below-string-limit', (_req, res) => {
          res.send('é☃'.repeat(8191) + 'x');
        });
        app.get('/at-string-limit', (_req, res) => {
          res.send('é☃'.repeat(8192));
        });
        app.get('/astral', (_req, res) => {
          res.send('😀 ünïcode');
        });
        app.get('/buffer', (_req, res) => {
          res.send(Buffer.from('bytes'));
        });
        app.get('/buffer-typed', (_req, res) => {
          res.type('png').send(Buffer.from('png'));
        });
        app.get('/object', (_req, res) => {
          res.send({ a: 1, b: [true, null] });
        });
        app.get('/array', (_req, res) => {
          res.send([1, 'two']);
        });
        app.get('/null', (_req, res) => {
          res.send(null);
        });
        app.get('/undefined', (_req, res) => {
          res.send();
        });
        app.get('/true', (_req, res) => {
          res.send(true);
        });
        app.get('/typed', (_req, res) => {
          res.set('Content-Type', 'text/plain; foo=bar').send('plain');
        });
        app.get('/typed-charset', (_req, res) => {
          res.set('Content-Type', 'text/plain; charset=latin1').send('plain');
        });
        app.get('/xml', (_req, res) => {
          res.type('xml').send('<a/>');
        });
        app.get('/status-number', (_req, res) => {
          (res.send as (s: number) => void)(201);
        });
        app.get('/status-unknown', (_req, res) => {
          (res.send as (s: number) => void)(299);
        });
        app.get('/body-status', (_req, res) => {
          (res.send as (b: string, s: number) => void)('made', 201);
        });
        app.get('/status-body', (_req, res) => {
          (res.send as (s: number, b: string) => void)(202, 'accepted');
        });
        app.get('/no-content', (_req, res) => {
          res.status(204).send('dropped');
        });
        app.get('/reset', (_req, res) => {
          res.status(205).send('dropped');
        });
        app.get('/not-modified', (_req, res) => {
          res.status(304).send('dropped');
        });
        app.get('/own-etag', (_req, res) => {
          res.set('ETag', '"mine"').send('body');
        });
        app.get('/last-modified', (_req, res) => {
          res.set('Last-Modified', 'Wed, 21 Oct 2015 07:28:00 GMT').send('body');
        });
        return app;
      },
      [
        get('/string'),
        get('/empty'),
        get('/long'),
        get('/below-string-limit'),
        get('/at-string-limit'),
        get('/astral'),
        get('/buffer'),
        get('/buffer-typed'),
        get('/object'),
        get('/array'),
        get('/null'),
        get('/undefined'),
        get('/true'),
        get('/typed'),
        get('/typed-charset'),
        get('/xml'),
        get('/status-number'),
        get('/status-unknown'),
        get('/body-status'),
        get('/status-body'),
        get('/no-content'),
        get('/reset'),
        get('/not-modified'),
        get('/own-etag'),
        head('/string'),
        head('/object'),
        get('/string', { 'If-None-Match': 'W/"9-cKrxj+Nz9JNJMamUcCpVrNmNRkE"' }),
        get('/own-etag', { 'If-None-Match': '"mine"' }),
        get('/own-etag', { 'If-None-Match': '"mine"', 'Cache-Control': 'no-cache' }),
        get('/last-modified', { 'If-Modified-Since': 'Wed, 21 Oct 2015 07:28:00 GMT' }),
        get('/last-modified', { 'If-Modified-Since': 'Wed, 21 Oct 2015 07:27:00 GMT' }),
      ],
    );
  });

  it('send: every etag setting', async () => {
    for (const setting of [
      true,
      false,
      'weak',
      'strong',
      (body: Buffer | string, enc?: string) => `"${typeof body}-${enc}-${body.length}"`,
    ]) {
      await assertSameResponses(
        (fw) => {
          const app = production(fw);
          app.set('etag', setting);
          app.get('/', (_req, res) => {
            res.send('some body');
          });
          app.get('/buffer', (_req, res) => {
            res.send(Buffer.from('abc'));
          });
          app.get('/empty', (_req, res) => {
            res.send('');
          });
          return app;
        },
        [get('/'), get('/buffer'), get('/empty'), get('/', { 'If-None-Match': '"9-fRJoZtWZqqtHIw4oA1LhqdwLi0M"' })],
      );
    }
  });

  it('json and jsonp with every JSON setting and callback shape', async () => {
    const settings: Array<Record<string, unknown>> = [
      {},
      { 'json spaces': 2 },
      { 'json replacer': (key: string, value: unknown) => (key === 'secret' ? undefined : value) },
      { 'json escape': true },
      { 'jsonp callback name': 'cb' },
    ];
    for (const values of settings) {
      await assertSameResponses(
        (fw) => {
          const app = production(fw);
          for (const [name, value] of Object.entries(values)) app.set(name, value);
          const data = { html: '<script>&</script>', secret: 's', line: 'a\u2028b\u2029c', n: 1 };
          app.get('/json', (_req, res) => {
            res.json(data);
          });
          app.get('/json-undefined', (_req, res) => {
            res.json(undefined);
          });
          app.get('/json-string', (_req, res) => {
            res.json('str');
          });
          app.get('/json-typed', (_req, res) => {
            res.type('text/x-json').json(data);
          });
          app.get('/json-status', (_req, res) => {
            (res.json as (o: unknown, s: number) => void)(data, 201);
          });
          app.get('/json-status-first', (_req, res) => {
            (res.json as (s: number, o: unknown) => void)(202, data);
          });
          app.get('/jsonp', (_req, res) => {
            res.jsonp(data);
          });
          app.get('/jsonp-undefined', (_req, res) => {
            res.jsonp(undefined);
          });
          app.get('/jsonp-typed', (_req, res) => {
            res.type('text/plain').jsonp(data);
          });
          app.get('/jsonp-status', (_req, res) => {
            (res.jsonp as (s: number, o: unknown) => void)(201, data);
          });
          return app;
        },
        [
          get('/json'),
          get('/json-undefined'),
          get('/json-string'),
          get('/json-typed'),
          get('/json-status'),
          get('/json-status-first'),
          get('/jsonp'),
          get('/jsonp?callback=fn'),
          get('/jsonp?cb=fn'),
          get('/jsonp?callback=a.b[0]$_'),
          get('/jsonp?callback=alert(1)//%3Cscript%3E'),
          get('/jsonp?callback=one&callback=two'),
          get('/jsonp?callback='),
          get('/jsonp?callback[x]=y'),
          get('/jsonp-undefined?callback=fn'),
          get('/jsonp-typed?callback=fn'),
          get('/jsonp-typed'),
          get('/jsonp-status?callback=fn'),
          head('/jsonp?callback=fn'),
        ],
      );
    }
  });

  it('status and sendStatus', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.get('/status/:code', (req, res) => {
          res.status(Number(req.params.code)).end();
        });
        app.get('/send-status/:code', (req, res) => {
          res.sendStatus(Number(req.params.code));
        });
        app.get('/chained', (_req, res) => {
          res.status(418).send('teapot');
        });
        app.get('/float', (_req, res) => {
          res.status(200.0).send('ok');
        });
        // A status that is not a number is compared by req.fresh before res.end is called,
        // conditional request or not: a Symbol throws there, and res.end never runs.
        app.get('/symbol-status', (_req, res) => {
          let endCalls = 0;
          const end = res.end;
          res.end = function (this: Response, ...args: unknown[]) {
            endCalls++;
            return (end as (...a: unknown[]) => Response).apply(this, args);
          } as Response['end'];
          res.statusCode = Symbol('status') as unknown as number;
          try {
            res.send('body');
          } catch (err) {
            res.statusCode = 500;
            res.send(`${(err as Error).message}; res.end called ${endCalls} times`);
          }
        });
        return app;
      },
      [
        get('/status/201'),
        get('/status/404'),
        get('/send-status/200'),
        get('/send-status/404'),
        get('/send-status/418'),
        get('/send-status/299'),
        get('/send-status/599'),
        get('/send-status/204'),
        get('/chained'),
        get('/float'),
        get('/symbol-status'),
        head('/send-status/500'),
      ],
    );
  });

  it('set, header, get, append, type, vary, links, attachment', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.use(describeErrors);
        app.get('/set', (_req, res) => {
          res
            .set('X-One', 1 as unknown as string)
            .header('X-Many', ['a', 'b'])
            .set({ 'X-Obj': 'o', 'Content-Type': 'text/css' });
          res.send(String(res.get('x-one')) + '|' + String(res.get('Content-Type')));
        });
        app.get('/set-json-type', (_req, res) => {
          res.set('Content-Type', 'application/json').end('{}');
        });
        app.get('/set-image-type', (_req, res) => {
          res.set('Content-Type', 'image/png').end('png');
        });
        app.get('/set-array-type', (_req, res, next) => {
          try {
            res.set('Content-Type', ['text/html']);
          } catch (err) {
            return next(err);
          }
          res.end();
        });
        // Odd arguments fail as in Express, the value's conversion before the name's
        // `toLowerCase`: a Symbol in the value list wins over a name that is an object.
        app.get('/set-odd/:case', (req, res) => {
          const odd: Record<string, [unknown, unknown]> = {
            'symbol-value-object-name': [{ a: 1 }, ['x', [Symbol.for('s')]]],
            'object-name': [{ a: 1 }, 'x'],
            'symbol-value': ['X-A', Symbol.for('s')],
            'number-name': [42, 'x'],
          };
          const [name, value] = odd[req.params.case];
          try {
            (res.set as (name: unknown, value: unknown) => Response)(name, value);
          } catch (err) {
            return res.status(500).send(`${(err as Error).name}: ${(err as Error).message}`);
          }
          res.end();
        });
        app.get('/append', (_req, res) => {
          res
            .append('Link', '<a>')
            .append('Link', ['<b>', '<c>'])
            .append('X-New', 'n')
            .set('X-Reset', 'r')
            .append('X-Reset', ['s']);
          res.append('Set-Cookie', 'a=1').append('Set-Cookie', 'b=2');
          res.end();
        });
        app.get('/type/:t', (req, res) => {
          res.type(req.params.t).end();
        });
        // A String object: Express calls only string methods on it, so it works as its value.
        app.get('/type-object/:t', (req, res) => {
          res.type(new String(req.params.t) as unknown as string).end();
        });
        app.get('/content-type-object/:t', (req, res) => {
          res.contentType(new String(req.params.t) as unknown as string).end();
        });
        // Whatever the query parser made of `format`: anything but a string is a TypeError
        // (an array too, which fails inside Express's MIME lookup), so the status and the
        // error's name are compared, not its wording.
        app.get('/type-query', (req, res) => {
          try {
            res.type(req.query.format as string).end();
          } catch (err) {
            res
              .status(500)
              .type('text')
              .send((err as Error).name);
          }
        });
        app.get('/content-type', (_req, res) => {
          res.contentType('application/vnd.api+json').end();
        });
        app.get('/vary', (_req, res) => {
          res
            .vary('Origin')
            .vary('accept, origin')
            .vary(['User-Agent', 'Accept-Encoding'] as unknown as string)
            .end();
        });
        app.get('/vary-star', (_req, res) => {
          res.vary('Origin').vary('*').end();
        });
        app.get('/links', (_req, res) => {
          res.links({ next: 'http://api/?page=2', last: 'http://api/?page=5' }).links({ prev: '/p1' }).end();
        });
        app.get('/attachment', (_req, res) => {
          res.attachment().end();
        });
        app.get('/attachment/:name', (req, res) => {
          res.attachment(req.params.name).end();
        });
        return app;
      },
      [
        get('/set'),
        get('/set-json-type'),
        get('/set-image-type'),
        get('/set-array-type'),
        get('/set-odd/symbol-value-object-name'),
        get('/set-odd/object-name'),
        get('/set-odd/symbol-value'),
        get('/set-odd/number-name'),
        get('/append'),
        get('/type/html'),
        get('/type/.json'),
        get('/type/js'),
        get('/type/png'),
        get('/type/ico'),
        get('/type/nope'),
        get('/type/text%2Fplain'),
        get('/type-query?format=html'),
        get('/type-query?format[]=html'),
        get('/type-query?format[]=a&format[]=b'),
        get('/type-query?format[]=text%2Fhtml'),
        get('/type-query?format[a]=1'),
        get('/type-query'),
        get('/type-object/json'),
        get('/type-object/text%2Fplain'),
        get('/content-type-object/html'),
        get('/content-type-object/application%2Fvnd.api%2Bjson'),
        get('/content-type'),
        get('/vary'),
        get('/vary-star'),
        get('/links'),
        get('/attachment'),
        get('/attachment/report.pdf'),
        get('/attachment/r%C3%A9sum%C3%A9.txt'),
        get('/attachment/%E2%82%AC%20rates.csv'),
        get('/attachment/quote%22d.html'),
      ],
    );
  });

  it('location and redirect: statuses, Accept kinds, back, encoding, HEAD', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.get('/location', (req, res) => {
          res.location(String(req.query.to)).end();
        });
        app.get('/back', (_req, res) => {
          res.location('back').end();
        });
        app.get('/redirect', (req, res) => {
          res.redirect(String(req.query.to));
        });
        app.get('/redirect-301', (req, res) => {
          res.redirect(301, String(req.query.to));
        });
        app.get('/redirect-legacy', (_req, res) => {
          (res.redirect as (u: string, s: number) => void)('/legacy', 303);
        });
        app.get('/redirect-unknown', (_req, res) => {
          res.redirect(399, '/x');
        });
        app.get('/redirect-back', (_req, res) => {
          res.redirect('back');
        });
        return app;
      },
      [
        get('/location?to=/a%20b'),
        get('/location?to=' + encodeURIComponent('/é?x=ü y#frag')),
        get('/location?to=' + encodeURIComponent('/already%20encoded%zz')),
        get('/location?to=' + encodeURIComponent('http://example.com\\@evil.com/')),
        get('/location?to=' + encodeURIComponent('https://exa\u00e7mple.com/path')),
        get('/location?to=' + encodeURIComponent('//evil.com')),
        get('/back'),
        get('/back', { Referer: 'http://site/prev page' }),
        get('/back', { Referrer: '/other' }),
        get('/redirect?to=/next'),
        get('/redirect?to=/next', { Accept: 'text/html' }),
        get('/redirect?to=/next', { Accept: 'text/plain' }),
        get('/redirect?to=/next', { Accept: 'application/json' }),
        get('/redirect?to=' + encodeURIComponent('/<script>alert("x")</script>'), { Accept: 'text/html' }),
        get('/redirect?to=' + encodeURIComponent('javascript:alert(1)&<b>'), { Accept: 'text/html' }),
        get('/redirect?to=' + encodeURIComponent('/ünïcode path'), { Accept: 'text/plain' }),
        get('/redirect-301?to=/moved', { Accept: 'text/html' }),
        get('/redirect-legacy'),
        get('/redirect-unknown'),
        get('/redirect-back', { Referer: '/from' }),
        head('/redirect?to=/next'),
        head('/redirect?to=/next', { Accept: 'text/html' }),
        get('/redirect?to=/next', { Accept: 'text/html;q=0.5, text/plain' }),
        get('/redirect?to=/next', { Accept: '*/*' }),
      ],
    );
  });

  it('format: quality order, extensions, default, 406 with the types list', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.get('/format', (_req, res) => {
          res.format({
            'text/plain': () => {
              res.send('text');
            },
            html: () => {
              res.send('<p>html</p>');
            },
            'application/json; q=0.5': () => {
              res.send({ json: true });
            },
          });
        });
        app.get('/format-default', (_req, res) => {
          res.format({
            json: () => {
              res.json({});
            },
            default: () => {
              res.status(200).send('default');
            },
          });
        });
        app.get('/format-only-default', (_req, res) => {
          res.format({
            default: () => {
              res.send('d');
            },
          });
        });
        app.get('/format-empty', (_req, res) => {
          res.format({});
        });
        app.use(describeErrors);
        return app;
      },
      [
        get('/format'),
        get('/format', { Accept: 'text/html' }),
        get('/format', { Accept: 'application/json' }),
        get('/format', { Accept: 'text/html;q=0.2, text/plain;q=0.9' }),
        get('/format', { Accept: 'image/png' }),
        get('/format', { Accept: 'text/*' }),
        get('/format', { Accept: ',,;q=x, */*;q=0' }),
        get('/format', { Accept: 'application/*' }),
        get('/format-default', { Accept: 'text/plain' }),
        get('/format-default', { Accept: 'application/json' }),
        get('/format-only-default'),
        get('/format-empty'),
        get('/format', { Accept: '' }),
        get('/format', { Accept: 'text/html;level=1' }),
        get('/format', { Accept: '*/*;q=0.5, text/plain;q=0' }),
        get('/format', { Accept: 'application/json, text/html' }),
        get('/format', { Accept: 'TEXT/HTML' }),
        get('/format', { Accept: 'text/html;q=0' }),
        get('/format', { Accept: ['text/plain;q=0.1', 'text/html'] }),
        get('/format', { Accept: 'garbage' }),
        get('/format-default', { Accept: 'text/*, application/json;q=1.0' }),
      ],
    );
  });

  it('cookie and clearCookie with every option', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.use((req, _res, next) => {
          if (req.query.secret) (req as Request & { secret?: string }).secret = 'tobi';
          next();
        });
        app.get('/cookie', (_req, res) => {
          res
            .cookie('plain', 'value')
            .cookie('obj', { a: [1, 2] })
            .cookie('num', 42 as unknown as string);
          res.cookie('all', 'v', {
            domain: 'example.com',
            path: '/admin',
            httpOnly: true,
            secure: true,
            sameSite: 'strict',
            priority: 'high',
            partitioned: true,
            expires: new Date(Date.UTC(2030, 0, 1)),
            encode: (v: string) => v.toUpperCase(),
          });
          res.cookie('lax', 'l', { sameSite: true }).cookie('none', 'n', { sameSite: 'none', secure: true });
          res.cookie('space', 'a b;c');
          res.end();
        });
        app.get('/signed', (_req, res) => {
          res.cookie('s', 'secret', { signed: true }).cookie('so', { x: 1 }, { signed: true }).end();
        });
        app.get('/clear', (_req, res) => {
          res.clearCookie('gone').clearCookie('scoped', { path: '/admin', domain: 'example.com' }).end();
        });
        // Express 4.22 still honours (and deprecates) expires in clearCookie; Express 5 ignores it.
        app.get('/clear-expires', (_req, res) => {
          res.clearCookie('later', { expires: new Date(Date.UTC(2031, 5, 1)), httpOnly: true }).end();
        });
        app.get('/bad/:what', (req, res, next) => {
          try {
            if (req.params.what === 'domain') res.cookie('x', 'y', { domain: 'a.com; Secure' });
            if (req.params.what === 'path') res.cookie('x', 'y', { path: '/;HttpOnly' });
            if (req.params.what === 'name') res.cookie('x=y; a', 'y');
            if (req.params.what === 'priority') res.cookie('x', 'y', { priority: 'urgent' as 'high' });
            if (req.params.what === 'samesite') res.cookie('x', 'y', { sameSite: 'sometimes' as 'lax' });
            if (req.params.what === 'maxage') res.cookie('x', 'y', { maxAge: 'soon' as unknown as number });
            res.end();
          } catch (err) {
            next(err);
          }
        });
        app.use(describeErrors);
        return app;
      },
      [
        get('/cookie'),
        get('/signed?secret=1'),
        get('/signed'),
        get('/clear'),
        get('/clear-expires'),
        get('/bad/domain'),
        get('/bad/path'),
        get('/bad/name'),
        get('/bad/priority'),
        get('/bad/samesite'),
        get('/bad/maxage'),
      ],
    );
  });

  it('edge cases: odd settings, empty callbacks, charset corner cases, empty links', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.set('json spaces', '\t');
        app.get('/tabs', (_req, res) => {
          res.json({ a: [1] });
        });
        app.get('/jsonp', (_req, res) => {
          res.jsonp({ a: 1 });
        });
        app.get('/empty-charset', (_req, res) => {
          res.set('Content-Type', 'text/html; charset=').send('x');
        });
        app.get('/quoted', (_req, res) => {
          res.set('Content-Type', 'text/plain; Format="a b"').send('x');
        });
        app.get('/upper', (_req, res) => {
          res.set('Content-Type', 'TEXT/HTML').send('x');
        });
        app.get('/number-type', (_req, res) => {
          res.setHeader('Content-Type', 5);
          res.send('x');
        });
        app.get('/links-empty', (_req, res) => {
          res.links({}).end();
        });
        app.get('/send-buffer-head', (_req, res) => {
          res.send(Buffer.alloc(0));
        });
        app.get('/unicode-length', (_req, res) => {
          res.send('\u{1F600}'.repeat(400));
        });
        app.get('/status-then-redirect', (_req, res) => {
          res.status(500).redirect('/x');
        });
        app.use(describeErrors);
        return app;
      },
      [
        get('/tabs'),
        get('/jsonp?callback=()'),
        get('/jsonp?callback=%E2%80%A8'),
        get('/empty-charset'),
        get('/quoted'),
        get('/upper'),
        get('/number-type'),
        get('/links-empty'),
        get('/send-buffer-head'),
        head('/send-buffer-head'),
        get('/unicode-length'),
        get('/status-then-redirect'),
      ],
    );
  });

  it('render: a real engine (ejs), a custom engine, locals merging, lookup errors', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.set('views', join(__dirname, '../res/fixtures/views'));
        app.set('view engine', 'ejs');
        app.engine('tpl', (path: string, options: object, cb: (err: Error | null, html?: string) => void) => {
          const locals = options as Record<string, unknown>;
          readFile(path, 'utf8', (err, text) =>
            err
              ? cb(err)
              : cb(
                  null,
                  text.replace(/\{\{(\w+)\}\}/g, (_m, k: string) => String(locals[k])),
                ),
          );
        });
        app.locals.fromApp = 'app';
        app.locals.title = 'from app.locals';
        app.use((_req, res, next) => {
          res.locals.user = 'tobi';
          next();
        });
        app.get('/index', (_req, res) => {
          res.render('index', { title: 'Hi <b>' });
        });
        app.get('/app-title', (_req, res) => {
          res.render('index');
        });
        app.get('/dir', (_req, res) => {
          res.render('users', { users: ['a', 'b'] });
        });
        app.get('/tpl', (_req, res) => {
          res.render('plain.tpl', { user: 'loki' });
        });
        app.get('/missing', (_req, res) => {
          res.render('nope');
        });
        app.get('/callback', (_req, res) => {
          res.render('index', { title: 'cb' }, (err: Error | null, html?: string) => {
            res.type('txt').send(String(err) + html?.length);
          });
        });
        app.use(describeErrors);
        return app;
      },
      [get('/index'), get('/app-title'), get('/dir'), get('/tpl'), get('/callback'), get('/missing'), head('/index')],
    );
  });
});
