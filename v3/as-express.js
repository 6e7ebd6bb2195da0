'use strict';
// For resolvers that do not read package.json "exports" (Jest 27, browserify, webpack 4).
module.exports = require('../dist/cjs/v3/as-express.js');
