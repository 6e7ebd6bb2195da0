/**
 * webapp/v3 content negotiation, differential against express@3.21.2: `req.accepts`,
 * `req.accepted`, `req.acceptedLanguages`/`Charsets`/`Encodings`, the Boolean
 * `acceptsLanguage`/`Charset`/`Encoding` checks and `res.format`. Express 3.21 parsed
 * Accept-style headers with its own utils, not negotiator, so the headers below are
 * the kinds where the two kinds of parser part: quality ties, `q` values such as `.5`,
 * `abc`, `-1` or `1.0001`, parameters, wildcards, case, empty entries and spaces.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import { express3, express3Pair as pair } from '../support/legacy-oracles';
import { assertSameResponses, withoutStackFrames, type RequestSpec } from '../support/differential';
import { itWithLiveOracle } from '../support/oracle-recording';
import { chance, pick, prng, type Random } from '../support/prng';
import webapp3 = require('../../src/v3/index');

type Any = any;

/** Accept headers the generator below turned up, each a kind of its own. */
const ACCEPTS = [
  'text/html',
  'application/json',
  '*/*',
  '*',
  'text/*',
  'text',
  'text/',
  '/html',
  'TEXT/HTML',
  'Text/Html, application/JSON',
  'image/png',
  'application/vnd.api+json',
  'text/*;q=0.5, application/json;q=0.9, */*;q=0.1',
  'text/html;q=0.5, application/json;q=0.5',
  'application/json;q=0.5, text/html;q=0.5',
  'text/plain;q=.5, text/html',
  'text/html;q=0, */*',
  'text/html;q=0.000, application/json',
  'text/html;q=abc, application/json;q=0.1',
  'text/html;q=1.0001, application/json',
  'application/json, text/html;q=2',
  'text/html;q=-1, image/png',
  'text/html;q=-1',
  'text/html;q=1e-3, application/json;q=0.001',
  'text/html;q=, application/json',
  'text/html;q, application/json',
  'text/html;Q=0.5, application/json;q=0.9',
  'text/html;q = 0.5, application/json;q=0.9',
  'text/html;q=0.5=1, application/json;q=0.9',
  'text/html;q=0.5;q=0, application/json',
  'text/html;q=0;q=0.5, application/json;q=0.4',
  'text/html;level=1',
  'text/html;level=1;q=0.5, text/html;q=0.4',
  'text/html;q=0.5;level=1',
  'text/html;level=2, text/html;level=1;q=0.1',
  'text/html;level, application/json',
  'text/html;level=, application/json',
  'text/html;=x',
  'text/html;level="1"',
  'text/html;charset=utf-8',
  'text/html ;level=1 ; q=0.9',
  'text/html ; level = 1',
  ',text/html',
  'text/html,,application/json',
  'text/html, ,application/json',
  'text/html , application/json',
  'text/html\t, application/json',
  'text/html,\tapplication/json',
  'text/html;,application/json',
  'text/html;;q=0.5, application/json;q=0.4',
  'application/*;q=0.2, image/*, text/csv',
  'image/*;q=0.9, application/octet-stream',
  'text/ ;q=2,,text/plain',
  '*/html, application/xml',
  'a/b/c, text/plain',
  'application/json ;q=0.5 ;level=1,text/html ;level=2,,*;charset=iso-8859-1',
  'text;x, application/json, TEXT/HTML',
  'text/csv;q=0.8, text/html;q=0.8, text/plain;q=0.8',
];

const LANGUAGES = [
  'en',
  'en-US, en;q=0.9, fr;q=0.8',
  'fr;q=.5, en-us',
  'de-CH;q=0, de;q=0.7, *;q=0.5',
  'EN, en-gb ;q=0.5',
  'en;q=abc, fr',
  'en;q=1.0001, fr;q=2, de;q=-1',
  ',, en ,fr;level=1',
  '*',
  'en\t, fr',
];

const CHARSETS = [
  'utf-8',
  'iso-8859-5;q=.2, unicode-1-1;q=0.8',
  'utf-8;q=0, *',
  'UTF-8, iso-8859-1;q=0.5',
  'utf-8 ; q=0.5 , iso-8859-1',
  ';charset=utf-8;=x',
  '*;q=0x1, utf-8;q=2',
];

const ENCODINGS = ['gzip, deflate', 'gzip;q=1.0, identity; q=0.5, *;q=0', '*', 'br , gzip', 'gzip,deflate'];

/** Answers with `probe(req)` printed by util.inspect (parameters without a value show as undefined). */
function probing(probe: (req: Any) => unknown) {
  return (framework: Any) => {
    const app = framework();
    app.use((req: Any, res: Any) => {
      res.setHeader('Content-Type', 'text/plain');
      res.end(inspect(probe(req), { depth: 6, breakLength: Infinity }));
    });
    return app;
  };
}

/** `req.accepts` with every kind of offer 3.21 took. */
const OFFERS: unknown[][] = [
  ['html'],
  ['json, html'],
  ['json,html'],
  [['text/plain', 'application/json']],
  ['png', 'gif'],
  ['text/html'],
  ['TEXT/HTML'],
  ['HTML'],
  ['.json'],
  ['text'],
  ['bin'],
  ['application/*'],
  ['*/*'],
  ['application/vnd.api+json'],
  ['text/html;level=1'],
  ['text/html; level=1'],
  [['text/html;level=1', 'text/html']],
  ['text/html;level=1;q=0.5'],
  // Spaces at the ends of an offer stay part of it, as in 3.21.
  [' html'],
  ['html '],
  [' json , html '],
  ['text/html;level=1 '],
  [' text/html'],
  // Read by index up to `length`: a number offers nothing.
  [123],
];

function offersOf(req: Any): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  OFFERS.forEach((offer, i) => {
    out[`${i} ${inspect(offer)}`] = req.accepts(...offer);
  });
  return out;
}

const withHeaders = (headers: Record<string, string>, path = '/'): RequestSpec => ({ path, headers });

/** A seeded generator of Accept-style headers made of `values`, with odd qualities, parameters and separators. */
function headerGenerator(random: Random) {
  const QUALITIES = ['1', '0', '0.5', '.5', 'abc', '1.0001', '-1', '1e-3', '', '0.000', '0.001', ' 0.5', '2', '0x1'];
  const PARAMS = ['level=1', 'level=2', 'charset=utf-8', 'level', '=x', 'q', 'Q=0.5', 'q = 0.5', 'q=0.5=1', ''];
  const SEPARATORS = [',', ', ', ' , ', ',,', ', ,', ',\t', '\t,', ' ,'];
  const entry = (values: readonly string[]) => {
    let text = pick(random, values);
    const params = Math.floor(random() * 3);
    for (let i = 0; i < params; i++) {
      text += pick(random, [';', '; ', ' ;', ' ; ']);
      text += chance(random, 0.6) ? 'q=' + pick(random, QUALITIES) : pick(random, PARAMS);
    }
    return text;
  };
  return (values: readonly string[]) => {
    let text = entry(values);
    const count = 1 + Math.floor(random() * 4);
    for (let i = 1; i < count; i++) text += pick(random, SEPARATORS) + entry(values);
    // Spaces at the ends too: Node's parser trims them, a request made by hand may not.
    return (chance(random, 0.2) ? ' ' : '') + text + (chance(random, 0.2) ? ' ' : '');
  };
}

describe('webapp/v3 content negotiation compatibility with express@3', () => {
  it('req.accepts with strings, lists, arrays and arguments; req.accepted', async () => {
    await assertSameResponses(
      probing((req) => ({ offers: offersOf(req), accepted: req.accepted })),
      [withHeaders({}), withHeaders({ Accept: '' }), ...ACCEPTS.map((accept) => withHeaders({ Accept: accept }))],
      pair,
    );
  });

  it('acceptedLanguages, acceptedCharsets, acceptedEncodings and the Boolean checks', async () => {
    const requests: RequestSpec[] = [withHeaders({})];
    const longest = Math.max(LANGUAGES.length, CHARSETS.length, ENCODINGS.length);
    for (let i = 0; i < longest; i++) {
      requests.push(
        withHeaders({
          'Accept-Language': LANGUAGES[i % LANGUAGES.length],
          'Accept-Charset': CHARSETS[i % CHARSETS.length],
          'Accept-Encoding': ENCODINGS[i % ENCODINGS.length],
        }),
      );
    }
    await assertSameResponses(
      probing((req) => ({
        languages: req.acceptedLanguages,
        charsets: req.acceptedCharsets,
        encodings: req.acceptedEncodings,
        language: ['en', 'en-US', 'en-us', 'fr', 'de', '*', 'EN'].map((l) => req.acceptsLanguage(l)),
        charset: ['utf-8', 'UTF-8', 'iso-8859-1', 'unicode-1-1', '*'].map((c) => req.acceptsCharset(c)),
        encoding: ['gzip', 'deflate', 'identity', 'br', '*'].map((e) => req.acceptsEncoding(e)),
      })),
      requests,
      pair,
    );
  });

  it('req.accepts given an offer that is not a string: a TypeError (a 500) where 3.21 threw one', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.get('/nested', (req: Any, res: Any) => res.send(String(req.accepts(['json'], 'html'))));
        app.get('/inner', (req: Any, res: Any) => res.send(String(req.accepts('json', ['html']))));
        app.get('/missing', (req: Any, res: Any) => res.send(String(req.accepts('json', undefined))));
        app.get('/number', (req: Any, res: Any) => res.send(String(req.accepts(123))));
        app.use((err: Any, _req: Any, res: Any, _next: Any) => res.send(500, err.name));
        return app;
      },
      ['/nested', '/inner', '/missing', '/number'].flatMap((path) => [
        withHeaders({}, path),
        withHeaders({ Accept: '*/*' }, path),
        withHeaders({ Accept: 'text/html' }, path),
      ]),
      pair,
    );
  });

  it('res.format: the handler chosen, its Content-Type, Vary, the default and the 406', async () => {
    const paths = ['/media', '/ext', '/default', '/none', '/odd', '/args', '/empty', '/vary', '/params', '/shared'];
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        // Its `default` is deleted by the first call, as 3.21 deleted it from the object given.
        const shared = {
          html: (_req: Any, res: Any) => res.send('<b>shared</b>'),
          default: (_req: Any, res: Any) => res.send('shared default'),
        };
        app.get('/media', (_req: Any, res: Any) =>
          res.format({
            'text/plain': () => res.send('plain'),
            'text/html': () => res.send('<p>html</p>'),
            'application/json': () => res.send({ json: true }),
          }),
        );
        app.get('/ext', (_req: Any, res: Any) =>
          res.format({ text: () => res.send('plain'), html: () => res.send('<p>html</p>'), json: () => res.json(1) }),
        );
        app.get('/default', (_req: Any, res: Any) =>
          res.format({
            json: () => res.json({ j: 1 }),
            default() {
              res.send('default with ' + arguments.length + ' arguments');
            },
          }),
        );
        app.get('/none', (_req: Any, res: Any) =>
          res.format({ 'image/png': () => res.send('png'), 'application/xml': () => res.send('<x/>') }),
        );
        // Keys 3.21 read as written: spaces kept, `json;x` an extension no type is known for.
        app.get('/odd', (_req: Any, res: Any) =>
          res.format({
            'text/html;level=1': () => res.send('level 1'),
            'application/vnd.api+json': () => res.send('api'),
            'json;x': () => res.send('json;x'),
            ' text/plain': () => res.send('spaced plain'),
            HTML: () => res.send('HTML'),
            '.xml': () => res.send('xml'),
            'text/csv ': () => res.send('spaced csv'),
            'text/*': () => res.send('text/*'),
          }),
        );
        app.get('/args', (_req: Any, res: Any) =>
          res.format({
            html(...args: Any[]) {
              res.type('txt');
              res.send(`${args.length} arguments, next is a ${typeof args[2]}`);
            },
          }),
        );
        app.get('/empty', (_req: Any, res: Any) => res.format({}));
        app.get('/vary', (_req: Any, res: Any) => {
          res.set('Vary', 'Accept-Encoding');
          res.format({ 'text/plain': () => res.send('vary') });
        });
        app.get('/params', (_req: Any, res: Any) =>
          res.format({
            'text/html; charset=iso-8859-1': () => res.send('latin1'),
            'application/json; charset=utf-8': () => res.send('json utf-8'),
            '*/*': () => res.send('anything'),
          }),
        );
        app.get('/shared', (_req: Any, res: Any) => res.format(shared));
        // What the 406 error carries; `?page` lets it reach the 3.x error page instead.
        app.use((err: Any, req: Any, res: Any, next: Any) => {
          if (req.query.page) return next(err);
          res.send(err.status || 500, inspect({ message: err.message, types: err.types, vary: res.get('Vary') }));
        });
        return app;
      },
      [
        ...paths.flatMap((path) =>
          [
            undefined,
            'text/html',
            'application/json',
            '*/*',
            'text/plain;q=0.5, text/html;q=0.5',
            'image/gif',
            'text/*;q=0.1, application/*;q=0.2',
            'text/ ;q=2,,text/plain',
            'application/octet-stream',
            'text/html;level=1;q=0.9, application/vnd.api+json;q=0.9',
            'text/html;charset=iso-8859-1',
          ].map((accept) => withHeaders(accept === undefined ? {} : { Accept: accept }, path)),
        ),
        withHeaders({ Accept: 'image/gif' }, '/none?page=1'),
        withHeaders({ Accept: 'image/gif' }, '/empty?page=1'),
        withHeaders({ Accept: 'image/gif' }, '/odd?page=1'),
      ],
      pair,
      withoutStackFrames,
    );
  });

  it('res.redirect: its body negotiated as 3.21 did (text, html, or empty)', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.get('/', (_req: Any, res: Any) => res.redirect('/elsewhere'));
        return app;
      },
      [undefined, 'text/plain', 'text/html', 'application/json', '*/*;q=0.1', 'text/*;q=0.5, text/html;q=0'].map(
        (accept) => withHeaders(accept === undefined ? {} : { Accept: accept }),
      ),
      pair,
    );
  });

  itWithLiveOracle(
    'the request methods answer as 3.21 for 3,000 generated headers',
    'calls express3 request methods in process',
    async () => {
      const random = prng(0x3ac3e97);
      const generate = headerGenerator(random);
      const TYPES = [
        'text/html',
        'text/plain',
        'application/json',
        'application/*',
        '*/*',
        '*',
        'text',
        'text/',
        '/html',
        'image/png',
        'TEXT/HTML',
        'application/vnd.api+json',
        'application/xml',
        'text/*',
        '',
        'image/*',
      ];
      const fake = (prototype: object, headers: Record<string, string>) =>
        Object.assign(Object.create(prototype) as Any, { headers });
      const answers = (req: Any) =>
        inspect(
          {
            offers: offersOf(req),
            accepted: req.accepted,
            languages: req.acceptedLanguages,
            charsets: req.acceptedCharsets,
            encodings: req.acceptedEncodings,
            language: ['en', 'en-US', 'fr', '*', ''].map((l) => req.acceptsLanguage(l)),
            charset: ['utf-8', 'UTF-8', '*', ''].map((c) => req.acceptsCharset(c)),
            encoding: ['gzip', 'identity', '*'].map((e) => req.acceptsEncoding(e)),
          },
          { depth: 6 },
        );
      for (let i = 0; i < 3000; i++) {
        const headers: Record<string, string> = {
          'accept-language': generate(['en', 'en-US', 'en-us', 'fr', '*', 'EN', 'de-CH', '']),
          'accept-charset': generate(['utf-8', 'iso-8859-1', '*', 'UTF-8', '']),
          'accept-encoding': generate(['gzip', 'deflate', 'identity', '*', 'br']),
        };
        if (!chance(random, 0.05)) headers.accept = generate(TYPES);
        assert.equal(
          answers(fake(webapp3.request, headers)),
          answers(fake(express3.request, headers)),
          inspect(headers),
        );
      }
    },
  );
});
