/**
 * One listener per signal for the whole process: on SIGTERM (or another chosen
 * signal) every server registered for it closes gracefully, the shutdown hooks
 * run, and the process exits with code 0 (1 when a hook fails; the app's own
 * `process.exitCode` when it set one). Servers share
 * the listener so two graceful servers do not race each other to `exit()`.
 */
import type { Cluster } from 'node:cluster';
import type { Server as NetServer } from 'node:net';

type Hook = (() => void | Promise<void>) | undefined;

/** What a signal does for one server. */
export interface SignalTarget {
  /** The shutdown hook, run once every server has closed. */
  hook: Hook;
  /** Closes the server (or waits for the close under way) and resolves once it and its connections have closed. */
  closed: () => Promise<void>;
}

interface Registration {
  servers: Map<NetServer, SignalTarget>;
  listener: () => void;
}

const registered = new Map<NodeJS.Signals, Registration>();
let shuttingDown = false;
/** The servers have closed, and the shutdown hooks (or the cluster's pause) run. */
let hooksRunning = false;

/**
 * How long a node:cluster worker stays connected to its primary after its servers
 * have closed, before it exits. Why: under round-robin scheduling (Node's default
 * except on Windows) the primary accepts each connection and hands it to a worker
 * over IPC, and it goes on doing so until it has read the worker's notice that the
 * server closed. A connection handed over in that moment reaches a worker whose
 * server is gone: a live worker refuses it and the primary gives it to another
 * one, but once the worker has exited nobody answers, and Node's primary keeps the
 * connection open without ever serving it. Node sends no acknowledgement of the
 * notice, so the worker waits for the time the primary needs to read it.
 */
const CLUSTER_HANDOFF_GRACE_MS = 250;

/** Whether this process is a node:cluster worker still connected to its primary. */
function isConnectedClusterWorker(): boolean {
  // Only a process with an IPC channel can be a worker: others never load node:cluster here.
  return process.connected === true && (require('node:cluster') as Cluster).isWorker;
}

/**
 * Takes `signal` for `server` while it listens. Not before: the registry is the
 * process's, and a server that never listens (built by a test that then calls the app
 * itself) or whose listen fails (EADDRINUSE) emits no `close`, so it would stay in the
 * registry with its app for the life of the process, and the signal with it.
 */
export function onSignal(signal: NodeJS.Signals, server: NetServer, target: SignalTarget): void {
  if (server.listening) register(signal, server, target);
  // First among the `listening` listeners: before the callback of `app.listen(port, cb)`,
  // which tells the world (a supervisor, a readiness log) the server is up.
  server.prependListener('listening', () => register(signal, server, target));
  // A server closed by other means no longer needs the signal; once none is left, the
  // signal gets its default meaning back. Listening again, it needs it again.
  server.on('close', () => unregister(signal, server));
}

function register(signal: NodeJS.Signals, server: NetServer, target: SignalTarget): void {
  let registration = registered.get(signal);
  if (!registration) {
    const listener = () => void shutDown(signal);
    registration = { servers: new Map(), listener };
    registered.set(signal, registration);
    process.on(signal, listener);
  }
  registration.servers.set(server, target);
}

function unregister(signal: NodeJS.Signals, server: NetServer): void {
  const registration = registered.get(signal);
  if (shuttingDown || !registration) return;
  registration.servers.delete(server);
  if (registration.servers.size === 0) {
    registered.delete(signal);
    process.off(signal, registration.listener);
  }
}

async function shutDown(signal: NodeJS.Signals): Promise<void> {
  // A second signal while draining changes nothing: the deadline already bounds the wait,
  // and a supervisor that repeats SIGTERM must not cut the requests in flight. Nothing
  // bounds the hooks: one that never settles (a pool whose close stalls) would leave the
  // process deaf to every signal, Ctrl-C included, so a second signal then exits at once.
  if (hooksRunning) {
    console.error(`webapp: ${signal} while the shutdown hooks run: exiting without waiting for them`);
    process.exit(1);
  }
  if (shuttingDown) return;
  shuttingDown = true;
  const servers = [...(registered.get(signal)?.servers ?? [])];
  let code = 0;
  // A server already closing (cluster's `worker.disconnect()`, the app's own close())
  // is waited for too: exiting when its listener closed would cut its requests.
  await Promise.all(servers.map(([, target]) => target.closed()));
  hooksRunning = true;
  for (const [, { hook }] of servers) {
    try {
      await hook?.();
    } catch (err) {
      console.error('webapp: shutdown hook failed:', err);
      code = 1;
    }
  }
  if (isConnectedClusterWorker()) await new Promise((resolve) => setTimeout(resolve, CLUSTER_HANDOFF_GRACE_MS));
  // A failure the app recorded itself (`process.exitCode = 3`) is kept: exiting with 0
  // would tell the supervisor all went well.
  const own = Number(process.exitCode ?? 0);
  process.exit(code === 0 && Number.isInteger(own) && own !== 0 ? own : code);
}
