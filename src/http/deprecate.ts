/**
 * Deprecation notices worded as Express's (depd) are, under webapp's name:
 *   "<date> webapp deprecated res.send(status): Use res.sendStatus(status) instead at lib/app.js:12:7"
 * Each notice prints once per call site. `--no-deprecation` and NO_DEPRECATION=webapp (or express) silence it.
 */
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const seen = new Set<string>();
/** webapp's own code (src/ or dist/cjs/): frames inside it are not the caller's. */
const libraryDir = resolve(__dirname, '..');

/**
 * NO_DEPRECATION as depd reads it (names separated by spaces or commas, in any case,
 * `*` for all). webapp's own notices also answer to `express`: a deployment that
 * silenced Express's keeps them silent after swapping the package.
 */
function silenced(namespace: string): boolean {
  if (process.noDeprecation) return true;
  const names = namespace === 'webapp' ? ['webapp', 'express'] : [namespace.toLowerCase()];
  for (const name of (process.env.NO_DEPRECATION ?? '').split(/[ ,]+/)) {
    if (name === '*' || names.includes(name.toLowerCase())) return true;
  }
  return false;
}

/** A stack frame's file: a path, or an ES module's `file:` URL. */
function fileOf(location: string): string {
  return location.startsWith('file://') ? fileURLToPath(location) : location;
}

/** The first stack frame outside webapp's own code: the user's line that called the deprecated API. */
function callSite(): string {
  const stack = new Error().stack?.split('\n').slice(1) ?? [];
  for (const line of stack) {
    const frame = line.trim().replace(/^at\s+/, '');
    if (frame.includes(libraryDir) || frame.startsWith('node:')) continue;
    const match = /\(?([^()]+):(\d+):(\d+)\)?$/.exec(frame);
    // The file relative to the working directory, as depd names it.
    if (match) return `${relative(process.cwd(), fileOf(match[1]))}:${match[2]}:${match[3]}`;
  }
  return '<anonymous>';
}

/**
 * Prints `message` once per call site and `kind` of notice (by default the message
 * itself). A message that quotes a value the client may choose (`res.status(req.query.code)`)
 * needs a `kind` of its own: keyed by message, each new value would print again and be
 * remembered for good. depd keys on the line of the `deprecate` call in Express, so
 * Express prints such a notice once per caller, with the first value it saw.
 */
export function deprecate(message: string, namespace = 'webapp', kind = message): void {
  if (silenced(namespace)) return;
  const site = callSite();
  const key = kind + '\0' + site;
  if (seen.has(key)) return;
  seen.add(key);
  process.stderr.write(`${new Date().toUTCString()} ${namespace} deprecated ${message} at ${site}\n`);
}
