/** The final handler's 404 page for targets the URL parser rejects, differential against express@4. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertSameResponses, type Framework } from '../support/differential';

describe('final handler', () => {
  it('names an unparsable absolute-form target "resource" in its 404, and keeps serving', async () => {
    // `url.parse` throws on an unclosed IPv6 host; Node's HTTP parser lets the target through.
    const [broken, plain] = await assertSameResponses(
      (framework: Framework) => {
        const app = framework();
        app.get('/known', (_req, res) => res.send('known'));
        return app;
      },
      [{ path: 'http://[::1/x' }, { path: '/unknown' }, { path: '/known' }],
    );
    assert.equal(broken.status, 404);
    assert.match(broken.body, /Cannot GET resource/);
    assert.match(plain.body, /Cannot GET \/unknown/);
  });
});
