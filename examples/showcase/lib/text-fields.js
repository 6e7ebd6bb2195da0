'use strict';
// The forms of this app hold text fields, each under a name of its own: a browser sends
// each field once, as a string. Sent twice (`title=A&title=B`) a field reaches the route
// as an array; with brackets in its name (`title[9999999]=x`, `title[a]=x`) multer makes
// an array or an object of it. Every form's POST route runs `textFields` right after its
// body parser, so that its checks, views and store can take each field for a string:
// express-validator checks an array element by element, so a title of two parts of 100
// characters each passed, and a sparse array of ten million empty slots with one title
// in it was written to the store (a 50 MB file, rewritten at every later write, and a
// crash with ten times as many); a sign-up sent its username twice made an account named
// by both that could never log in.
const { badForm } = require('./submissions');

function textFields(req, res, next) {
  // No body at all (multer leaves none for a request that is not multipart): the CSRF check refuses it.
  const fields = req.body ?? {};
  for (const name of Object.keys(fields)) {
    if (typeof fields[name] !== 'string') return next(badForm());
  }
  next();
}

module.exports = { textFields };
