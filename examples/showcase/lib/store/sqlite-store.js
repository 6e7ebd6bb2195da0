'use strict';
// The same store over node:sqlite: one database file, prepared statements, an index per
// user so a page of notes does not scan everyone's.
const { closeSync, existsSync, openSync, renameSync } = require('node:fs');
const { join } = require('node:path');

const { jsonFile, readJsonData } = require('./json-store');

// AUTOINCREMENT: an id is never given again, as the JSON store never gives one again.
// Without it SQLite hands out the highest id anew once its row is deleted, and a Delete
// form sent twice, or an API client retrying a DELETE, removed the next note made.
const tables = {
  users: `(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    username TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    submission TEXT
  )`,
  notes: `(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id),
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    attachment TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    submission TEXT
  )`,
};

const indexes = `
  CREATE INDEX IF NOT EXISTS notes_by_user ON notes (user_id, id);
  -- The form a note was sent from, once per user (SQLite lets NULLs, the API's notes, repeat).
  CREATE UNIQUE INDEX IF NOT EXISTS notes_by_submission ON notes (user_id, submission);
`;

/** Brings a database made by an earlier version of the app up to the tables above. */
function migrate(db) {
  const columns = (table) =>
    db
      .prepare(`PRAGMA table_info(${table})`)
      .all()
      .map((column) => column.name);
  if (!columns('notes').includes('submission')) db.exec('ALTER TABLE notes ADD COLUMN submission TEXT');
  // The sign-up form that made the account (routes/account.js).
  if (!columns('users').includes('submission')) db.exec('ALTER TABLE users ADD COLUMN submission TEXT');
  // Tables made without AUTOINCREMENT are made again with it (SQLite cannot add it to a
  // table), their rows copied with their ids; SQLite then counts on from the highest.
  const made = (table) => db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table).sql;
  const rebuilt = ['users', 'notes'].filter((table) => !/AUTOINCREMENT/i.test(made(table)));
  if (rebuilt.length === 0) return;
  // Off while users is dropped: notes refer to it. Outside the transaction, where SQLite reads it.
  db.exec('PRAGMA foreign_keys = OFF');
  db.exec('BEGIN');
  try {
    for (const table of rebuilt) {
      const list = columns(table).join(', ');
      db.exec(`CREATE TABLE ${table}_rebuilt ${tables[table]}`);
      db.exec(`INSERT INTO ${table}_rebuilt (${list}) SELECT ${list} FROM ${table}`);
      db.exec(`DROP TABLE ${table}`);
      db.exec(`ALTER TABLE ${table}_rebuilt RENAME TO ${table}`);
    }
    db.exec('COMMIT');
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  } finally {
    db.exec('PRAGMA foreign_keys = ON');
  }
}

/**
 * The users and notes a JSON store kept in the same folder (the app ran on Node 20,
 * which has no node:sqlite, before this Node line), taken into a new database with
 * their ids, the next ids where the JSON store left them. The JSON file is then renamed
 * `showcase.json.imported`: kept, and not read again.
 */
function importJsonStore(db, dir) {
  const data = readJsonData(dir);
  const insertUser = db.prepare(
    'INSERT INTO users (id, username, password_hash, created_at, submission) VALUES (?, ?, ?, ?, ?)',
  );
  const insertNote = db.prepare(
    'INSERT INTO notes (id, user_id, title, body, attachment, created_at, updated_at, submission) ' +
      'VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const setNextId = db.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)');
  db.exec('BEGIN');
  try {
    for (const user of data.users)
      insertUser.run(user.id, user.username, user.passwordHash, user.createdAt, user.submission ?? null);
    for (const note of data.notes) {
      const attachment = note.attachment ? JSON.stringify(note.attachment) : null;
      insertNote.run(
        note.id,
        note.userId,
        note.title,
        note.body,
        attachment,
        note.createdAt,
        note.updatedAt,
        note.submission ?? null,
      );
    }
    db.prepare("DELETE FROM sqlite_sequence WHERE name IN ('users', 'notes')").run();
    setNextId.run('users', data.nextUserId - 1);
    setNextId.run('notes', data.nextNoteId - 1);
    db.exec('COMMIT');
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  }
  renameSync(jsonFile(dir), jsonFile(dir) + '.imported');
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
  const takesOverJson = !existsSync(file) && existsSync(jsonFile(dir));
  // The database holds password hashes: readable by the account that runs the app only.
  // SQLite would create it with the umask's mode (0644); an empty file is an empty
  // database, and SQLite gives its -wal and -shm files the database file's mode.
  closeSync(openSync(file, 'a', 0o600));
  const db = new sqlite.DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL');
  for (const [name, columns] of Object.entries(tables)) db.exec(`CREATE TABLE IF NOT EXISTS ${name} ${columns}`);
  migrate(db);
  db.exec(indexes);
  if (takesOverJson) importJsonStore(db, dir);
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

  /** `update`'s work, inside its transaction. */
  function updateNote(userId, id, changes) {
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
    return { note: noteFromRow(row), replaced: changes.attachment !== undefined ? note.attachment : null };
  }

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
      // As the JSON store's. The read and the write run in one transaction: another process
      // on the same file cannot change the attachment between them.
      async update(userId, id, changes) {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = updateNote(userId, id, changes);
          db.exec('COMMIT');
          return result;
        } catch (err) {
          db.exec('ROLLBACK');
          throw err;
        }
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
