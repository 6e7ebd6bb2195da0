/**
 * The properties the core sets (app, res, next, baseUrl, originalUrl, params,
 * route) and those left unset (body, cookies), differential against express@4.
 */
import { describe, it } from 'node:test';
import { assertSameResponses, type Framework } from '../support/differential';

type Any = any;

describe('req.app, res, next, baseUrl, originalUrl, params, route, method, body, cookies', () => {
  it('match express@4 in routes, mounted routers and mounted apps', async () => {
    await assertSameResponses(
      (framework: Framework) => {
        const app: Any = framework();
        const sub: Any = framework();
        const router: Any = framework.Router({ mergeParams: true });
        const describeReq = (owner: Any) => (req: Any, res: Any) => {
          res.json({
            sameApp: req.app === owner,
            sameRes: req.res === res,
            hasNext: typeof req.next,
            baseUrl: req.baseUrl,
            originalUrl: req.originalUrl,
            url: req.url,
            path: req.path,
            params: req.params,
            route: req.route && { path: req.route.path, methods: req.route.methods },
            method: req.method,
            body: req.body === undefined ? 'undefined' : req.body,
            cookies: req.cookies === undefined ? 'undefined' : req.cookies,
            signedCookies: req.signedCookies === undefined ? 'undefined' : req.signedCookies,
          });
        };
        app.get('/users/:id', describeReq(app));
        router.get('/items/:item?', describeReq(app));
        app.use('/r/:group', router);
        sub.all('/deep/*', describeReq(sub));
        app.use('/sub', sub);
        return app;
      },
      [
        { path: '/users/42?x=1' },
        { path: '/USERS/%E2%82%AC' },
        { path: '/r/admins/items/7' },
        { path: '/r/admins/items' },
        { path: '/sub/deep/a/b?q' },
        { method: 'POST', path: '/sub/deep/x', body: 'data' },
        { method: 'HEAD', path: '/users/1' },
      ],
    );
  });
});
