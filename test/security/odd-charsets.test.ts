/**
 * The crash class multipart had (a charset nobody can decode reaching code that
 * expects a string) looked for in every other body parser and in the cookie
 * parser: each odd, unknown or hostile charset name gets a 4xx or a parsed body,
 * never a 5xx, and the server answers the next request.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import bodyParsers = require('../../src/body-parser/index');
import webapp = require('../../src/index');
import * as bundle from '../../src/middleware/index';
import { captureStderr } from '../support/capture-stderr';
import { rawRequest, withServer } from '../support/raw-http';

type Any = any;

const CHARSETS = [
  'utf-8',
  'x-bogus',
  'utf-16be',
  'utf-16',
  'utf-7',
  'utf-32',
  'iso-2022-jp',
  'replacement',
  'x-user-defined',
  '',
  '"',
  '"utf-8',
  'utf-8"',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'base64',
  'hex',
  'ucs-2',
  'é',
];

const BODIES: Record<string, [string, string]> = {
  json: ['application/json', '{"a":1}'],
  urlencoded: ['application/x-www-form-urlencoded', 'a=1&b[c]=2'],
  text: ['text/plain', 'hello'],
  raw: ['application/octet-stream', 'bytes'],
};

function quietly<T>(make: () => T): T {
  let made: T | undefined;
  captureStderr(() => {
    made = make();
  });
  return made as T;
}

/** [label, kind of body it reads, the middleware]. */
const PARSERS: Array<[string, string, () => Any]> = [
  ...Object.keys(BODIES).map((kind): [string, string, () => Any] => [
    `webapp.${kind}()`,
    kind,
    () => (webapp as Any)[kind](),
  ]),
  ...Object.keys(BODIES).map((kind): [string, string, () => Any] => [
    `body-parser ${kind}()`,
    kind,
    () => (bodyParsers as Any)[kind](),
  ]),
  ['webapp/middleware json()', 'json', () => quietly(() => bundle.json())],
  ['webapp/middleware urlencoded()', 'urlencoded', () => quietly(() => bundle.urlencoded())],
  ['webapp/middleware bodyParser() (json)', 'json', () => quietly(() => bundle.bodyParser())],
  ['webapp/middleware bodyParser() (urlencoded)', 'urlencoded', () => quietly(() => bundle.bodyParser())],
];

function appWith(parser: Any) {
  const app = webapp();
  app.use(parser);
  app.use((req: Any, res: Any) => res.json({ body: req.body ?? null }));
  app.use((err: Any, _req: Any, res: Any, _next: Any) =>
    res.status(err.status || 500).send(err.status ? err.message : 'crashed'),
  );
  return app;
}

describe('security: odd charsets never crash a parser', () => {
  for (const [label, kind, make] of PARSERS) {
    it(label, async () => {
      const [type, body] = BODIES[kind];
      await withServer(appWith(make()), async (port) => {
        for (const charset of CHARSETS) {
          const res = await rawRequest(port, {
            method: 'POST',
            path: '/',
            headers: { 'content-type': `${type}; charset=${charset}` },
            body,
          });
          assert.ok(
            res.status === 200 || (res.status >= 400 && res.status < 500),
            `${charset}: ${res.status} ${res.body}`,
          );
        }
        const sane = await rawRequest(port, { method: 'POST', path: '/', headers: { 'content-type': type }, body });
        assert.equal(sane.status, 200);
      });
    });
  }

  it('cookieParser: hostile cookie names and values', async () => {
    const inheritsNothing = (object: object) => {
      const proto = Object.getPrototypeOf(object);
      return Reflect.ownKeys(proto).length === 0 && Object.getPrototypeOf(proto) === null;
    };
    const app = webapp();
    app.use(bundle.cookieParser('secret'));
    app.use((req: Any, res: Any) =>
      res.json({
        cookies: req.cookies,
        signed: req.signedCookies,
        // No cookie set the prototype: it is Object.prototype, or one that carries nothing.
        proto: [Object.prototype, null].includes(Object.getPrototypeOf(req.cookies)) || inheritsNothing(req.cookies),
      }),
    );
    const cookies = [
      '__proto__=1',
      '__proto__=j:{"polluted":1}',
      'a=j:{"__proto__":{"polluted":1}}',
      'constructor=x',
      'toString=1',
      'a=%',
      'a=%E0%A4%A',
      'a=s:',
      'a=s:j:',
      'a=j:',
      'a=j:' + '['.repeat(5000),
      'a="\\"',
      '=',
      ';;;',
      'a=' + 'x'.repeat(4000),
    ];
    await withServer(app, async (port) => {
      for (const cookie of cookies) {
        const res = await rawRequest(port, { path: '/', headers: { cookie } });
        assert.equal(res.status, 200, `${cookie.slice(0, 40)}: ${res.body}`);
        assert.equal(JSON.parse(res.body).proto, true);
      }
    });
    assert.equal(({} as Any).polluted, undefined);
  });
});
