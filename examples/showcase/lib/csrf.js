'use strict';
// CSRF tokens for the forms, with webapp/middleware's csrf() (csurf 1.8's rules): every
// request that changes something must carry the token of a form this site served.
//
// csrf() gives each request it sees a secret in its session, as csurf does, and a
// session with anything in it is stored and sent a cookie: every visitor who only reads
// the home page, every crawler and every 404 would leave a seven-day session behind.
// A page read without a session secret yet skips it; the secret is made when the page
// asks for its first token (`csrfToken()` in a view that holds a form).
const { csrf } = require('webapp/middleware');

function csrfProtection() {
  const protect = csrf();
  return function csrfWhenNeeded(req, res, next) {
    const reading = req.method === 'GET' || req.method === 'HEAD';
    if (!reading || req.session.csrfSecret) return protect(req, res, next);
    req.csrfToken = function firstToken() {
      // protect() lets a read through at once, after putting the secret and the real
      // req.csrfToken in place.
      protect(req, res, () => {});
      if (req.csrfToken === firstToken) throw new Error('csrf() did not set req.csrfToken');
      return req.csrfToken();
    };
    next();
  };
}

module.exports = { csrfProtection };
