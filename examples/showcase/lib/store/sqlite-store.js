'use strict';
// The same store over node:sqlite: one database file, prepared statements, an index per
// user so a page of notes does not scan everyone's.
const { closeSync, openSync } = require('node:fs');
const { join } = require('node:path');

const schema = `
  CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY,
    username TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    submission TEXT
  );
  CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    attachment TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    submission TEXT
  );
  CREATE INDEX IF NOT EXISTS notes_by_user ON notes (user_id, id);
`;

/** Brings a database made before a column was added up to the schema above. */
function migrate(db) {
  const hasSubmission = (table) =>
    db
      .prepare(`PRAGMA table_info(${table})`)
      .all()
      .some((column) => column.name === 'submission');
  if (!hasSubmission('notes')) db.exec('ALTER TABLE notes ADD COLUMN submission TEXT');
  // The sign-up form that made the account (routes/account.js).
  if (!hasSubmission('users')) db.exec('ALTER TABLE users ADD COLUMN submission TEXT');
  // The form a note was sent from, once per user (SQLite lets NULLs, the API's notes, repeat).
  db.exec('CREATE UNIQUE INDEX IF NOT EXISTS notes_by_submission ON notes (user_id, submission)');
}

function userFromRow(row) {
  return (
    row && {
      id: row.id,
      username: row.username,
      passwordHash: row.password_hash,
      submission: row.submission,
      createdAt: row.created_at,
    }
  );
}

function noteFromRow(row) {
  return (
    row && {
      id: row.id,
      userId: row.user_id,
      title: row.title,
      body: row.body,
      attachment: row.attachment === null ? null : JSON.parse(row.attachment),
      submission: row.submission,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }
  );
}

function openSqliteStore(sqlite, dir) {
  const file = join(dir, 'showcase.sqlite');
  // The database holds password hashes: readable by the account that runs the app only.
  // SQLite would create it with the umask's mode (0644); an empty file is an empty
  // database, and SQLite gives its -wal and -shm files the database file's mode.
  closeSync(openSync(file, 'a', 0o600));
  const db = new sqlite.DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec(schema);
  migrate(db);
  const statements = {
    insertUser: db.prepare(
      'INSERT INTO users (username, password_hash, submission, created_at) VALUES (?, ?, ?, ?) RETURNING *',
    ),
    userById: db.prepare('SELECT * FROM users WHERE id = ?'),
    userByName: db.prepare('SELECT * FROM users WHERE username = ?'),
    page: db.prepare('SELECT * FROM notes WHERE user_id = ? ORDER BY id DESC LIMIT ? OFFSET ?'),
    count: db.prepare('SELECT COUNT(*) AS total FROM notes WHERE user_id = ?'),
    note: db.prepare('SELECT * FROM notes WHERE user_id = ? AND id = ?'),
    // A second note from the same form inserts nothing and returns no row.
    insertNote: db.prepare(
      'INSERT INTO notes (user_id, title, body, attachment, submission, created_at, updated_at) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, submission) DO NOTHING RETURNING *',
    ),
    noteBySubmission: db.prepare('SELECT * FROM notes WHERE user_id = ? AND submission = ?'),
    updateNote: db.prepare(
      'UPDATE notes SET title = ?, body = ?, attachment = ?, updated_at = ? WHERE user_id = ? AND id = ? RETURNING *',
    ),
    deleteNote: db.prepare('DELETE FROM notes WHERE user_id = ? AND id = ? RETURNING *'),
  };
  const attachmentColumn = (attachment) => (attachment ? JSON.stringify(attachment) : null);

  return {
    kind: 'sqlite',
    users: {
      async create({ username, passwordHash, submission = null }) {
        if (statements.userByName.get(username))
          throw Object.assign(new Error('username taken'), { code: 'USERNAME_TAKEN' });
        return userFromRow(statements.insertUser.get(username, passwordHash, submission, new Date().toISOString()));
      },
      async findById(id) {
        return userFromRow(statements.userById.get(id));
      },
      async findByUsername(username) {
        return userFromRow(statements.userByName.get(username));
      },
    },
    notes: {
      async list(userId, { offset, limit }) {
        return {
          items: statements.page.all(userId, limit, offset).map(noteFromRow),
          total: statements.count.get(userId).total,
        };
      },
      async get(userId, id) {
        return noteFromRow(statements.note.get(userId, id));
      },
      /** A second note from the same `submission` (a form's id) is refused by the unique index: SUBMISSION_TAKEN. */
      async create(userId, { title, body, attachment = null, submission = null }) {
        const now = new Date().toISOString();
        const row = statements.insertNote.get(userId, title, body, attachmentColumn(attachment), submission, now, now);
        if (!row) throw Object.assign(new Error('form already submitted'), { code: 'SUBMISSION_TAKEN' });
        return noteFromRow(row);
      },
      async findBySubmission(userId, submission) {
        return noteFromRow(statements.noteBySubmission.get(userId, submission));
      },
      async update(userId, id, changes) {
        const note = noteFromRow(statements.note.get(userId, id));
        if (!note) return undefined;
        const next = { ...note };
        for (const key of ['title', 'body', 'attachment']) if (changes[key] !== undefined) next[key] = changes[key];
        const row = statements.updateNote.get(
          next.title,
          next.body,
          attachmentColumn(next.attachment),
          new Date().toISOString(),
          userId,
          id,
        );
        return noteFromRow(row);
      },
      async remove(userId, id) {
        return noteFromRow(statements.deleteNote.get(userId, id));
      },
    },
    close() {
      db.close();
    },
  };
}

module.exports = { openSqliteStore };
