'use strict';
// Sign-up, login and logout. Forms are validated with express-validator; errors are
// shown next to their fields, and results are announced by flash messages after redirects.
const { body, validationResult, matchedData } = require('express-validator');
const { rateLimit, ipKeyGenerator } = require('express-rate-limit');
const { hashPassword } = require('../lib/passwords');
const { handleRejections } = require('../lib/handle-rejections');
const { guestOnly } = require('../lib/auth');

const username = () =>
  body('username')
    .trim()
    .isLength({ min: 3, max: 30 })
    .withMessage('Use 3 to 30 characters.')
    .bail()
    .matches(/^[a-z0-9_]+$/i)
    .withMessage('Use letters, digits and underscores only.');

function signupChecks(store) {
  return [
    username()
      .bail()
      .custom(async (name) => {
        if (await store.users.findByUsername(name)) throw new Error('That username is taken.');
      }),
    body('password')
      .isLength({ min: 8 })
      .withMessage('Use at least 8 characters.')
      .bail()
      .isLength({ max: 200 })
      .withMessage('Use at most 200 characters.'),
    body('confirm')
      .custom((value, { req }) => value === req.body.password)
      .withMessage('The passwords do not match.'),
  ];
}

const loginChecks = [
  body('username').trim().notEmpty().withMessage('Enter your username.'),
  body('password').notEmpty().withMessage('Enter your password.'),
];

/**
 * An account form's route runs this after its body parser: a form over the parser's
 * limit (32 kB; a paste into a field) is shown again with a message, not answered with
 * the 413 page. The parser refuses such a body unread (by its Content-Length) and
 * discards it, so nothing the visitor typed can be kept, and which field was too long
 * is unknown: the message goes to the username, the first field, and names both limits.
 * Nothing is checked or changed (no CSRF token was read): the page is the empty form.
 */
function formTooLong(view, title) {
  return function showFormAgain(err, req, res, next) {
    if (err.type !== 'entity.too.large') return next(err);
    const msg = 'This is too long: a username has at most 30 characters, a password at most 200.';
    res.status(422).page(view, { title, values: {}, errors: { username: { msg } } });
  };
}

/** The throttle's message: the time left, in minutes rounded up, as its Retry-After header says in seconds. */
function tooManyLogins(res) {
  const minutes = Math.max(1, Math.ceil(Number(res.get('Retry-After')) / 60));
  const left = minutes === 1 ? 'a minute' : `${minutes} minutes`;
  return Object.assign(new Error(`Too many failed logins. Try again in ${left}.`), { status: 429 });
}

/**
 * At most `limit` failed logins per address and username every 15 minutes, against
 * password guessing. Kept in memory: with several instances, give it a shared store
 * (rate-limit-redis) as the sessions have.
 */
function loginThrottle(limit) {
  return rateLimit({
    windowMs: 15 * 60 * 1000,
    limit,
    // A failed login redirects (302) too: success is being logged in afterwards.
    skipSuccessfulRequests: true,
    requestWasSuccessful: (req) => req.isAuthenticated(),
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    keyGenerator: (req) => `${ipKeyGenerator(req.ip)}|${String(req.body.username).trim().toLowerCase()}`,
    // Retry-After is set before the handler runs (standardHeaders): the message says the same.
    handler: (req, res, next) => next(tooManyLogins(res)),
  });
}

function accountRoutes(framework, { store, passport, forms, loginAttempts = 10 }) {
  const router = framework.Router();
  // Each form's body parser and CSRF check, then the page of a form over the parser's limit.
  const signupForm = [forms.urlencoded, formTooLong('account/signup', 'Sign up')];
  const loginForm = [forms.urlencoded, formTooLong('account/login', 'Log in')];

  router.get('/signup', guestOnly, (req, res) =>
    res.page('account/signup', { title: 'Sign up', values: {}, errors: {} }),
  );

  router.post(
    '/signup',
    signupForm,
    signupChecks(store),
    handleRejections(async (req, res, next) => {
      const errors = validationResult(req);
      if (!errors.isEmpty()) {
        return res.status(422).page('account/signup', {
          title: 'Sign up',
          values: { username: req.body.username },
          errors: errors.mapped(),
        });
      }
      const { username: name, password } = matchedData(req);
      let user;
      try {
        user = await store.users.create({ username: name, passwordHash: await hashPassword(password) });
      } catch (err) {
        if (err.code !== 'USERNAME_TAKEN') throw err;
        // Taken between the check above and now (the form sent twice, a double click):
        // the same answer as when the check sees it.
        return res.status(422).page('account/signup', {
          title: 'Sign up',
          values: { username: req.body.username },
          errors: { username: { msg: 'That username is taken.' } },
        });
      }
      req.logIn(user, (err) => {
        if (err) return next(err);
        req.flash('success', `Welcome, ${user.username}! Your account is ready.`);
        res.redirect('/notes');
      });
    }),
  );

  router.get('/login', guestOnly, (req, res) => res.page('account/login', { title: 'Log in', values: {}, errors: {} }));

  router.post('/login', loginForm, loginThrottle(loginAttempts), loginChecks, (req, res, next) => {
    const errors = validationResult(req);
    if (!errors.isEmpty()) {
      return res
        .status(422)
        .page('account/login', { title: 'Log in', values: { username: req.body.username }, errors: errors.mapped() });
    }
    passport.authenticate('local', (err, user, info) => {
      if (err) return next(err);
      if (!user) {
        req.flash('error', info.message);
        return res.redirect('/login');
      }
      // logIn starts a new session (no fixation), so the flash is added after it.
      req.logIn(user, (loginError) => {
        if (loginError) return next(loginError);
        req.flash('success', `Welcome back, ${user.username}.`);
        res.redirect('/notes');
      });
    })(req, res, next);
  });

  // Logging out changes state, so it is a POST (a link or an image elsewhere cannot log
  // anyone out); a typed-in or bookmarked /logout asks for the click.
  router.get('/logout', (req, res) => {
    if (!req.isAuthenticated()) return res.redirect('/login');
    res.page('account/logout', { title: 'Log out' });
  });

  router.post('/logout', forms.urlencoded, (req, res, next) => {
    req.logout((err) => {
      if (err) return next(err);
      req.flash('info', 'You have been logged out.');
      res.redirect('/login');
    });
  });

  return router;
}

module.exports = { accountRoutes };
