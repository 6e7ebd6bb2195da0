import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { responseTime } from '../../src/middleware/response-time';
import { requestAll, type Handler } from './support';

const ok: Handler = (_req, res) => res.end('ok');

describe('responseTime', () => {
  it('sets X-Response-Time with 3 digits and ms', async () => {
    const [res] = await requestAll([responseTime(), ok], [{ path: '/' }]);
    assert.match(String(res.headers['x-response-time']), /^\d+\.\d{3}ms$/);
  });

  it('digits, header and suffix options', async () => {
    const [res] = await requestAll([responseTime({ digits: 0, header: 'X-Took', suffix: false }), ok], [{ path: '/' }]);
    assert.match(String(res.headers['x-took']), /^\d+$/);
    assert.equal(res.headers['x-response-time'], undefined);
  });

  it('keeps an existing header and accepts the deprecated number form', async () => {
    const preset: Handler = (_req, res) => {
      res.setHeader('X-Response-Time', 'mine');
      res.end();
    };
    const [kept] = await requestAll([responseTime(), preset], [{ path: '/' }]);
    assert.equal(kept.headers['x-response-time'], 'mine');
    const [digits] = await requestAll([responseTime(1), ok], [{ path: '/' }]);
    assert.match(String(digits.headers['x-response-time']), /^\d+\.\dms$/);
  });

  it('a function receives the time and can set headers', async () => {
    const mw = responseTime((_req, res, time) => res.setHeader('X-Positive', String(time >= 0)));
    const [res] = await requestAll(
      [mw, (_req: any, res: any) => res.writeHead(201, { 'X-Other': '1' }).end()],
      [{ path: '/' }],
    );
    assert.equal(res.status, 201);
    assert.equal(res.headers['x-positive'], 'true');
    assert.equal(res.headers['x-other'], '1');
  });
});
