/**
 * The app the static-file differential tests build on express@4 and on webapp:
 * `static` over a fixture root, a marker route for what falls through, and an
 * error handler that shows every field of the error, so error shapes compare too.
 */
import type { ErrorRequestHandler } from 'express';
import type { Framework } from '../support/differential';

/** Shows every field of an error that reached the app. */
export const errorEcho: ErrorRequestHandler = (err, _req, res, _next) => {
  res.statusCode = typeof err.status === 'number' ? err.status : 500;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('x-error', 'yes');
  res.end(
    JSON.stringify({
      name: err.name,
      message: err.message,
      status: err.status,
      statusCode: err.statusCode,
      expose: err.expose,
      code: err.code,
      syscall: err.syscall,
      headers: err.headers,
    }),
  );
};

/** An app serving `root` with `options` (at `mount` when given); what falls through gets a marker 404. */
export function staticApp(root: () => string, options?: object, mount?: string) {
  return (framework: Framework) => {
    const app = framework();
    app.set('env', 'production');
    const middleware = framework.static(root(), options);
    if (mount) app.use(mount, middleware);
    else app.use(middleware);
    app.use((req, res) => {
      res.statusCode = 404;
      res.setHeader('x-fell-through', req.method + ' ' + req.url);
      res.end('fell through');
    });
    app.use(errorEcho);
    return app;
  };
}
