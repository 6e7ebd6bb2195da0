/**
 * Deprecation notices worded as Express's (depd) are, under webapp's name:
 *   "<date> webapp deprecated res.send(status): Use res.sendStatus(status) instead at lib/app.js:12:7"
 * Each notice prints once per call site. `--no-deprecation` and NO_DEPRECATION=webapp (or express) silence it;
 * `--trace-deprecation` and TRACE_DEPRECATION print the stack instead of the site; and where the process has
 * `deprecation` listeners, the notice goes to them as a DeprecationError instead of stderr, as depd does.
 */
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const seen = new Set<string>();

/**
 * webapp's own code (src/, or dist/cjs/ and the ES module entries beside it in dist/esm/,
 * whose forwarders call the members an `import` names), whose frames are not the
 * caller's: found from this module's folder, when the module sits where the package puts
 * it. Bundled into an app's own file (esbuild, webpack, ncc; an ES module bundle has no
 * `__dirname` at all), its frames cannot be told from the app's, and the first frame
 * outside this module is named, as depd names a line of the bundle.
 */
const libraryDirs = ((): string[] => {
  if (typeof __dirname !== 'string' || typeof __filename !== 'string') return [];
  const inPackage = /[\\/](src|dist[\\/]cjs)[\\/](http[\\/]deprecate\.[jt]s|core\.js)$/.test(__filename);
  if (!inPackage) return [];
  const own = resolve(dirname(__filename), __filename.endsWith('core.js') ? '.' : '..');
  return own.endsWith(sep + 'cjs') ? [own + sep, resolve(own, '../esm') + sep] : [own + sep];
})();

/**
 * The names a notice answers to in NO_DEPRECATION and TRACE_DEPRECATION. webapp's own
 * also answer to `express`: a deployment that silenced Express's keeps them silent
 * after swapping the package.
 */
function namesOf(namespace: string): string[] {
  return namespace === 'webapp' ? ['webapp', 'express'] : [namespace.toLowerCase()];
}

function silenced(namespace: string): boolean {
  return process.noDeprecation || listed(process.env.NO_DEPRECATION, namesOf(namespace));
}

function traced(namespace: string): boolean {
  return process.traceDeprecation || listed(process.env.TRACE_DEPRECATION, namesOf(namespace));
}

/** A stack frame's file: a path, or an ES module's `file:` URL. */
function fileOf(location: string): string {
  return location.startsWith('file://') ? fileURLToPath(location) : location;
}

/** A stack frame's location: `file:line:column`, the function's name left out. */
function locationOf(line: string): RegExpExecArray | null {
  return /\(?([^()\s]+):(\d+):(\d+)\)?$/.exec(line.trim());
}

/** Whether a frame is webapp's own code or Node's, not the app's. */
function isOwnOrNodeFrame(line: string): boolean {
  const location = locationOf(line);
  if (location === null) return true;
  const file = fileOf(location[1]);
  return file.startsWith('node:') || libraryDirs.some((dir) => file.startsWith(dir));
}

/** The stack from the user's line that called the deprecated API on (`deprecate` itself left out). */
function callerStack(): string[] {
  const frames = stackAbove(deprecate);
  const first = frames.findIndex((line) => !isOwnOrNodeFrame(line));
  return first === -1 ? [] : frames.slice(first);
}

/**
 * The frames above `below`, one line each as V8 writes them (`    at fn (file:line:column)`),
 * made from V8's call sites under a `prepareStackTrace` of our own, as depd makes them:
 * whatever the process's own `Error.prepareStackTrace` writes (an APM agent's or a tool's
 * may return call sites or an object, throw, or write frames in its own format; Node's
 * under `--enable-source-maps` names the source file) does not change the line named.
 * Under `--frozen-intrinsics`, where `Error` cannot be changed, V8's own text of as many
 * frames as the process's limit allows.
 */
function stackAbove(below: (...args: never[]) => unknown): string[] {
  const sites = callSitesAbove(below);
  if (sites !== undefined) return sites.map((site) => `    at ${String(site)}`);
  const holder: { stack?: unknown } = {};
  Error.captureStackTrace(holder, below);
  return typeof holder.stack === 'string' ? holder.stack.split('\n').slice(1) : [];
}

/** V8's call sites above `below`; undefined when `Error` cannot be changed. */
function callSitesAbove(below: (...args: never[]) => unknown): NodeJS.CallSite[] | undefined {
  const prepare = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  try {
    Error.prepareStackTrace = (_error, sites) => sites;
  } catch {
    return undefined;
  }
  try {
    // Enough frames to get past webapp's own (a notice from a view engine's callback is deep).
    Error.stackTraceLimit = typeof limit === 'number' && limit > 40 ? limit : 40;
    const holder: { stack?: unknown } = {};
    Error.captureStackTrace(holder, below);
    return Array.isArray(holder.stack) ? (holder.stack as NodeJS.CallSite[]) : [];
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = limit;
  }
}

/** The caller's line, as depd names it: the file relative to the working directory. */
function siteOf(stack: readonly string[]): string {
  const location = stack.length > 0 ? locationOf(stack[0]) : null;
  if (location === null) return '<anonymous>';
  return `${relative(process.cwd(), fileOf(location[1]))}:${location[2]}:${location[3]}`;
}

/** Whether a variable lists one of `names`, as depd reads it: separated by spaces or commas, any case, `*` for all. */
function listed(variable: string | undefined, names: readonly string[]): boolean {
  for (const name of (variable ?? '').split(/[ ,]+/)) {
    if (name === '*' || names.includes(name.toLowerCase())) return true;
  }
  return false;
}

/** What a `deprecation` listener receives, shaped as depd's: name, message, namespace, stack. */
class DeprecationError extends Error {
  constructor(
    message: string,
    readonly namespace: string,
    frames: readonly string[],
  ) {
    super(message);
    Object.defineProperty(this, 'name', { value: 'DeprecationError', writable: true, configurable: true });
    Object.defineProperty(this, 'namespace', { enumerable: false });
    this.stack = [`DeprecationError: ${namespace} deprecated ${message}`, ...frames.map((line) => line.trimEnd())].join(
      '\n',
    );
  }
}

/**
 * Prints `message` once per call site and `kind` of notice (by default the message
 * itself). A message that quotes a value the client may choose (`res.status(req.query.code)`)
 * needs a `kind` of its own: keyed by message, each new value would print again and be
 * remembered for good. depd keys on the line of the `deprecate` call in Express, so
 * Express prints such a notice once per caller, with the first value it saw.
 */
export function deprecate(message: string, namespace = 'webapp', kind = message): void {
  const listening = process.listenerCount('deprecation') > 0;
  if (!listening && silenced(namespace)) return;
  const stack = callerStack();
  const site = siteOf(stack);
  const key = kind + '\0' + site;
  if (seen.has(key)) return;
  seen.add(key);
  if (listening) {
    process.emit('deprecation' as 'warning', new DeprecationError(message, namespace, stack));
    return;
  }
  const where = traced(namespace) ? stack.map((line) => '\n' + line.trimEnd()).join('') : ` at ${site}`;
  process.stderr.write(`${new Date().toUTCString()} ${namespace} deprecated ${message}${where}\n`);
}
