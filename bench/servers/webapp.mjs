// webapp, loaded from the BUILT package (run `npm run build` first; bench/run.mjs
// does unless given --no-build), and written exactly as the express@4 server.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { unsupported } from './shared.mjs';
import { startExpressStyle } from './express-app.mjs';

const entry = fileURLToPath(new URL('../../dist/cjs/index.js', import.meta.url));
if (!existsSync(entry)) unsupported('dist/cjs/index.js missing: run npm run build');
const require = createRequire(import.meta.url);
const webapp = require(entry);

// webapp.json is the body-parser module's json; until the framework re-exports it,
// measure the standalone module (webapp/body-parser) if the build has it.
const bodyParserEntry = fileURLToPath(new URL('../../dist/cjs/body-parser/index.js', import.meta.url));
const json = webapp.json || (existsSync(bodyParserEntry) ? require(bodyParserEntry).json : undefined);
startExpressStyle(webapp, json);
