// express@4 (the reference webapp replaces), in the idiom of its guide, with
// compression and cookie-parser from npm.
import { createRequire } from 'node:module';
import { startExpressStyle } from './express-app.mjs';

const require = createRequire(import.meta.url);
startExpressStyle(require('express'), { compress: require('compression'), cookieParser: require('cookie-parser') });
