'use strict';
// passport-local against the store. Each app gets its own Passport instance, so two apps
// in one process (webapp and express@4 side by side in the tests) keep their own strategies.
const { Passport } = require('passport');
const { Strategy: LocalStrategy } = require('passport-local');
const { verifyPassword } = require('./passwords');
const { secretKey } = require('./csrf');

/** How long the session a login replaced keeps its forms' secret (see logInKeepingForms). */
const formerSessionKeptMs = 60 * 1000;

// Compared against when the username is unknown, so a wrong name costs as long as a wrong
// password and response times do not reveal which accounts exist.
const decoyHash = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

function authentication(store) {
  const passport = new Passport();
  passport.use(
    new LocalStrategy(async (username, password, done) => {
      try {
        const user = await store.users.findByUsername(username);
        const matches = await verifyPassword(password, user ? user.passwordHash : decoyHash);
        if (!user || !matches) return done(null, false, { message: 'Unknown username or wrong password.' });
        done(null, user);
      } catch (err) {
        done(err);
      }
    }),
  );
  passport.serializeUser((user, done) => done(null, user.id));
  passport.deserializeUser(async (id, done) => {
    try {
      const user = await store.users.findById(id);
      // A deleted account simply logs the session out.
      done(null, user ? { id: user.id, username: user.username } : false);
    } catch (err) {
      done(err);
    }
  });
  return passport;
}

/** Pages for signed-in users only: others are sent to the login page. */
function requireLogin(req, res, next) {
  if (req.isAuthenticated()) return next();
  req.flash('error', 'Please log in to see that page.');
  res.redirect('/login');
}

/** The login and sign-up pages are for visitors: a signed-in user goes to their notes. */
function guestOnly(req, res, next) {
  if (req.isAuthenticated()) return res.redirect('/notes');
  next();
}

/**
 * `req.logIn`, which starts a new session (no fixation), then puts the session the form
 * came with back in the store for a minute, holding nothing but its CSRF secret.
 *
 * A double click's second request leaves the browser before the first one's answer (and
 * the new session's cookie) comes back, so it brings the former session's cookie and the
 * same form. When it reaches the server after the first one signed in, that session
 * would be gone and the form's token void: "This form had expired" over a sign-up or
 * login that worked. With the secret kept, the token checks, the route finds the account
 * the first request made (or checks the password again) and signs this request in too.
 *
 * The former session is signed out: whoever holds its cookie (a session id an attacker
 * fixed) has what any visitor who loaded a form has, and only for that minute.
 */
function logInKeepingForms(req, user, callback) {
  const formerId = req.sessionID;
  const secret = req.session[secretKey];
  req.logIn(user, (err) => {
    if (err || secret === undefined) return callback(err);
    const cookie = { ...req.session.cookie.toJSON(), originalMaxAge: formerSessionKeptMs };
    cookie.expires = new Date(Date.now() + formerSessionKeptMs);
    // Signed in already: a store that fails here costs a second click its convenience only.
    req.sessionStore.set(formerId, { cookie, [secretKey]: secret }, () => callback());
  });
}

module.exports = { authentication, requireLogin, guestOnly, logInKeepingForms };
