// webapp, loaded from the BUILT package (run `npm run build` first; bench/run.mjs
// does unless given --no-build), and written exactly as the express@4 server.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { unsupported } from './shared.mjs';
import { startExpressStyle } from './express-app.mjs';

const entry = fileURLToPath(new URL('../../dist/cjs/index.js', import.meta.url));
if (!existsSync(entry)) unsupported('dist/cjs/index.js missing: run npm run build');
const webapp = createRequire(import.meta.url)(entry);
startExpressStyle(webapp);
