'use strict';
// The notes application, written against the Express 4 API. It takes the framework as a
// parameter, so the same file runs on webapp (`npm start`) and on express@4:
//   createApp(require('webapp'), options)   or   createApp(require('express'), options)
const path = require('node:path');
const { STATUS_CODES } = require('node:http');
const helmet = require('helmet');
const compression = require('compression');
const morgan = require('morgan');
const { openStore } = require('./lib/store');
const { sessions } = require('./lib/sessions');
const { authentication, requireLogin } = require('./lib/auth');
const { flash } = require('./lib/flash');
const { csrfProtection } = require('./lib/csrf');
const { assets } = require('./lib/assets');
const { attachments: attachmentFolder, displayName } = require('./lib/attachments');
const { accountRoutes } = require('./routes/account');
const { notesRoutes } = require('./routes/notes');
const { apiRoutes, apiErrors } = require('./routes/api');
const { textFields } = require('./lib/text-fields');

/** `res.page(view, locals)`: renders the view, then the layout around it. */
function renderPage(view, locals) {
  this.render(view, locals, (err, body) => {
    if (err) return this.req.next(err);
    // Without a callback, render sends the page or passes its error to next().
    this.render('layout', { ...locals, body });
  });
  return this;
}

/**
 * No page of the session is kept by the browser: Back asks the server again. (Current
 * Chromium restores a `no-store` page from its back/forward cache, as it was shown, when
 * no cookie changed since: not after logging in or out, which change the session cookie;
 * test/e2e checks Back there.) Each is made from the session: flash messages shown once,
 * forms holding the session's CSRF token, a header naming who is signed in, a signed-in
 * user's notes and files. A kept copy (the back/forward cache, or the HTTP cache that
 * Back reads without asking) showed the login form after logging in, whose token the new
 * session refuses (the 403 page), a message again, or, after logging out, a user's notes.
 * Redirects too: Back to a private page after logging out replayed the kept redirect to a
 * kept login page, and the "log in" message came one page late. The one page kept is the
 * new-note form (routes/notes.js).
 */
function sessionPages(req, res, next) {
  res.set('Cache-Control', 'no-store');
  next();
}

function errorPage(err) {
  if (err.type === 'session.unavailable') return { status: 503, title: 'Service unavailable', message: err.message };
  if (err.code === 'EBADCSRFTOKEN') {
    return {
      status: 403,
      title: 'Forbidden',
      message:
        'This form was open too long, was sent twice, or did not come from this site. ' +
        'Go back, reload the page and send it again.',
    };
  }
  const status = err.status >= 400 && err.status < 600 ? err.status : 500;
  if (status >= 500) return { status, title: 'Something went wrong', message: 'The error has been logged.' };
  // An error its maker marked as not for the client (`expose: false`, as http-errors and
  // res.sendFile's do) keeps its message to itself: a missing attachment's named the
  // file's place on the server's disk.
  const told = err.expose !== false;
  if (status === 404) return { status, title: 'Not found', message: told ? err.message : 'There is nothing here.' };
  const title = STATUS_CODES[status] || 'Bad request';
  return { status, title, message: told ? err.message : `${title}.` };
}

/** The 404 of a path that no route answers. */
function noPage(req) {
  return Object.assign(new Error(`There is no page at ${req.path}.`), { status: 404 });
}

/**
 * The headers a response that failed before its head went out may have left: a download
 * refused for its Range header (416) had set the file's Content-Type, Content-Disposition,
 * ETag and Last-Modified, and the error page went out as a download of the file's type.
 * Content-Range stays: a 416 names the length of what was asked for.
 */
const representationHeaders = ['Content-Type', 'Content-Disposition', 'ETag', 'Last-Modified'];

/**
 * Options: `dataDir` (required: the store and attachments live there), `sessionSecret`,
 * `redisUrl` (sessions in Redis), `store` (one already open), `log` (a morgan format, or
 * false), `secureCookies` (behind HTTPS), `reportError` (where server errors go; the
 * console by default), `servedBy` (the framework the home page names: 'webapp',
 * 'express@4'; none when not given).
 *
 * `app.ready()` resolves once the session store can be used, and rejects when Redis
 * cannot be reached within a few seconds: listen only after it. `app.close()` closes
 * the store and Redis.
 */
function createApp(framework, options) {
  const { dataDir, sessionSecret, redisUrl, log = 'dev', secureCookies = false, reportError = console.error } = options;
  const store = options.store || openStore(dataDir);
  const attachments = attachmentFolder(path.join(dataDir, 'attachments'));
  const session = sessions({ secret: sessionSecret, redisUrl, secureCookies });
  const passport = authentication(store);
  const staticAssets = assets(framework, path.join(__dirname, 'public'));

  const app = framework();
  app.set('views', path.join(__dirname, 'views'));
  app.set('view engine', 'ejs');
  app.locals.appName = 'Notes';
  app.locals.asset = staticAssets.url;
  app.locals.displayName = displayName;
  app.locals.servedBy = options.servedBy;
  app.response.page = renderPage;
  // HTTPS is expected to end at a proxy in front of the app: trust its X-Forwarded-Proto,
  // or express-session would never send the secure cookie over what it sees as plain HTTP.
  if (secureCookies) app.set('trust proxy', 1);

  app.use(
    helmet({
      // Plain HTTP in development: without this, browsers would upgrade every asset to https.
      contentSecurityPolicy: { directives: { upgradeInsecureRequests: secureCookies ? [] : null } },
    }),
  );
  app.use(compression());
  if (log) app.use(morgan(log));
  app.use('/assets', staticAssets.middleware);
  // A request target that is not a path (`OPTIONS *`, `GET *`) names no page. Past this
  // point it would find no session (express-session serves only paths under the cookie's
  // `/`), and passport.session() throws without one: a 500 and a logged stack per request.
  app.use((req, res, next) => (req.path.startsWith('/') ? next() : next(noPage(req))));

  app.use(session.middleware);
  app.use(passport.initialize());
  app.use(passport.session());
  app.use(flash());
  app.use((req, res, next) => {
    res.locals.user = req.user;
    next();
  });

  // The JSON API is protected by its content-type rule (see routes/api.js), not by form tokens.
  // Its errors are JSON, those of the session middleware above (Redis away) included.
  app.use('/api', apiErrors(reportError));
  app.use('/api', apiRoutes(framework, { store, attachments, reportError }));
  app.use(sessionPages);

  const csrf = csrfProtection();
  app.use(csrf.tokens);
  app.use((req, res, next) => {
    // Called by the views that hold a form (see lib/csrf.js).
    res.locals.csrfToken = () => req.csrfToken();
    next();
  });
  // What each form's POST route runs first: its body parser (urlencoded, or multipart with
  // the attachment), then the CSRF check, which reads the token from the body. Only the
  // routes do: a POST to a path that has no route is a 404, not a refused form.
  const forms = {
    urlencoded: [framework.urlencoded({ extended: false, limit: '32kb' }), textFields, csrf.check],
    multipart: [attachments.parseForm, textFields, csrf.check],
  };

  app.get('/', (req, res) => (req.user ? res.redirect('/notes') : res.page('home', { title: 'Welcome' })));
  app.use(accountRoutes(framework, { store, passport, forms }));
  app.use('/notes', requireLogin, notesRoutes(framework, { store, attachments, forms }));

  app.use((req, res, next) => next(noPage(req)));

  app.use((err, req, res, next) => {
    // Too late for an error page (a download failed half-way): let the framework end the response.
    if (res.headersSent) return next(err);
    const page = errorPage(err);
    // A Redis outage is logged once by lib/sessions.js, not once per request.
    if (page.status >= 500 && err.type !== 'session.unavailable') reportError(err);
    // The page needs a token for the logout form even when the CSRF check failed.
    if (req.csrfToken) res.locals.csrfToken = () => req.csrfToken();
    for (const name of representationHeaders) res.removeHeader(name);
    res.status(page.status).page('error', page);
  });

  app.ready = () => session.ready();
  app.close = () => {
    store.close();
    return session.close();
  };
  return app;
}

module.exports = { createApp };
