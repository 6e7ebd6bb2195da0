import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { timeout } from '../../src/middleware/timeout';
import { assertSameAsConnect, requestAll, type Handler } from './support';

const connect = require('connect');

const never: Handler = () => {};
const fast: Handler = (_req, res) => res.end('fast');
const report: Handler = (err: any, req: any, res: any, _next: any) => {
  res.statusCode = err.status;
  res.end(JSON.stringify({ message: err.message, code: err.code, timeout: err.timeout, timedout: req.timedout }));
};

describe('timeout', () => {
  it('answers 503 Response timeout like Connect 2.30', async () => {
    const [res] = await assertSameAsConnect(
      [connect.timeout(20), never, report],
      [timeout(20), never, report],
      [{ path: '/' }],
    );
    assert.equal(res.status, 503);
    assert.deepEqual(JSON.parse(res.body), {
      message: 'Response timeout',
      code: 'ETIMEDOUT',
      timeout: 20,
      timedout: true,
    });
  });

  it('a duration string, and a fast response is untouched', async () => {
    const [res] = await assertSameAsConnect(
      [connect.timeout('30ms'), never, report],
      [timeout('30ms'), never, report],
      [{ path: '/' }],
    );
    assert.equal(JSON.parse(res.body).timeout, 30);
    const [quick] = await requestAll([timeout(1000), fast], [{ path: '/' }]);
    assert.equal(quick.body, 'fast');
  });

  it('respond: false only flags the request; clearTimeout cancels', async () => {
    const later: Handler = (req, res) => req.on('timeout', () => res.end('flag ' + req.timedout));
    const [flagged] = await requestAll([timeout(10, { respond: false }), later], [{ path: '/' }]);
    assert.equal(flagged.body, 'flag true');
    const cancel: Handler = (req, res) => {
      req.clearTimeout();
      setTimeout(() => res.end('still ' + req.timedout), 40);
    };
    const [cleared] = await requestAll([timeout(10), cancel, report], [{ path: '/' }]);
    assert.equal(cleared.body, 'still false');
  });
});
