'use strict';
// webapp (like Express 5) hands a rejected promise from a handler to the error handler
// by itself. Express 4 drops it: the request hangs and Node exits on the unhandled
// rejection. This app also runs on express@4 (the browser tests compare the two), so
// its async handlers go through this wrapper, as Express 4 apps do today.
function handleRejections(handler) {
  return function routeHandler(req, res, next) {
    Promise.resolve(handler(req, res, next)).catch(next);
  };
}

module.exports = { handleRejections };
