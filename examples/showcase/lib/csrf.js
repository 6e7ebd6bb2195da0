'use strict';
// CSRF tokens for the forms, with webapp/middleware's csrf() (csurf 1.8's rules): every
// route that changes something checks that the request carries the token of a form this
// site served.
//
// Two halves, so that only real routes check: `tokens` runs for every page and gives it
// `req.csrfToken()`; `check` is the first handler of each form's POST route. Checked
// for every request, a POST to a path that has no route was refused with the CSRF page
// instead of its 404.
//
// csrf() gives each request it sees a secret in its session, as csurf does, and a
// session with anything in it is stored and sent a cookie: every visitor who only reads
// the home page, every crawler and every 404 would leave a seven-day session behind. So
// the secret is made when a page asks for its first token (`csrfToken()` in a view
// that holds a form). And `check` refuses a request whose session has no secret without
// making one, as csrf() would before refusing it: a form POSTed from another site comes
// without the session cookie (SameSite=Lax), and the session that secret started would
// have been sent back as a new cookie, replacing the visitor's own: logged out.
const { METHODS } = require('node:http');
const { csrf } = require('webapp/middleware');

function csrfProtection() {
  const verify = csrf();
  // Refuses nothing: only makes the secret and the tokens.
  const issue = csrf({ ignoreMethods: METHODS });

  function tokens(req, res, next) {
    req.csrfToken = function firstToken() {
      // issue() runs synchronously, putting the secret and the real req.csrfToken in place.
      issue(req, res, (err) => {
        if (err) throw err;
      });
      if (req.csrfToken === firstToken) throw new Error('csrf() did not set req.csrfToken');
      return req.csrfToken();
    };
    next();
  }

  function check(req, res, next) {
    // csurf's (and csrf()'s) name for the secret in the session.
    if (req.session && req.session[secretKey] !== undefined) return verify(req, res, next);
    next(Object.assign(new Error('invalid csrf token'), { status: 403, code: 'EBADCSRFTOKEN' }));
  }

  return { tokens, check };
}

/** Where csrf() keeps a session's secret: csurf's name for it. */
const secretKey = 'csrfSecret';

module.exports = { csrfProtection, secretKey };
