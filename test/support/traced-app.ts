/**
 * The app the tracing tests trace: a middleware, routers nested two deep, a
 * mounted app, handlers that answer, reject or throw, and an error handler.
 */
import webapp = require('../../src/index');

export function tracedApp(options: { inHandler?: () => void } = {}) {
  const app = webapp();
  app.use(function logger(_req, _res, next) {
    next();
  });
  const users = webapp.Router();
  users.get('/:id', function loadUser(req, res) {
    options.inHandler?.();
    res.send('user ' + req.params.id);
  });
  users.get('/:id/fail', async function rejects() {
    await Promise.resolve();
    throw new Error('async failure');
  });
  const api = webapp.Router();
  api.use('/users', users);
  app.use('/api', api);
  const admin = webapp();
  admin.get('/stats', function stats(_req, res) {
    res.send('stats');
  });
  app.use('/admin', admin);
  app.get('/throws', function throws() {
    throw new Error('sync failure');
  });
  app.use(function onError(err: Error, _req: webapp.Request, res: webapp.Response, _next: webapp.NextFunction) {
    res.status(500).send('handled: ' + err.message);
  });
  return app;
}
