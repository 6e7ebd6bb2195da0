'use strict';
// Embedded storage that needs no set-up and keeps data across restarts.
// node:sqlite where this Node line has it (22.13+, 24+: transactions, indexes, one file),
// else a JSON file rewritten atomically (Node 20 has no embedded database, and a native
// addon would need a compiler on every machine the app is installed on).
const { mkdirSync } = require('node:fs');
const { openJsonStore } = require('./json-store');

function sqliteModule() {
  try {
    return withoutSqliteWarning(() => require('node:sqlite'));
  } catch {
    return undefined; // Node 20, or 22 before the module left its flag.
  }
}

/**
 * Node 22 and 24 print "ExperimentalWarning: SQLite is an experimental feature" when
 * node:sqlite is first loaded. The app chose it knowingly and the operator can do
 * nothing about it, so that one warning is left out; every other warning still prints.
 */
function withoutSqliteWarning(load) {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    const type = typeof rest[0] === 'string' ? rest[0] : rest[0]?.type;
    if (type === 'ExperimentalWarning' && String(warning).startsWith('SQLite')) return;
    return emitWarning.call(process, warning, ...rest);
  };
  try {
    return load();
  } finally {
    process.emitWarning = emitWarning;
  }
}

/**
 * Opens the store kept in `dir`. `kind` forces 'sqlite' or 'json' (tests run both);
 * by default the best one this Node line offers.
 */
function openStore(dir, kind = sqliteModule() ? 'sqlite' : 'json') {
  // Only the account that runs the app may list or read the data (a folder that exists keeps its mode).
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (kind === 'sqlite') {
    const sqlite = sqliteModule();
    if (!sqlite) throw new Error('node:sqlite is not available on Node ' + process.versions.node);
    return require('./sqlite-store').openSqliteStore(sqlite, dir);
  }
  if (kind === 'json') return openJsonStore(dir);
  throw new Error(`unknown store kind ${kind}`);
}

module.exports = { openStore, sqliteAvailable: () => sqliteModule() !== undefined };
