import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { basicAuth } from '../../src/middleware/basic-auth';
import { assertSameAsConnect, basic, echo, withServer } from './support';
import { exchange } from '../support/raw-http';

const connect = require('connect');

const show = echo((req) => ({ user: req.user, remote: req.remoteUser }));

const requests = [
  { path: '/' },
  { path: '/', headers: { authorization: basic('tj', 'tobi') } },
  { path: '/', headers: { authorization: basic('tj', 'wrong') } },
  { path: '/', headers: { authorization: basic('other', 'tobi') } },
  { path: '/', headers: { authorization: basic('tj', 'to:bi') } },
  { path: '/', headers: { authorization: 'Basic' } },
  { path: '/', headers: { authorization: 'Basic a b' } },
  { path: '/', headers: { authorization: 'Bearer ' + Buffer.from('tj:tobi').toString('base64') } },
  { path: '/', headers: { authorization: 'Basic ' + Buffer.from('nocolon').toString('base64') } },
  { path: '/', headers: { authorization: 'Basic !!!' } },
  { path: '/', headers: { authorization: basic('', '') } },
];

describe('basicAuth', () => {
  it('fixed credentials match Connect 2.30 (401, 400, realm)', async () => {
    await assertSameAsConnect([connect.basicAuth('tj', 'tobi'), show], [basicAuth('tj', 'tobi'), show], requests);
    await assertSameAsConnect(
      [connect.basicAuth('tj', 'tobi', 'Admin area'), show],
      [basicAuth('tj', 'tobi', 'Admin area'), show],
      requests,
    );
  });

  it('a malformed header is the plain Error Connect 2.30 passes on: its name, message and properties', async () => {
    // errorHandler shows an error's name and own properties: they must read the same.
    const describeError = (err: any, _req: unknown, res: any, _next: unknown) => {
      res.statusCode = err.status;
      res.end(JSON.stringify({ name: err.name, message: err.message, own: Object.keys(err), http: 'expose' in err }));
    };
    const malformed = requests.filter((r) => r.headers && !/^Basic [\w+/=]{4,}$/.test(r.headers.authorization));
    const answers = await assertSameAsConnect(
      [connect.basicAuth('tj', 'tobi'), show, describeError],
      [basicAuth('tj', 'tobi'), show, describeError],
      malformed,
    );
    assert.deepEqual(JSON.parse(answers[0].body), {
      name: 'Error',
      message: 'Bad Request',
      own: ['status'],
      http: false,
    });
  });

  it('sync callback matches Connect 2.30, with a realm', async () => {
    const check = (user: string, pass: string) => user === 'tj' && pass === 'tobi';
    await assertSameAsConnect([connect.basicAuth(check, 'Zone'), show], [basicAuth(check, 'Zone'), show], requests);
  });

  it('async callback sets req.user to the object given', async () => {
    const check = (user: string, pass: string, done: (err: unknown, user?: unknown) => void) => {
      if (user === 'boom') return done(new Error('db down'));
      setImmediate(() => done(null, pass === 'tobi' ? { name: user } : null));
    };
    const more = [...requests, { path: '/', headers: { authorization: basic('boom', 'tobi') } }];
    await assertSameAsConnect([connect.basicAuth(check), show], [basicAuth(check), show], more);
  });

  it('answers 401 with the default realm and skips when req.user is set', async () => {
    const preset = (req: any, _res: unknown, next: () => void) => {
      req.user = 'already';
      next();
    };
    const [unauth] = await assertSameAsConnect(
      [connect.basicAuth('a', 'b'), show],
      [basicAuth('a', 'b'), show],
      [{ path: '/' }],
    );
    assert.equal(unauth.status, 401);
    assert.equal(unauth.headers['www-authenticate'], 'Basic realm="Authorization Required"');
    assert.equal(unauth.body, 'Unauthorized');
    const [skipped] = await assertSameAsConnect(
      [preset, connect.basicAuth('a', 'b'), show],
      [preset, basicAuth('a', 'b'), show],
      [{ path: '/' }],
    );
    assert.deepEqual(JSON.parse(skipped.body), { user: 'already' });
  });

  it('requires a password with the fixed form', () => {
    assert.throws(() => basicAuth('user'), /password argument required/);
  });
});

describe('basicAuth: a head Node refuses', () => {
  it("an asynchronous check's 401 with a status message Node refuses: next(err), and the server goes on", async () => {
    // The 401 is sent from the check's callback, in the app's own asynchronous work:
    // Node's refusal thrown there ended the process (Connect 2.30's basicAuth too).
    const auth = basicAuth((_user: string, _pass: string, done: (err: unknown, found?: unknown) => void) => {
      setImmediate(done, null, false);
    });
    const seen: string[] = [];
    const listener: http.RequestListener = (req, res) => {
      if (req.url === '/ok') return res.end('still serving');
      res.statusMessage = 'a\r\nb';
      auth(req, res, (err?: unknown) => seen.push(err ? String((err as NodeJS.ErrnoException).code) : 'next'));
    };
    await withServer(listener, async (port) => {
      const credentials = Buffer.from('tj:wrong').toString('base64');
      const answer = await exchange(
        port,
        `GET / HTTP/1.1\r\nHost: localhost\r\nAuthorization: Basic ${credentials}\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(answer.length, 0);
      assert.deepEqual(seen, ['ERR_INVALID_CHAR']);
      assert.equal(await (await fetch(`http://127.0.0.1:${port}/ok`)).text(), 'still serving');
    });
  });
});
