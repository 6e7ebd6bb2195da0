'use strict';
// A JSON API over the same notes, for the signed-in user (session cookie). It has its
// own error format, `{ "error": { "status", "code", "message", "details"? } }`, for every
// failure, its own 404 included: API clients never receive an HTML page.
const { STATUS_CODES } = require('node:http');
const { body, validationResult, matchedData } = require('express-validator');
const { handleRejections } = require('../lib/handle-rejections');
const { paginationChecks, pageWindow } = require('../lib/pagination');

class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

function rejectInvalid(req) {
  const errors = validationResult(req);
  if (!errors.isEmpty()) {
    throw new ApiError(
      422,
      'validation_failed',
      'The request has invalid fields.',
      errors.array().map(({ path, msg }) => ({ field: path, message: msg })),
    );
  }
}

function noteResource(note) {
  const { id, title, body, attachment, createdAt, updatedAt } = note;
  return {
    id,
    title,
    body,
    attachment: attachment && {
      name: attachment.originalName,
      type: attachment.mimeType,
      size: attachment.size,
      url: `/notes/${id}/attachment`,
    },
    createdAt,
    updatedAt,
  };
}

const noteFields = (optional) => [
  (optional ? body('title').optional() : body('title'))
    .isString()
    .withMessage('title must be a string')
    .bail()
    .trim()
    .isLength({ min: 1, max: 100 })
    .withMessage('title must have 1 to 100 characters'),
  body('body')
    .optional()
    .isString()
    .withMessage('body must be a string')
    .bail()
    .trim()
    .isLength({ max: 5000 })
    .withMessage('body must have at most 5000 characters'),
];

/** The API's error handler: every failure as `{ "error": { "status", "code", "message", "details"? } }`. */
function apiErrors(reportError) {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- four parameters make this the error handler
  return function apiErrorHandler(err, req, res, next) {
    // Body-parser errors carry an HTTP status and a type (entity.parse.failed, ...), and
    // so does the session middleware's when Redis is away (session.unavailable).
    const status = err.status >= 400 && err.status < 600 ? err.status : 500;
    const code =
      err instanceof ApiError
        ? err.code
        : status === 500
          ? 'internal'
          : String(err.type || 'bad_request').replace(/\W/g, '_');
    // An error marked as not for the client (`expose: false`, as http-errors makes them) keeps its message.
    const message =
      status === 500 ? 'Something went wrong.' : err.expose === false ? STATUS_CODES[status] : err.message;
    if (status === 500) reportError(err);
    res.set('Cache-Control', 'no-store');
    res.status(status).json({ error: { status, code, message, ...(err.details ? { details: err.details } : {}) } });
  };
}

function apiRoutes(framework, { store, attachments, reportError }) {
  const api = framework.Router();

  // A user's notes, for that user only: no cache keeps a copy (a shared one would give
  // it to the next user; the browser's, to whoever uses the browser after a logout).
  api.use((req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });

  // Each route runs its own checks, so that a path or method no route has is a 404
  // whoever asks and whatever the body.
  const signedIn = (req, res, next) =>
    req.isAuthenticated() ? next() : next(new ApiError(401, 'unauthenticated', 'Log in first.'));

  // Writes must be JSON. A cross-site HTML form can only send form encodings, and a
  // cross-site script cannot send JSON without a CORS preflight this app never grants,
  // so this check is the API's CSRF protection.
  const jsonBody = [
    function requireJson(req, res, next) {
      if (!req.is('application/json'))
        return next(new ApiError(415, 'unsupported_media_type', 'Send a JSON body (Content-Type: application/json).'));
      next();
    },
    framework.json({ limit: '32kb' }),
  ];

  /** Loads the note named in the path, owned by the signed-in user (anyone else's is a 404). */
  function loadNote(req, res, next) {
    const { id } = req.params;
    if (!/^\d{1,15}$/.test(id)) return next(new ApiError(404, 'not_found', `No note ${id}.`));
    store.notes.get(req.user.id, Number(id)).then((note) => {
      if (!note) return next(new ApiError(404, 'not_found', `No note ${id}.`));
      req.note = note;
      next();
    }, next);
  }

  api.get(
    '/notes',
    signedIn,
    paginationChecks,
    handleRejections(async (req, res) => {
      rejectInvalid(req);
      const window = pageWindow({ page: req.query.page, perPage: req.query.perPage || 10 }, 0);
      const { items, total } = await store.notes.list(req.user.id, window);
      const { page, perPage, pages } = pageWindow(window, total);
      res.json({ notes: items.map(noteResource), page, perPage, total, pages });
    }),
  );

  api.post(
    '/notes',
    signedIn,
    jsonBody,
    noteFields(false),
    handleRejections(async (req, res) => {
      rejectInvalid(req);
      const { title, body: text = '' } = matchedData(req);
      const note = await store.notes.create(req.user.id, { title, body: text });
      res.status(201).location(`/api/notes/${note.id}`).json(noteResource(note));
    }),
  );

  api.get('/notes/:id', signedIn, loadNote, (req, res) => res.json(noteResource(req.note)));

  api.patch(
    '/notes/:id',
    signedIn,
    jsonBody,
    loadNote,
    noteFields(true),
    handleRejections(async (req, res) => {
      rejectInvalid(req);
      const { title, body: text } = matchedData(req);
      const updated = await store.notes.update(req.user.id, req.note.id, { title, body: text });
      // Deleted by another request since loadNote read it.
      if (!updated) throw new ApiError(404, 'not_found', `No note ${req.note.id}.`);
      res.json(noteResource(updated.note));
    }),
  );

  api.delete(
    '/notes/:id',
    signedIn,
    loadNote,
    handleRejections(async (req, res) => {
      const removed = await store.notes.remove(req.user.id, req.note.id);
      // Its attachment goes with it, as from the Delete page (a file no note points at
      // would stay on disk for ever).
      if (removed) await attachments.remove(removed.attachment);
      res.status(204).end();
    }),
  );

  api.use((req, res, next) =>
    next(new ApiError(404, 'not_found', `No route ${req.method} ${req.baseUrl}${req.path}.`)),
  );

  api.use(apiErrors(reportError));

  return api;
}

module.exports = { apiRoutes, apiErrors, ApiError };
