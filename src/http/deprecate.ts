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
  if (!own.endsWith(sep + 'cjs')) return [own + sep];
  // dist/esm spelled by slicing, not with a path function: file tracers (Vercel's nft,
  // ncc) evaluate `resolve(<this folder>, '../esm')` and ship that whole folder with every
  // app, and through its entries the 3.x layer, the middleware bundle and webapp/otel
  // (whose missing optional peer they then warn about).
  return [own + sep, own.slice(0, -'cjs'.length) + 'esm' + sep];
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

/**
 * One frame above the deprecated call: V8's call site, or, under `--frozen-intrinsics`
 * where `Error` cannot be changed, its line of V8's own text.
 */
type Frame = NodeJS.CallSite | string;

/** Where a frame's code is: its file (a path or a `file:` URL), line and column. */
interface Location {
  file: string;
  line: number;
  column: number;
}

/** A frame as V8 writes it in a stack: `    at fn (file:line:column)`. */
function lineOf(frame: Frame): string {
  return typeof frame === 'string' ? frame : `    at ${String(frame)}`;
}

/** The location at the end of a frame's line; null for one without (`at Array.map (<anonymous>)`). */
function locationOfLine(line: string): Location | null {
  const match = /\(?([^()\s]+):(\d+):(\d+)\)?$/.exec(line.trim());
  return match === null ? null : { file: match[1], line: Number(match[2]), column: Number(match[3]) };
}

/**
 * A frame's location. A call site's is read from it, without writing the frame as text:
 * the same file, line and column as its text ends with (V8 writes the script's name or
 * `//# sourceURL`). Code run by `eval` and frames without a script fall back to the text.
 */
function locationOf(frame: Frame): Location | null {
  if (typeof frame !== 'string' && !frame.isEval()) {
    const file = frame.getScriptNameOrSourceURL();
    const line = frame.getLineNumber();
    const column = frame.getColumnNumber();
    if (file && line !== null && column !== null) return { file, line, column };
  }
  return locationOfLine(lineOf(frame));
}

/** Whether a frame is webapp's own code or Node's, not the app's. */
function isOwnOrNodeFrame(frame: Frame): boolean {
  const location = locationOf(frame);
  if (location === null) return true;
  const file = fileOf(location.file);
  return file.startsWith('node:') || libraryDirs.some((dir) => file.startsWith(dir));
}

/**
 * Frames captured to find the caller's line, which is nearly always among the first few
 * (the app's handler calls `req.param`, and `deprecate` is one or two calls below it).
 * A deprecated API runs its check on every call, long after its notice printed: an app
 * of the Express 3 era calls `req.param` several times a request, so each capture counts.
 */
const FRAMES_TO_CALLER = 10;
/** Enough frames to get past webapp's own (a notice from a view engine's callback is deep), and the stack printed. */
const FRAMES_OF_STACK = 40;

/** The frames from the app's line that called the deprecated API on (`deprecate` itself left out). */
function callerFrames(limit: number): Frame[] {
  const frames = framesAbove(deprecate, limit);
  const first = frames.findIndex((frame) => !isOwnOrNodeFrame(frame));
  return first === -1 ? [] : frames.slice(first);
}

/**
 * The frames above `below`, at least `limit` of them (more where the process's limit is
 * higher), as V8's call sites under a `prepareStackTrace` of our own, as depd reads them:
 * whatever the process's own `Error.prepareStackTrace` writes (an APM agent's or a
 * tool's may return call sites or an object, throw, or write frames in its own format;
 * Node's under `--enable-source-maps` names the source file) does not change the line
 * named. Under `--frozen-intrinsics`, where `Error` cannot be changed, the lines of V8's
 * own text of as many frames as the process's limit allows.
 */
function framesAbove(below: (...args: never[]) => unknown, limit: number): Frame[] {
  const sites = callSitesAbove(below, limit);
  if (sites !== undefined) return sites;
  const holder: { stack?: unknown } = {};
  Error.captureStackTrace(holder, below);
  return typeof holder.stack === 'string' ? holder.stack.split('\n').slice(1) : [];
}

/** V8's call sites above `below`; undefined when `Error` cannot be changed. */
function callSitesAbove(below: (...args: never[]) => unknown, limit: number): NodeJS.CallSite[] | undefined {
  const prepare = Error.prepareStackTrace;
  const processLimit = Error.stackTraceLimit;
  try {
    Error.prepareStackTrace = (_error, sites) => sites;
  } catch {
    return undefined;
  }
  try {
    Error.stackTraceLimit = typeof processLimit === 'number' && processLimit > limit ? processLimit : limit;
    const holder: { stack?: unknown } = {};
    Error.captureStackTrace(holder, below);
    return Array.isArray(holder.stack) ? (holder.stack as NodeJS.CallSite[]) : [];
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = processLimit;
  }
}

/** The caller's line, as depd names it: the file relative to the working directory. */
function siteOf(caller: readonly Frame[]): string {
  const location = caller.length > 0 ? locationOf(caller[0]) : null;
  if (location === null) return '<anonymous>';
  return `${relative(process.cwd(), fileOf(location.file))}:${location.line}:${location.column}`;
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
  let caller = callerFrames(FRAMES_TO_CALLER);
  if (caller.length === 0) caller = callerFrames(FRAMES_OF_STACK);
  const site = siteOf(caller);
  const key = kind + '\0' + site;
  if (seen.has(key)) return;
  seen.add(key);
  const showStack = listening || traced(namespace);
  // A notice printed once per site may show the caller's whole stack: captured again, deeper.
  const stack = showStack ? callerFrames(FRAMES_OF_STACK).map(lineOf) : [];
  if (listening) {
    process.emit('deprecation' as 'warning', new DeprecationError(message, namespace, stack));
    return;
  }
  const where = showStack ? stack.map((line) => '\n' + line.trimEnd()).join('') : ` at ${site}`;
  process.stderr.write(`${new Date().toUTCString()} ${namespace} deprecated ${message}${where}\n`);
}
