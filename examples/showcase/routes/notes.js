'use strict';
// The notes pages: a paginated list, create, show, edit, delete, and the attachment
// served back with res.download. Every page here is for the signed-in owner only.
const { body, validationResult, matchedData } = require('express-validator');
const { handleRejections } = require('../lib/handle-rejections');
const { paginationChecks, pageWindow } = require('../lib/pagination');

const perPage = 5;

const noteChecks = [
  body('title').trim().isLength({ min: 1, max: 100 }).withMessage('Give the note a title of at most 100 characters.'),
  body('body').trim().isLength({ max: 5000 }).withMessage('Keep the text under 5000 characters.'),
];

/** Field errors of the form, the attachment's included. */
function formErrors(req) {
  const errors = validationResult(req).mapped();
  if (req.attachmentError) errors.attachment = { msg: req.attachmentError };
  return errors;
}

function notFound(what) {
  return Object.assign(new Error(`${what} not found`), { status: 404 });
}

function notesRoutes(framework, { store, attachments, forms }) {
  const router = framework.Router();

  // Loads the note named in the path, owned by the signed-in user (anyone else's is a 404).
  router.param('id', (req, res, next, id) => {
    if (!/^\d{1,15}$/.test(id)) return next(notFound('Note'));
    store.notes.get(req.user.id, Number(id)).then((note) => {
      if (!note) return next(notFound('Note'));
      req.note = note;
      next();
    }, next);
  });

  router.get(
    '/',
    paginationChecks,
    handleRejections(async (req, res) => {
      const errors = validationResult(req);
      if (!errors.isEmpty()) throw Object.assign(new Error(errors.array()[0].msg), { status: 400 });
      const window = pageWindow({ page: req.query.page, perPage }, 0);
      const { items, total } = await store.notes.list(req.user.id, window);
      res.page('notes/index', { title: 'Your notes', notes: items, pages: pageWindow(window, total) });
    }),
  );

  router.get('/new', (req, res) => res.page('notes/form', { title: 'New note', note: null, values: {}, errors: {} }));

  router.post(
    '/',
    forms.multipart,
    noteChecks,
    handleRejections(async (req, res) => {
      const errors = formErrors(req);
      if (Object.keys(errors).length > 0) {
        return res.status(422).page('notes/form', { title: 'New note', note: null, values: req.body, errors });
      }
      const { title, body: text } = matchedData(req);
      const attachment = req.file ? await attachments.save(req.file) : null;
      const note = await store.notes.create(req.user.id, { title, body: text, attachment });
      req.flash('success', `Note "${note.title}" created.`);
      res.redirect(`/notes/${note.id}`);
    }),
  );

  router.get('/:id', (req, res) => res.page('notes/show', { title: req.note.title, note: req.note }));

  router.get('/:id/edit', (req, res) =>
    res.page('notes/form', { title: `Edit ${req.note.title}`, note: req.note, values: req.note, errors: {} }),
  );

  router.post(
    '/:id/edit',
    forms.multipart,
    noteChecks,
    handleRejections(async (req, res) => {
      const errors = formErrors(req);
      if (Object.keys(errors).length > 0) {
        return res
          .status(422)
          .page('notes/form', { title: `Edit ${req.note.title}`, note: req.note, values: req.body, errors });
      }
      const { title, body: text } = matchedData(req);
      const changes = { title, body: text };
      if (req.file) changes.attachment = await attachments.save(req.file);
      const note = await store.notes.update(req.user.id, req.note.id, changes);
      // The replaced file goes only once the note points at the new one.
      if (req.file) await attachments.remove(req.note.attachment);
      req.flash('success', `Note "${note.title}" saved.`);
      res.redirect(`/notes/${note.id}`);
    }),
  );

  // The Delete button leads here first: deleting takes a second, deliberate click.
  router.get('/:id/delete', (req, res) => res.page('notes/delete', { title: 'Delete note', note: req.note }));

  router.post(
    '/:id/delete',
    forms.urlencoded,
    handleRejections(async (req, res) => {
      await store.notes.remove(req.user.id, req.note.id);
      await attachments.remove(req.note.attachment);
      req.flash('info', `Note "${req.note.title}" deleted.`);
      res.redirect('/notes');
    }),
  );

  router.get('/:id/attachment', (req, res, next) => {
    const { attachment } = req.note;
    if (!attachment) return next(notFound('Attachment'));
    // Content-Disposition: attachment, with the name the file was uploaded under.
    res.download(
      attachments.pathOf(attachment),
      attachment.originalName,
      { headers: { 'Content-Type': attachment.mimeType } },
      (err) => {
        if (err && !res.headersSent) next(err);
      },
    );
  });

  return router;
}

module.exports = { notesRoutes };
