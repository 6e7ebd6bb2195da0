'use strict';
// Sign-up, login and logout. Forms are validated with express-validator; errors are
// shown next to their fields, and results are announced by flash messages after redirects.
const { body, validationResult, matchedData } = require('express-validator');
const { rateLimit, ipKeyGenerator } = require('express-rate-limit');
const { hashPassword, verifyPassword } = require('../lib/passwords');
const { handleRejections } = require('../lib/handle-rejections');
const { guestOnly, logInKeepingForms } = require('../lib/auth');
const { hasSessionCookie, asVisitorSession } = require('../lib/sessions');
const { newSubmission, submissionOf } = require('../lib/submissions');

const taken = 'That username is taken.';
const loggedOut = 'You have been logged out.';

const username = () =>
  body('username')
    .trim()
    .isLength({ min: 3, max: 30 })
    .withMessage('Use 3 to 30 characters.')
    .bail()
    .matches(/^[a-z0-9_]+$/i)
    .withMessage('Use letters, digits and underscores only.');

/** Whether `user`'s account was made by the sign-up form whose id is `submission`. */
const sameForm = (user, submission) => Boolean(user && submission && user.submission === submission);

/**
 * Whether another form took the name. Asked by the route, not as a check: what a check
 * throws, express-validator shows as the field's message, so a store that failed gave
 * a 422 naming the database's error where the error page's 500 is due.
 */
async function takenByAnother(store, name, submission) {
  // Taken by this form's own first sending is not taken: see signUpOnce.
  const user = await store.users.findByUsername(name);
  return Boolean(user) && !sameForm(user, submission);
}

function signupChecks() {
  return [
    username(),
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

/**
 * Creates the account of a sign-up form once. The same form sent again (a double click:
 * the second request finds the name its first sending took) gets that account, to be
 * signed in as the first sending was, and not "That username is taken." while the
 * account is made and no one is signed in. Undefined when another form took the name.
 *
 * The account keeps the form's id, as a note does (routes/notes.js, createOnce): the
 * store's unique username is the claim. The repeat must also bring the account's
 * password, checked as a login checks it: the id says it is the same form, the password
 * that its sender may sign in. Without the id, the sign-up form would be a login without
 * the login's throttle.
 */
async function signUpOnce(store, { username: name, password, submission }) {
  let user = await store.users.findByUsername(name);
  if (!user) {
    try {
      return await store.users.create({ username: name, passwordHash: await hashPassword(password), submission });
    } catch (err) {
      if (err.code !== 'USERNAME_TAKEN') throw err;
      // Taken while the password was hashed: by the same form's other sending, or another form.
      user = await store.users.findByUsername(name);
    }
  }
  return sameForm(user, submission) && (await verifyPassword(password, user.passwordHash)) ? user : undefined;
}

// The locals of the two forms' pages. Each rendering of the sign-up form has its own id
// (lib/submissions.js); shown again after a mistake, it keeps it.
const signupPage = (values, errors = {}) => ({
  title: 'Sign up',
  values: { ...values, submission: values.submission || newSubmission() },
  errors,
});
const loginPage = (values, errors = {}) => ({ title: 'Log in', values, errors });

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
function formTooLong(view, page) {
  return function showFormAgain(err, req, res, next) {
    if (err.type !== 'entity.too.large') return next(err);
    const msg = 'This is too long: a username has at most 30 characters, a password at most 200.';
    res.status(422).page(view, page({}, { username: { msg } }));
  };
}

/**
 * An account form's route runs this after its CSRF check: a form whose token the session
 * does not know (open for days, the server restarted, logged out in another tab) is shown
 * again, fresh, with a message, and not answered with the 403 page, a dead end. Still a
 * 403: nothing was done. Only for a browser that sent its session cookie: to a POST from
 * another site, which comes without it, the fresh form would start a session and replace
 * the visitor's own (see lib/sessions.js); that one gets the 403 page, which starts none.
 */
function expiredForm(view, page) {
  return function showFreshForm(err, req, res, next) {
    if (err.code !== 'EBADCSRFTOKEN' || !hasSessionCookie(req)) return next(err);
    req.flash('error', 'This form had expired. Please send it again.');
    res.status(403).page(view, page({ username: req.body.username }));
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
  // Signed in already, a sign-up or login form leads to the notes, as its page does. It
  // is one sent again after its first sending signed in and set the cookie (a slow double
  // click), or one left open in another tab: its token is the session's before the login,
  // and the CSRF check would answer with the 403 page.
  // Then each form's body parser and CSRF check, and the pages of a form over the parser's
  // limit and of a form that expired.
  const signupForm = [
    guestOnly,
    forms.urlencoded,
    formTooLong('account/signup', signupPage),
    expiredForm('account/signup', signupPage),
  ];
  const loginForm = [
    guestOnly,
    forms.urlencoded,
    formTooLong('account/login', loginPage),
    expiredForm('account/login', loginPage),
  ];

  router.get('/signup', guestOnly, (req, res) => res.page('account/signup', signupPage({})));

  router.post(
    '/signup',
    signupForm,
    signupChecks(),
    handleRejections(async (req, res, next) => {
      const submission = submissionOf(req);
      const errors = validationResult(req).mapped();
      // The name as the checks left it (trimmed), looked up once it is a valid one.
      if (!errors.username && (await takenByAnother(store, req.body.username, submission)))
        errors.username = { msg: taken };
      const values = { username: req.body.username, submission };
      if (Object.keys(errors).length > 0) return res.status(422).page('account/signup', signupPage(values, errors));
      const { username: name, password } = matchedData(req);
      const user = await signUpOnce(store, { username: name, password, submission });
      // Taken between the check above and now by another form: the answer the check gives.
      if (!user) return res.status(422).page('account/signup', signupPage(values, { username: { msg: taken } }));
      logInKeepingForms(req, user, (err) => {
        if (err) return next(err);
        req.flash('success', `Welcome, ${user.username}! Your account is ready.`);
        res.redirect('/notes');
      });
    }),
  );

  router.get('/login', guestOnly, (req, res) => res.page('account/login', loginPage({})));

  router.post('/login', loginForm, loginThrottle(loginAttempts), loginChecks, (req, res, next) => {
    const errors = validationResult(req);
    if (!errors.isEmpty()) {
      return res.status(422).page('account/login', loginPage({ username: req.body.username }, errors.mapped()));
    }
    passport.authenticate('local', (err, user, info) => {
      if (err) return next(err);
      if (!user) {
        req.flash('error', info.message);
        return res.redirect('/login');
      }
      // logIn starts a new session (no fixation), so the flash is added after it.
      logInKeepingForms(req, user, (loginError) => {
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

  /**
   * Log out clicked twice: the first click logs out, and the second brings the session
   * that is gone with it and its void token, which the CSRF check refused with the 403
   * page. No one to log out is no forgery to refuse, so a visitor not signed in ends where
   * the first click did: the login page and its message. The message only for a browser
   * that sent a session cookie: for one that sent none, no session is started (see
   * lib/sessions.js).
   */
  function loggedOutAlready(req, res, next) {
    if (req.isAuthenticated()) return next();
    if (hasSessionCookie(req)) req.flash('info', loggedOut);
    res.redirect('/login');
  }

  router.post('/logout', loggedOutAlready, forms.urlencoded, (req, res, next) => {
    req.logout((err) => {
      if (err) return next(err);
      // passport started a new session for the signed-out visitor, with a signed-in one's week.
      asVisitorSession(req);
      req.flash('info', loggedOut);
      res.redirect('/login');
    });
  });

  return router;
}

module.exports = { accountRoutes };
