/**
 * Hostile input that once cost webapp CPU out of proportion to its size: each case
 * sends it over real HTTP and checks webapp's answer against express@4's, and that
 * the server goes on serving. Nothing here measures time. Where the old code was
 * quadratic, the input is large enough that it would take minutes (the test then
 * times out) while the linear code answers in milliseconds; where express@4 is
 * quadratic itself, it answers a smaller input of the same shape, and the large one
 * is checked against an answer the test builds.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import webapp = require('../../src/index');
import webapp3 = require('../../src/v3/index');
import { decoderFor } from '../../src/body-parser/charset';
import { cookieParser } from '../../src/middleware/cookie-parser';
import { session } from '../../src/middleware/session';
import { assertSameResponses, type AppFactory, type Framework } from '../support/differential';
import { close, listen, rawRequest, withServer, type RequestSpec } from '../support/raw-http';

type Any = any;

/** `count` distinct header names: `f0`, `f1`... */
function fieldNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => 'f' + i.toString(36));
}

/** Sends `hostile` to `listener`, then a plain request, and returns both answers. */
async function hostileThenPlain(
  listener: http.RequestListener,
  hostile: RequestSpec,
  plain: RequestSpec,
): Promise<[Awaited<ReturnType<typeof rawRequest>>, Awaited<ReturnType<typeof rawRequest>>]> {
  return withServer(listener, async (port) => [await rawRequest(port, hostile), await rawRequest(port, plain)]);
}

describe('res.vary with a field list from the request', () => {
  // The list comes in a text body (a header would stop at Node's 16 KB); the Vary value
  // goes back in the body, since a client reads no more than 16 KB of response headers.
  const varyApp: AppFactory = (framework: Framework) => {
    const app = framework();
    app.post('/vary', framework.text({ limit: '4mb' }), (req: Any, res: Any) => {
      res.set('Vary', 'Accept, F1');
      res.vary(req.body.split(','));
      res.vary(req.body);
      const value = res.get('Vary');
      res.removeHeader('Vary');
      res.send(value);
    });
    app.get('/ok', (_req: Any, res: Any) => res.send('ok'));
    return app as http.RequestListener;
  };
  const post = (body: string): RequestSpec => ({
    method: 'POST',
    path: '/vary',
    headers: { 'content-type': 'text/plain' },
    body,
  });

  it('answers as express@4 on a list of 2,000 names with repeats and case changes', async () => {
    const names = fieldNames(2000);
    const list = [...names, ...names.map((name) => name.toUpperCase()), 'accept', 'f1'].join(',');
    await assertSameResponses(varyApp, [post(list), { path: '/ok' }]);
  });

  // The old code searched the list of names for every name: minutes for this list.
  it('adds 250,000 names once each', async () => {
    const names = fieldNames(250_000);
    const [hostile, plain] = await hostileThenPlain(varyApp(webapp as unknown as Framework), post(names.join(',')), {
      path: '/ok',
    });
    assert.equal(hostile.status, 200);
    // `f1` is already there (as `F1`); every other name is appended once, in order.
    const expected = ['Accept, F1', ...names.filter((name) => name !== 'f1')].join(', ');
    assert.equal(hostile.body, expected);
    assert.equal(plain.body, 'ok');
  });
});

describe('HTML escaping of request text', () => {
  const SPECIALS = '<>&"\'';
  const escapingApp: AppFactory = (framework: Framework) => {
    const app = framework();
    app.get('/redirect', (req: Any, res: Any) => res.redirect(req.url.slice('/redirect?'.length)));
    app.get('/ok', (_req: Any, res: Any) => res.send('ok'));
    return app as http.RequestListener;
  };

  it('escapes a 404 path and a redirect target made of special characters as express@4 does', async () => {
    // Just under Node's 16 KB of headers; each special character as its escape and as itself where a URL allows it.
    const run = (SPECIALS + encodeURIComponent(SPECIALS)).repeat(600);
    await assertSameResponses(escapingApp, [
      { path: '/missing/' + run },
      { path: '/redirect?' + run, headers: { accept: 'text/html' } },
      { path: '/redirect?' + run, headers: { accept: 'text/plain' } },
      { path: '/ok' },
    ]);
  });

  it('gives express@4 the same answers for short texts mixing special and plain characters', async () => {
    const texts = ['', 'a', '<', 'a<b', '<<', '&amp;', '"\'x\'"', 'é<é', 'x'.repeat(40) + '>'];
    await assertSameResponses(
      escapingApp,
      texts.map((text) => ({ path: '/missing/' + encodeURIComponent(text) })),
    );
    // The plain request proves the same servers are still serving.
    await assertSameResponses(escapingApp, [{ path: '/ok' }]);
  });
});

describe('text bodies naming a double-byte charset in many spellings', () => {
  // iconv-lite finds a charset by its name without punctuation, so `shift_jis-`,
  // `shift_jis--`... all name Shift_JIS; webapp built the charset's tables again for
  // each new spelling (5 to 7 ms for a body of two bytes, where body-parser spends
  // microseconds), so a client could make every small request that expensive.
  const CHARSETS = ['shift_jis', 'gbk', 'big5', 'euc-kr', 'cp936'];
  // Pairs each charset reads as a character (or as U+FFFD and ASCII), and ASCII.
  const BODY = Buffer.from([0xb0, 0xa1, 0x41, 0xc4, 0x40, 0xa4, 0x40, 0x0a]);
  const textApp: AppFactory = (framework: Framework) => {
    const app = framework();
    app.post('/text', framework.text(), (req: Any, res: Any) => res.json([...(req.body as string)]));
    app.get('/ok', (_req: Any, res: Any) => res.send('ok'));
    return app as http.RequestListener;
  };
  const spellings = CHARSETS.flatMap((charset) =>
    Array.from({ length: 60 }, (_, i) => charset + '-'.repeat((i % 20) + 1) + '_'.repeat(Math.floor(i / 20))),
  );

  it('decodes as express@4 under 300 spellings, and the server goes on serving', async () => {
    const requests: RequestSpec[] = spellings.map((charset) => ({
      method: 'POST',
      path: '/text',
      headers: { 'content-type': `text/plain; charset="${charset}"` },
      body: BODY,
    }));
    await assertSameResponses(textApp, [...requests, { path: '/ok' }]);
  });

  it('makes one decoder per charset, whatever the spelling', () => {
    for (const charset of CHARSETS) {
      const first = decoderFor(charset);
      assert.ok(first, charset);
      for (const spelling of spellings.filter((s) => s.startsWith(charset + '-'))) {
        assert.equal(decoderFor(spelling), first, spelling);
      }
    }
  });
});

describe('Cookie headers made of empty pieces', () => {
  // The Connect 2 parser (webapp/middleware's cookieParser and session, webapp/v3's
  // cookieParser) looked for the next `=` from each piece on to the first `=` after
  // it: four million `;` before the first pair cost 8 * 10^12 character reads, more
  // than a minute here, where the linear parser takes milliseconds; each test gives up
  // after 30 s. Node refuses headers over 16 KB unless the server raises maxHeaderSize,
  // as apps behind large cookies do.
  const PIECES = 4_000_000;
  const LIMIT = { timeout: 30_000 };
  const emptyPieces = (pairs: string) => ';'.repeat(PIECES) + pairs + ';'.repeat(1000) + '; e';
  const echoCookies = (req: Any, res: Any) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(req.cookies));
  };
  const withLargeHeaders = async <T>(listener: http.RequestListener, fn: (port: number) => Promise<T>) => {
    const server = http.createServer({ maxHeaderSize: PIECES + 64 * 1024 }, listener);
    const port = await listen(server);
    try {
      return await fn(port);
    } finally {
      await close(server);
    }
  };
  const v3App = webapp3();
  v3App.use(webapp3.cookieParser());
  v3App.use(echoCookies);
  const cookieListeners: Record<string, http.RequestListener> = {
    'webapp/middleware cookieParser': (req, res) => cookieParser('secret')(req, res, () => echoCookies(req, res)),
    'webapp/v3 cookieParser': v3App as unknown as http.RequestListener,
  };

  for (const [name, listener] of Object.entries(cookieListeners)) {
    it(`${name} reads the pairs after four million empty pieces, and the server goes on serving`, LIMIT, async () => {
      await withLargeHeaders(listener, async (port) => {
        const hostile = await rawRequest(port, { path: '/', headers: { cookie: emptyPieces('a=b; ;c=d') } });
        assert.equal(hostile.status, 200);
        assert.deepEqual(JSON.parse(hostile.body), { a: 'b', c: 'd' });
        const plain = await rawRequest(port, { path: '/', headers: { cookie: 'x=1;;y=2' } });
        assert.deepEqual(JSON.parse(plain.body), { x: '1', y: '2' });
      });
    });
  }

  it('webapp/middleware session finds its cookie after four million empty pieces', LIMIT, async () => {
    const sessions = session({ secret: 'secret', resave: false, saveUninitialized: false });
    const listener: http.RequestListener = (req: Any, res: Any) =>
      sessions(req, res, () => {
        if (req.url === '/start') req.session.visits = 0;
        else req.session.visits += 1;
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ id: req.sessionID, visits: req.session.visits }));
      });
    await withLargeHeaders(listener, async (port) => {
      const start = await rawRequest(port, { path: '/start' });
      const setCookie = start.headers['set-cookie']?.[0] ?? '';
      const sessionCookie = setCookie.slice(0, setCookie.indexOf(';'));
      assert.match(sessionCookie, /^connect\.sid=/);
      const hostile = await rawRequest(port, { path: '/visit', headers: { cookie: emptyPieces(sessionCookie) } });
      assert.deepEqual(JSON.parse(hostile.body), { ...JSON.parse(start.body), visits: 1 });
    });
  });

  it('reads short headers of empty pieces as cookie-parser 1.4 does', async () => {
    const npmCookieParser = require('cookie-parser');
    const headers = [';;;', ';a=b', 'a=b;;;c=d', ';;=;;x=;y', '; a = 1 ;; b=2;', ';'.repeat(300) + 'k=v', 'a;b;c=d=e'];
    for (const cookie of headers) {
      const read = async (parser: (req: Any, res: Any, next: () => void) => void) =>
        withServer(
          (req, res) => parser(req, res, () => echoCookies(req, res)),
          async (port) => JSON.parse((await rawRequest(port, { path: '/', headers: { cookie } })).body),
        );
      assert.deepEqual(await read(cookieParser()), await read(npmCookieParser()), cookie);
    }
  });
});

describe('Accept headers a directory listing negotiates', () => {
  // Connect 2.30's negotiator (0.5), which webapp/middleware's directory() keeps the rules
  // of, looked for `type/subtype` with an unanchored expression tried from every position,
  // and counted the quotes of the whole range again at each comma it joined: 16 KB of
  // either cost 0.1 to 0.3 s of one request's time, growing with the square of the length.
  // A megabyte (behind a raised maxHeaderSize) would take minutes; each test gives up after 30 s.
  const LIMIT = { timeout: 30_000 };
  const SIZE = 1_000_000;
  const { directory } = require('../../src/middleware/directory') as typeof import('../../src/middleware/directory');
  const listing = directory(__dirname);
  const listener: http.RequestListener = (req, res) =>
    listing(req as Any, res as Any, (err?: Any) => {
      res.statusCode = err ? err.status || 500 : 404;
      res.end(err ? err.message : 'not found');
    });
  const shapes: Record<string, string> = {
    'no slash': 'a'.repeat(SIZE),
    'a slash before spaces': 'a/' + ' '.repeat(SIZE) + 'x',
    'an open quote before commas': '"' + ',a'.repeat(SIZE / 2),
  };

  for (const [shape, accept] of Object.entries(shapes)) {
    it(`answers 406 to a megabyte with ${shape}, then lists for text/plain`, LIMIT, async () => {
      const server = http.createServer({ maxHeaderSize: SIZE + 64 * 1024 }, listener);
      const port = await listen(server);
      try {
        const hostile = await rawRequest(port, { path: '/', headers: { accept } });
        assert.equal(hostile.status, 406);
        const plain = await rawRequest(port, { path: '/', headers: { accept: 'text/plain' } });
        assert.equal(plain.status, 200);
        assert.match(plain.body, /input-cost\.test\.ts/);
      } finally {
        await close(server);
      }
    });
  }
});
