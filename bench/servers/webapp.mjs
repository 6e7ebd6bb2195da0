// webapp, loaded from the BUILT package (run `npm run build` first; bench/run.mjs
// does unless given --no-build), and written exactly as the express@4 server;
// gzip and cookies come from webapp/middleware instead of compression and cookie-parser.
import { createRequire } from 'node:module';
import { kind, unsupported } from './shared.mjs';
import { startExpressStyle } from './express-app.mjs';

// Node's modules through `require`, as the node:http server loads them: `node:fs`
// imported from ESM builds a namespace of all its exports, whose lazy `promises`
// getter loads fs/promises and readline (8 to 10 ms at start) that webapp does not use.
const require = createRequire(import.meta.url);
const { existsSync } = require('node:fs');
const { fileURLToPath } = require('node:url');

const entry = fileURLToPath(new URL('../../dist/cjs/index.js', import.meta.url));
if (!existsSync(entry)) unsupported('dist/cjs/index.js missing: run npm run build');
const webapp = require(entry);

// Only the workloads that use webapp/middleware load it: the others measure what
// an app that does not use it pays (nothing, at start and per request).
let extras = {};
if (kind === 'gzip' || kind === 'cookies') {
  const middleware = require(fileURLToPath(new URL('../../dist/cjs/middleware/index.js', import.meta.url)));
  extras = { compress: middleware.compress, cookieParser: middleware.cookieParser };
}
startExpressStyle(webapp, extras);
