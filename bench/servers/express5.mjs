// express@5 (installed under the alias express5), written exactly as for express@4.
import { createRequire } from 'node:module';
import { startExpressStyle } from './express-app.mjs';

const require = createRequire(import.meta.url);
startExpressStyle(require('express5'), { compress: require('compression'), cookieParser: require('cookie-parser') });
