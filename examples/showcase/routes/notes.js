'use strict';
// The notes pages: a paginated list, create, show, edit, delete, and the attachment
// served back as a download. Every page here is for the signed-in owner only.
const { body, validationResult, matchedData } = require('express-validator');
const { handleRejections } = require('../lib/handle-rejections');
const { paginationChecks, pageWindow } = require('../lib/pagination');
const { displayName, contentDisposition } = require('../lib/attachments');
const { newSubmission, submissionOf, badForm } = require('../lib/submissions');
const { recent } = require('../lib/recent');

const perPage = 5;

/**
 * A note's title inside text of the app's own (a flash message, the page title): between
 * Unicode's first-strong isolate and pop directional isolate, so that bidirectional
 * controls in the title (a right-to-left override) reorder the title alone, not the
 * words around it (`Note "Invoice cba" .detaerc`). The pages put titles in `<bdi>`.
 */
const isolated = (title) => '\u2068' + title + '\u2069';

// The fields' own messages: their checks give them, and so does a field too long to read.
const fieldMessages = {
  title: 'Give the note a title of at most 100 characters.',
  body: 'Keep the text to 5000 characters at most.',
};

/**
 * Browsers send a textarea's line breaks as CRLF, and the textarea counts each as one
 * character: a text of 4999 characters in 1500 lines, as the visitor's textarea counted
 * it, arrived as 6499 and was refused. The text is checked and stored with LF, as the
 * API stores it; a lone CR (old Mac files pasted in) becomes LF too.
 */
const lineFeeds = (value) => (typeof value === 'string' ? value.replace(/\r\n?/g, '\n') : value);

const noteChecks = [
  body('title').trim().isLength({ min: 1, max: 100 }).withMessage(fieldMessages.title),
  body('body').customSanitizer(lineFeeds).trim().isLength({ max: 5000 }).withMessage(fieldMessages.body),
];

/**
 * Field errors of the form: the checks', the attachment's, and that of a field too long
 * for multer to read (see lib/attachments.js), which gets the field's own message. The
 * form is shown again without that field's text, not with its first 5000 characters: a
 * note cut short, sent again unnoticed, would lose the rest without a word.
 */
function formErrors(req) {
  const errors = validationResult(req).mapped();
  if (req.fieldTooLong) {
    if (!Object.hasOwn(fieldMessages, req.fieldTooLong)) throw badForm();
    errors[req.fieldTooLong] = { msg: fieldMessages[req.fieldTooLong] };
  }
  if (req.attachmentError) errors.attachment = { msg: req.attachmentError };
  // No browser can put a file back in a form: the page shown again has its file field
  // empty, and the form corrected and sent would make the note without it, unnoticed.
  if (req.file && !errors.attachment && Object.keys(errors).length > 0) {
    const name = displayName(req.file.originalname);
    errors.attachment = { msg: `Choose the file again (${name}): a form sent back cannot keep it.` };
  }
  return errors;
}

function notFound(what) {
  return Object.assign(new Error(`${what} not found.`), { status: 404 });
}

// A note id in a path; anything else is a note that does not exist.
const noteId = /^\d{1,15}$/;

function notesRoutes(framework, { store, attachments, forms }) {
  const router = framework.Router();

  // Loads the note named in the path, owned by the signed-in user (anyone else's is a 404).
  router.param('id', (req, res, next, id) => {
    if (!noteId.test(id)) return next(notFound('Note'));
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

  /**
   * Creates the note of a new-note form once. The same form sent again (a double click,
   * a resubmission after Back) gives the note its first sending made: `created` is false.
   *
   * The claim is the note itself: the store refuses a second note with the same user and
   * submission in one synchronous step (a unique index in SQLite, a check and a push with
   * no await between them in the JSON file). The session could not hold it: each request
   * works on its own copy, loaded when it starts and saved when it ends (memory store and
   * Redis alike), so two requests sent at the same instant would both find the id unused.
   */
  async function createOnce(userId, { submission, ...fields }, file) {
    const earlier = submission && (await store.notes.findBySubmission(userId, submission));
    if (earlier) return { note: earlier, created: false };
    const attachment = file ? await attachments.save(file) : null;
    try {
      return { note: await store.notes.create(userId, { ...fields, attachment, submission }), created: true };
    } catch (err) {
      if (err.code !== 'SUBMISSION_TAKEN') throw err;
      // The other sending got there while this one wrote its copy of the attachment.
      await attachments.remove(attachment);
      return { note: await store.notes.findBySubmission(userId, submission), created: false };
    }
  }

  const newNoteForm = (values, errors = {}) => ({
    title: 'New note',
    note: null,
    values: { ...values, submission: values.submission || newSubmission() },
    errors,
  });

  /**
   * The one page here the browser may keep, so that createOnce's promise holds: Back
   * after creating a note must show this page as it was, with its id. Sent no-store like
   * the others, it was asked for again on Back and came with a new id, and Create made
   * a second note. `no-cache` has a visit (a link, a reload) ask the server, which gives
   * a new form and a new id; Back and Forward show the kept copy without asking. What it
   * gives away: after logging out, Back can show this empty form and the user's name in
   * its header (sent, its token is void: the 403 page).
   */
  router.get('/new', (req, res) => {
    res.set('Cache-Control', 'private, no-cache');
    res.page('notes/form', newNoteForm({}));
  });

  router.post(
    '/',
    forms.multipart,
    noteChecks,
    handleRejections(async (req, res) => {
      const submission = submissionOf(req);
      const errors = formErrors(req);
      // The form shown again keeps its id: corrected and sent, it is still the one form.
      if (Object.keys(errors).length > 0) return res.status(422).page('notes/form', newNoteForm(req.body, errors));
      const { title, body: text } = matchedData(req);
      const { note, created } = await createOnce(req.user.id, { title, body: text, submission }, req.file);
      // A repeat adds no flash: the first sending's "created" is the one to show.
      if (created) req.flash('success', `Note "${isolated(note.title)}" created.`);
      res.redirect(`/notes/${note.id}`);
    }),
  );

  router.get('/:id', (req, res) => res.page('notes/show', { title: isolated(req.note.title), note: req.note }));

  router.get('/:id/edit', (req, res) =>
    res.page('notes/form', { title: `Edit ${isolated(req.note.title)}`, note: req.note, values: req.note, errors: {} }),
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
          .page('notes/form', { title: `Edit ${isolated(req.note.title)}`, note: req.note, values: req.body, errors });
      }
      const { title, body: text } = matchedData(req);
      const changes = { title, body: text };
      if (req.file) changes.attachment = await attachments.save(req.file);
      const updated = await store.notes.update(req.user.id, req.note.id, changes);
      if (!updated) {
        // Deleted (in another tab) while this form was on its way: its new file belongs to no note.
        await attachments.remove(changes.attachment);
        throw notFound('Note');
      }
      const { note, replaced } = updated;
      // The replaced file goes once the note points at the new one: the one the store
      // replaced, not the one this form was made from (another edit, in another tab, may
      // have replaced that since, and its own file would then stay on disk for ever).
      await attachments.remove(replaced);
      req.flash('success', `Note "${isolated(note.title)}" saved.`);
      res.redirect(`/notes/${note.id}`);
    }),
  );

  // The Delete button leads here first: deleting takes a second, deliberate click.
  router.get('/:id/delete', (req, res) => res.page('notes/delete', { title: 'Delete note', note: req.note }));

  // The titles of the notes deleted in the last minute, by user and note id.
  const deleted = recent({ ttl: 60_000 });

  /**
   * Deletes the note. The Delete button clicked twice sends the form twice, and the
   * second sending finds the note gone: it ends as the first did, on the list with its
   * "deleted", not on the 404 page. So this route reads the note itself (the `:id` param
   * answers a missing note with the 404), and each deletion is remembered for a minute,
   * from before the note goes: a repeat finds the note or the memory of it. In memory:
   * behind several instances of the app, a repeat that reaches another one gets the 404.
   */
  router.post(
    '/:noteId/delete',
    forms.urlencoded,
    handleRejections(async (req, res) => {
      if (!noteId.test(req.params.noteId)) throw notFound('Note');
      const id = Number(req.params.noteId);
      const key = `${req.user.id}/${id}`;
      const note = await store.notes.get(req.user.id, id);
      if (note) {
        deleted.remember(key, note.title);
        await store.notes.remove(req.user.id, id);
        await attachments.remove(note.attachment);
      }
      const title = note ? note.title : deleted.recall(key);
      if (title === undefined) throw notFound('Note');
      // A message already waiting is not added again (lib/flash.js): the repeat shows one.
      req.flash('info', `Note "${isolated(title)}" deleted.`);
      res.redirect('/notes');
    }),
  );

  router.get('/:id/attachment', (req, res, next) => {
    const { attachment } = req.note;
    if (!attachment) return next(notFound('Attachment'));
    // Downloaded under the name the file was uploaded with, as pages show it. res.sendFile,
    // not res.download: res.download writes its own Content-Disposition over any given.
    const headers = {
      'Content-Type': attachment.mimeType,
      'Content-Disposition': contentDisposition(displayName(attachment.originalName)),
    };
    res.sendFile(attachments.pathOf(attachment), { headers }, (err) => {
      if (err && !res.headersSent) next(err);
    });
  });

  return router;
}

module.exports = { notesRoutes };
