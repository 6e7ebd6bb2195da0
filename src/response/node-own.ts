/**
 * Node's own response methods as webapp found them at load, told apart from patches
 * put in their place before (`node -r ./secure-cookies.js app.js`, an agent
 * preloaded with `-r`, as dd-trace's `init` wraps `end` and `writeHead`). webapp
 * skips work where only Node's own code would see it (a string body kept as a string,
 * the head not looked at before `end`); a patch there at load must count as code
 * that sees it, as one put there later does.
 */
import { OutgoingMessage, ServerResponse } from 'node:http';

/** A response method, as found on the prototype. */
export type Method = (this: ServerResponse, ...args: never[]) => unknown;

/** Node's own header slot (`Symbol(kOutHeaders)`), found on a fresh message. */
function findOutHeadersSymbol(): symbol | undefined {
  const probe = new OutgoingMessage();
  return Object.getOwnPropertySymbols(probe).find((symbol) => symbol.description === 'kOutHeaders');
}

export const kOutHeaders = findOutHeadersSymbol();

/**
 * Frames the probe captures: the whole stack at load, however deep a loader nests it.
 * An integer V8 stores as a small integer, never `Infinity`: one double stored in
 * `Error.stackTraceLimit`, even put back at once, changes how V8 holds that field of
 * `Error`, and from then on optimized code of the whole process gives up its fast
 * `instanceof Error` (Node's HTTP parser asks one per request): 13 ns each instead of
 * 1.2 (bench/README.md, "`instanceof Error` after a probe").
 */
const PROBE_STACK_LIMIT = 100_000;

/** Thrown by the probe's slots to stop a method being probed once it reached one. */
const PROBED = Symbol('probed');

/**
 * Whether `method` is Node's own: called on a probe, it reads the header slot or
 * `_header` (each of Node's header methods, `writeHead` and `end` without a body do
 * so first) with only Node's code on the stack between the read and the call here.
 * A patch either never reaches the slot or puts its own frame in between, a
 * wrapper's file.
 */
function isNodeOwn(method: Method, ...args: unknown[]): boolean {
  const saved = Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace');
  const limit = Error.stackTraceLimit;
  let defined = false;
  let reachedFromNode = false;
  try {
    // Defined, not assigned, and put back the same way: an accessor there (error-callsites,
    // which elastic-apm-node loads) keeps an assigned function in a slot of its own and
    // reads back its own wrapper, so an assignment could not be put back: ours stayed in
    // its slot, and every `err.stack` in the process became a list of call sites.
    Object.defineProperty(Error, 'prepareStackTrace', { value: returnFrames, writable: true, configurable: true });
    defined = true;
    Error.stackTraceLimit = PROBE_STACK_LIMIT;
    const callers = callSites(isNodeOwn).length;
    const read = (): never => {
      // The method's frames: those above this probe's caller (isNodeOwn, then its callers).
      const frames = callSites(read);
      const methodFrames = frames.slice(0, frames.length - callers - 1);
      reachedFromNode =
        methodFrames.length > 0 && methodFrames.every((frame) => frame.getFileName()?.startsWith('node:'));
      throw PROBED;
    };
    const probe = Object.defineProperties({}, { _header: { get: read }, [kOutHeaders ?? PROBED]: { get: read } });
    method.apply(probe as ServerResponse, args as never[]);
  } catch {
    // PROBED, or whatever a patch threw on the probe: reachedFromNode says which. Under
    // --frozen-intrinsics the definition throws: nothing changed, and the method is taken
    // for a patch (slower, the same answers).
  } finally {
    if (defined) {
      if (saved) Object.defineProperty(Error, 'prepareStackTrace', saved);
      else delete (Error as { prepareStackTrace?: unknown }).prepareStackTrace;
    }
    if (Error.stackTraceLimit !== limit) Error.stackTraceLimit = limit;
  }
  return reachedFromNode;
}

/** A `prepareStackTrace` that leaves V8's call sites as they are. */
function returnFrames(_error: Error, frames: NodeJS.CallSite[]): NodeJS.CallSite[] {
  return frames;
}

/** The stack above `below`, as V8's call sites (Error.prepareStackTrace set to return them). */
function callSites(below: (...args: never[]) => unknown): NodeJS.CallSite[] {
  const trace: { stack?: NodeJS.CallSite[] } = {};
  Error.captureStackTrace(trace, below);
  return trace.stack ?? [];
}

/**
 * The method responses inherit under `name` when it is Node's own, called with `args`
 * to find out; none (never equal to a response's method) when it is a patch. A patch
 * named otherwise is not called to find out (it may count or log its calls).
 */
export function nodeOwnOrNone(
  name: 'setHeader' | 'getHeader' | 'removeHeader' | 'writeHead' | 'end',
  ...args: unknown[]
) {
  const method = (ServerResponse.prototype as unknown as Record<string, Method>)[name];
  return method.name === name && isNodeOwn(method, ...args) ? method : undefined;
}
