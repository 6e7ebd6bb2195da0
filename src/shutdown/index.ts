/**
 * Graceful shutdown for any server that serves a webapp app: the one
 * `app.listen` returns, `http.createServer(app)`, https, and HTTP/2.
 *
 *   const server = webapp.graceful(app.listen(3000), { timeout: 10_000 });
 *
 * From then on `server.close()` drains instead of waiting: the server stops
 * accepting, a connection with no request in progress (new, or kept alive between
 * requests) gets a moment to send one (FRESH_CONNECTION_GRACE_MS), requests
 * in flight finish with their full response (sent with `Connection: close`, the
 * socket closes after it), HTTP/2 sessions get GOAWAY, and `timeout` ms later
 * whatever is left is destroyed. SIGTERM and SIGINT run that close and exit (code 0, 1 when
 * a shutdown hook fails, or the `process.exitCode` the app set).
 *
 * Why a wrapper around the server rather than a separate `shutdown(server)`:
 * a server cannot list its in-flight responses after the fact, so the
 * tracking must start before the first request; patching `close()` then lets
 * every existing caller (cluster's `worker.disconnect()`, a test's
 * `server.close()`, an orchestrator's hook) drain without knowing about it.
 */
import type { Server as NetServer } from 'node:net';
import { constants as osConstants } from 'node:os';
import { Drain, type AnyServer } from './drain';
import { onSignal } from './signals';

export interface GracefulOptions {
  /** Milliseconds after `close()` before remaining connections are destroyed (default 10000). */
  timeout?: number;
  /**
   * Signals that close the server and then exit (default SIGTERM and SIGINT; `[]` for none):
   * with code 0, 1 when `onShutdown` fails, or the `process.exitCode` the app set.
   */
  signals?: NodeJS.Signals[];
  /** Runs once the server has closed, before the exit on a signal (close database pools here). */
  onShutdown?: () => void | Promise<void>;
  /**
   * Runs when the drain begins (`server.close()`, a signal): end here what only the app
   * can end, WebSockets (a close frame) and never-ending responses (event streams). The
   * server closes, and `onShutdown` runs, once every connection has, or at `timeout`.
   * An `async` one is not waited for; its rejection is reported, as a throw is.
   */
  onDrain?: () => void | Promise<void>;
  /**
   * Milliseconds a connection with no request in progress may stay open once the
   * drain has begun, for the request a client may have sent already (default 100).
   */
  idleGrace?: number;
}

const kGraceful = Symbol('webapp.graceful');
const DEFAULT_TIMEOUT = 10_000;

/**
 * How long a connection with no request in progress may stay open once the drain
 * has begun, unless `idleGrace` says otherwise. Why not close it at once, as Node's
 * `close()` does: a client that connected just before the close, or that reuses a
 * kept-alive connection, has usually sent its request already, and the server has
 * not read it yet (its bytes are in the socket buffer); closing then resets a request
 * that was on time (under keep-alive load, one per connection). One that sends
 * nothing (a preconnect, a pool's spare, an idle keep-alive connection) is closed
 * when this has passed.
 */
const FRESH_CONNECTION_GRACE_MS = 100;

/** How many connections the server has open now (net.Server's count), or undefined where it keeps none. */
function connectionCount(server: AnyServer): number | undefined {
  const count = (server as { _connections?: unknown })._connections;
  return typeof count === 'number' ? count : undefined;
}

/** Runs `fn` with the server's `closeIdleConnections` a no-op, then gives the server its own back. */
function withoutIdleClosing(server: AnyServer, fn: () => void): void {
  const own = Object.getOwnPropertyDescriptor(server, 'closeIdleConnections');
  server.closeIdleConnections = () => {};
  try {
    fn();
  } finally {
    if (own) Object.defineProperty(server, 'closeIdleConnections', own);
    else delete server.closeIdleConnections;
  }
}

/** The longest delay a timer takes: Node runs a longer one after 1 ms (TimeoutOverflowWarning). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A duration option: its value, or `fallback` when not given; anything but a number >= 0
 * throws. One past what a timer takes (about 24.8 days) is that: given as is, the
 * deadline would come after 1 ms and cut every request in flight.
 */
function milliseconds(option: string, value: number | undefined, fallback: number): number {
  const ms = value ?? fallback;
  if (!Number.isFinite(ms) || ms < 0)
    throw new TypeError(`graceful(): ${option} must be a number of milliseconds >= 0`);
  return Math.min(ms, MAX_TIMER_MS);
}

/**
 * The `signals` option: the default, or names of signals the process can catch. Checked
 * here: an unknown name would never come, and SIGKILL or SIGSTOP (which no process can
 * catch) threw from the server's `listening` event, where the signals are taken, and
 * ended the process as it started.
 */
function catchableSignals(signals: NodeJS.Signals[] | undefined): NodeJS.Signals[] {
  if (signals === undefined) return ['SIGTERM', 'SIGINT'];
  if (!Array.isArray(signals)) throw new TypeError('graceful(): signals must be an array of signal names');
  for (const signal of signals) {
    if (typeof signal !== 'string' || !Object.hasOwn(osConstants.signals, signal))
      throw new TypeError(`graceful(): ${String(signal)} is not a signal name`);
    if (signal === 'SIGKILL' || signal === 'SIGSTOP') throw new TypeError(`graceful(): ${signal} cannot be caught`);
  }
  return signals;
}

/**
 * Makes `server.close()` a graceful drain with a deadline, and (unless
 * `signals: []`) closes the server and exits on SIGTERM/SIGINT (code 0 unless a hook fails).
 * Returns the same server, so it wraps `app.listen(...)` in one line.
 */
export function graceful<S extends NetServer>(server: S, options: GracefulOptions = {}): S {
  const target = server as AnyServer & { [kGraceful]?: Drain };
  if (target[kGraceful]) return server;
  const timeout = milliseconds('timeout', options.timeout, DEFAULT_TIMEOUT);
  const idleGrace = milliseconds('idleGrace', options.idleGrace, FRESH_CONNECTION_GRACE_MS);
  if (options.onDrain !== undefined && typeof options.onDrain !== 'function')
    throw new TypeError('graceful(): onDrain must be a function');
  if (options.onShutdown !== undefined && typeof options.onShutdown !== 'function')
    throw new TypeError('graceful(): onShutdown must be a function');
  const signals = catchableSignals(options.signals);
  const drain = new Drain(target, timeout, idleGrace, connectionCount(target) !== 0, options.onDrain);
  target[kGraceful] = drain;
  drain.track();

  const closeServer = target.close;
  target.close = function close(this: AnyServer, callback?: (err?: Error) => void) {
    // Node's http close() first closes every connection without a request in
    // progress, fresh ones included; the drain does that itself, a moment later.
    withoutIdleClosing(this, () => closeServer.call(this, callback));
    drain.begin();
    return this;
  };

  for (const signal of signals) onSignal(signal, target, { hook: options.onShutdown, closed: () => drain.closed() });
  return server;
}
