'use strict';
// One attachment per note. multer keeps the upload in memory (bounded by `maxBytes`)
// until the form has passed validation; only then is it written under the data folder
// with a random name, so a rejected form leaves no file behind and no client-chosen
// name ever reaches the file system.
const multer = require('multer');
const { randomUUID } = require('node:crypto');
const { mkdirSync } = require('node:fs');
const { writeFile, unlink } = require('node:fs/promises');
const { join, resolve } = require('node:path');

const maxBytes = 1024 * 1024;
// Served back as downloads (Content-Disposition: attachment, nosniff), never shown inline.
const allowedTypes = new Map([
  ['image/png', 'PNG image'],
  ['image/jpeg', 'JPEG image'],
  ['image/gif', 'GIF image'],
  ['image/webp', 'WebP image'],
  ['application/pdf', 'PDF document'],
  ['text/plain', 'text file'],
  ['text/markdown', 'Markdown file'],
  ['text/csv', 'CSV file'],
  ['application/json', 'JSON file'],
]);

const acceptedFiles = 'Attach an image (PNG, JPEG, GIF, WebP), a PDF or a text file (plain, Markdown, CSV, JSON).';

// Unicode's bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to
// U+2069) reorder what follows them: `a\u202Etxt.exe` is displayed as `aexe.txt`.
const bidiControls = /\p{Bidi_Control}/gu;

/**
 * An attachment's name as pages and downloads show it: its bidirectional controls are
 * replaced by U+FFFD, which is seen, so the name cannot pass for another (a program for a
 * text file). The stored name keeps the bytes the browser sent; the API returns those.
 */
function displayName(name) {
  return name.replace(bidiControls, '\uFFFD');
}

/**
 * The Content-Disposition of a download named `name`. Express's (content-disposition's)
 * writes a name that fits ISO-8859-1 as it is, `filename="café.txt"` in Latin-1 bytes,
 * and Chromium does not read those: it saved `attachment.txt`. A name that is not plain
 * ASCII goes in `filename*` as UTF-8 (RFC 6266, RFC 8187), which every current browser
 * reads, after an ASCII `filename` for those that do not: accents dropped (`cafe.txt`),
 * other characters replaced by `_`.
 */
function contentDisposition(name) {
  const ascii = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]/g, '_');
  const header = `attachment; filename="${ascii.replace(/["\\]/g, '\\$&')}"`;
  if (ascii === name) return header;
  // RFC 8187's attr-char: encodeURIComponent leaves ' ( ) * as they are, which it does not allow.
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${header}; filename*=UTF-8''${encoded}`;
}

/** What to tell the user about an upload error of the attachment field, if it is one. */
function attachmentMessage(err) {
  if (!(err instanceof multer.MulterError)) return undefined;
  if (err.code === 'LIMIT_FILE_SIZE') return `The attachment must be at most ${maxBytes / 1024 / 1024} MB.`;
  if (err.code === 'LIMIT_FILE_COUNT' || err.code === 'LIMIT_UNEXPECTED_FILE') return 'Attach one file at most.';
  return undefined;
}

function attachments(dir) {
  // The users' files, like the store: for the account that runs the app only.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const upload = multer({
    // File names as browsers send them, in UTF-8 (busboy reads them as latin1 by default:
    // `résumé.txt` came back as `rÃ©sumÃ©.txt`).
    defParamCharset: 'utf8',
    storage: multer.memoryStorage(),
    limits: { fileSize: maxBytes, files: 1, fields: 20 },
    fileFilter(req, file, accept) {
      if (allowedTypes.has(file.mimetype)) return accept(null, true);
      req.attachmentError = acceptedFiles;
      accept(null, false);
    },
  }).single('attachment');

  /**
   * Parses a multipart form into req.body and req.file. Mistakes with the attachment (too
   * large, a second file) become `req.attachmentError`, shown next to the field like any
   * other validation error. A field over multer's size limit (1 MB: a paste) becomes
   * `req.fieldTooLong`, its name, for the route to show its own message there. A form no
   * page of this app sends (too many fields, a body cut short or without its boundary) is
   * a 400 for the error handler.
   */
  function parseForm(req, res, next) {
    upload(req, res, (err) => {
      if (!err) return next();
      if (err instanceof multer.MulterError && err.code === 'LIMIT_FIELD_VALUE') {
        // multer stops at that field: req.body holds the fields before it (the form's
        // hidden fields and the title come first), not the field itself nor those after.
        req.fieldTooLong = err.field;
        return next();
      }
      const message = attachmentMessage(err);
      if (message === undefined) return next(Object.assign(err, { status: 400, expose: true }));
      req.attachmentError = message;
      req.body ||= {};
      next();
    });
  }

  /** Writes an accepted upload; returns what the note records about it. */
  async function save(file) {
    const storedName = randomUUID();
    await writeFile(join(dir, storedName), file.buffer, { flag: 'wx', mode: 0o600 });
    return { storedName, originalName: file.originalname, mimeType: file.mimetype, size: file.size };
  }

  async function remove(attachment) {
    if (!attachment) return;
    await unlink(join(dir, attachment.storedName)).catch((err) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  // Absolute (res.sendFile wants it so) even when the data folder was given as a relative path.
  const pathOf = (attachment) => resolve(dir, attachment.storedName);

  return { parseForm, save, remove, pathOf, maxBytes, allowedTypes };
}

module.exports = { attachments, displayName, contentDisposition };
