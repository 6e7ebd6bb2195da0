'use strict';
// The whole data set in one JSON file. Every change rewrites it atomically: the new
// content goes to a temporary file that is flushed to disk and then renamed over the old
// one, so a crash leaves either the old file or the new one, never half of each.
// The file holds password hashes: it is readable by the account that runs the app only.
const { readFileSync, writeFileSync, renameSync, openSync, fchmodSync, fsyncSync, closeSync } = require('node:fs');
const { join } = require('node:path');

function emptyData() {
  return { nextUserId: 1, nextNoteId: 1, users: [], notes: [] };
}

function load(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    if (err.code === 'ENOENT') return emptyData();
    throw new Error(`cannot read ${file}: ${err.message}`);
  }
}

function writeAtomically(file, text) {
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    // A temporary file a crash left behind keeps its mode when opened again.
    fchmodSync(fd, 0o600);
    writeFileSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
}

const copy = (record) => (record ? structuredClone(record) : undefined);

/** The file the JSON store keeps its data in, in `dir`. */
const jsonFile = (dir) => join(dir, 'showcase.json');

function openJsonStore(dir) {
  const file = jsonFile(dir);
  const data = load(file);
  // Writes are synchronous, so two requests can never interleave their renames.
  const save = () => writeAtomically(file, JSON.stringify(data));
  const ownNotes = (userId) => data.notes.filter((note) => note.userId === userId);
  const findNote = (userId, id) => data.notes.find((note) => note.userId === userId && note.id === id);
  const findBySubmission = (userId, submission) =>
    data.notes.find((note) => note.userId === userId && note.submission === submission);

  return {
    kind: 'json',
    users: {
      /** `submission` (optional): the id of the sign-up form that made the account (routes/account.js). */
      async create({ username, passwordHash, submission = null }) {
        if (data.users.some((user) => user.username === username))
          throw Object.assign(new Error('username taken'), { code: 'USERNAME_TAKEN' });
        const user = { id: data.nextUserId++, username, passwordHash, submission, createdAt: new Date().toISOString() };
        data.users.push(user);
        save();
        return copy(user);
      },
      async findById(id) {
        return copy(data.users.find((user) => user.id === id));
      },
      async findByUsername(username) {
        return copy(data.users.find((user) => user.username === username));
      },
    },
    notes: {
      /** Newest first, `limit` notes after skipping `offset`, with the total count. */
      async list(userId, { offset, limit }) {
        const all = ownNotes(userId).sort((a, b) => b.id - a.id);
        return { items: all.slice(offset, offset + limit).map(copy), total: all.length };
      },
      async get(userId, id) {
        return copy(findNote(userId, id));
      },
      /**
       * `submission` (optional) names the form that sent the note: a second note with the
       * same one is refused (SUBMISSION_TAKEN). The check and the push run with no await
       * between them, so two requests of one process cannot both pass it.
       */
      async create(userId, { title, body, attachment = null, submission = null }) {
        if (submission !== null && findBySubmission(userId, submission))
          throw Object.assign(new Error('form already submitted'), { code: 'SUBMISSION_TAKEN' });
        const now = new Date().toISOString();
        const note = {
          id: data.nextNoteId++,
          userId,
          title,
          body,
          attachment,
          submission,
          createdAt: now,
          updatedAt: now,
        };
        data.notes.push(note);
        save();
        return copy(note);
      },
      /** The note the form `submission` created, if any. */
      async findBySubmission(userId, submission) {
        return copy(findBySubmission(userId, submission));
      },
      /**
       * Changes the fields given: the note as changed and the attachment a new one replaced
       * (`null` when none did), read in the same step as the change, so that of two edits
       * at once each learns the file it replaced; `undefined` when the user has no such note.
       */
      async update(userId, id, changes) {
        const note = findNote(userId, id);
        if (!note) return undefined;
        const replaced = changes.attachment !== undefined ? note.attachment : null;
        for (const key of ['title', 'body', 'attachment']) if (changes[key] !== undefined) note[key] = changes[key];
        note.updatedAt = new Date().toISOString();
        save();
        return { note: copy(note), replaced: replaced ? { ...replaced } : null };
      },
      /** The removed note, `undefined` when the user had no such note. */
      async remove(userId, id) {
        const note = findNote(userId, id);
        if (!note) return undefined;
        data.notes.splice(data.notes.indexOf(note), 1);
        save();
        return copy(note);
      },
    },
    close() {},
  };
}

/** The data a JSON store left in `dir` (its users, notes and next ids), for the sqlite store to take over. */
function readJsonData(dir) {
  return load(jsonFile(dir));
}

module.exports = { openJsonStore, readJsonData, jsonFile };
