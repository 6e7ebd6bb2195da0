/** Shared by the response tests: a production-mode webapp app whose errors come back as JSON. */
import type { ErrorRequestHandler, Express } from 'express';
import webapp = require('../../src/index');

/** Errors as JSON (status, message, type and the `types` of a 406), so tests can assert on them. */
export const errorEcho: ErrorRequestHandler = (err, _req, res, _next) => {
  res.statusCode = typeof err.status === 'number' ? err.status : 500;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ name: err.name, message: err.message, status: err.status, types: err.types }));
};

/** A webapp app (typed as Express's, which it runs unchanged) with `define` applied, then the error echo. */
export function appWith(define: (app: Express) => void): Express {
  const app = (webapp as unknown as () => Express)();
  app.set('env', 'production');
  define(app);
  app.use(errorEcho);
  return app;
}
