'use strict';
// Flash messages: kept in the session by one request, shown once by the next page.
// `req.flash(type, message)` has connect-flash's signature, so passport's
// failureFlash/successFlash options write here too.

function flash() {
  return function flashMiddleware(req, res, next) {
    req.flash = function addFlash(type, message) {
      const queue = (req.session.flash ||= []);
      // A message already waiting is not added again: a form sent twice (a double click)
      // announces its outcome once, whichever sending's answer the browser follows.
      if (!queue.some((queued) => queued.type === type && queued.message === message)) queue.push({ type, message });
      return queue.length;
    };
    // Read by the layout while rendering; reading empties the queue.
    res.locals.takeFlash = function takeFlash() {
      const messages = (req.session && req.session.flash) || [];
      if (req.session) delete req.session.flash;
      return messages;
    };
    next();
  };
}

module.exports = { flash };
