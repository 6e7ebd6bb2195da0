'use strict';
// passport-local against the store. Each app gets its own Passport instance, so two apps
// in one process (webapp and express@4 side by side in the tests) keep their own strategies.
const { Passport } = require('passport');
const { Strategy: LocalStrategy } = require('passport-local');
const { verifyPassword } = require('./passwords');

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

module.exports = { authentication, requireLogin, guestOnly };
