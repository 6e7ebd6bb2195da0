// webapp, loaded from the BUILT package (run `npm run build` first; bench/run.mjs
// does unless given --no-build), and written exactly as the express@4 server;
// gzip and cookies come from webapp/middleware instead of compression and cookie-parser.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { kind, unsupported } from './shared.mjs';
import { startExpressStyle } from './express-app.mjs';

const entry = fileURLToPath(new URL('../../dist/cjs/index.js', import.meta.url));
if (!existsSync(entry)) unsupported('dist/cjs/index.js missing: run npm run build');
const require = createRequire(import.meta.url);
const webapp = require(entry);

// Only the workloads that use webapp/middleware load it: the others measure what
// an app that does not use it pays (nothing, at start and per request).
let extras = {};
if (kind === 'gzip' || kind === 'cookies') {
  const middleware = require(fileURLToPath(new URL('../../dist/cjs/middleware/index.js', import.meta.url)));
  extras = { compress: middleware.compress, cookieParser: middleware.cookieParser };
}
startExpressStyle(webapp, extras);
