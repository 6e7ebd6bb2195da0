/**
 * Runs a callback once when an HTTP message is done: a response finished
 * writing, a request was fully read, or the connection under either closed or
 * failed first (a client that went away). File sending relies on it to close
 * its descriptor on every path.
 */
import { OutgoingMessage, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { inCallerContext } from './async-context';
import { defer } from './defer';

export type FinishedListener<T> = (err: Error | null | undefined, msg: T) => void;

type Message = (IncomingMessage | OutgoingMessage) & { upgrade?: boolean };

/** One set of event listeners per message, however many callbacks wait on it. */
const kWaiting = Symbol('webapp.onFinished');

interface Waiting {
  queue: Array<(err: Error | null | undefined) => void>;
}

/**
 * Whether the message is already done: `true`/`false`, or `undefined` for an
 * object that is neither a request nor a response.
 */
export function isFinished(msg: IncomingMessage | OutgoingMessage): boolean | undefined {
  const message = msg as Message & {
    writableEnded?: boolean;
    finished?: boolean;
    complete?: boolean;
    readable?: boolean;
  };
  const socket = message.socket as Socket | null | undefined;
  const ended = typeof message.writableEnded === 'boolean' ? message.writableEnded : message.finished;
  if (typeof ended === 'boolean') {
    return ended || connectionGone(message, socket);
  }
  if (typeof message.complete === 'boolean') {
    return Boolean(message.upgrade || !socket || !socket.readable || (message.complete && !message.readable));
  }
  return undefined;
}

/**
 * Whether a response's connection can no longer take it. An HTTP/2 response's `socket`
 * answers `writable` from its stream, whose writable side a HEAD request's stream has
 * ended from the start (Node sends its head with END_STREAM): read so, every HEAD response
 * over HTTP/2 was finished before it was written (a file sent to it was aborted, a
 * `timeout` never fired). Its stream closed or destroyed is what says the client left.
 * Told apart without loading node:http2 (cold start): Node's HTTP/1 responses are
 * OutgoingMessages, an HTTP/2 one has a `stream`.
 */
function connectionGone(message: object, socket: Socket | null | undefined): boolean {
  if (!socket || socket.writable) return false;
  const stream =
    message instanceof OutgoingMessage
      ? undefined
      : (message as { stream?: { closed?: unknown; destroyed?: unknown } }).stream;
  if (stream == null || typeof stream.closed !== 'boolean') return true;
  return stream.closed || stream.destroyed === true;
}

/**
 * Calls `listener(err, msg)` once the message is done (on the next turn when it
 * already is). `err` is the socket's error when the connection failed.
 */
export function onFinished<T extends IncomingMessage | OutgoingMessage>(msg: T, listener: FinishedListener<T>): T {
  if (isFinished(msg) !== false) {
    defer(listener, null, msg);
    return msg;
  }
  const carrier = msg as T & { [kWaiting]?: Waiting };
  let waiting = carrier[kWaiting];
  if (!waiting) {
    waiting = { queue: [] };
    carrier[kWaiting] = waiting;
    watch(msg, waiting, carrier);
  }
  // A response queued behind another on its connection (no socket yet) finishes from
  // that one's events, in its async context: the listener runs in its caller's, as
  // for any other response (the events of a response with its socket keep it already).
  const run = msg.socket ? listener : inCallerContext(listener);
  waiting.queue.push((err) => run(err, msg));
  return msg;
}

function watch(msg: Message, waiting: Waiting, carrier: { [kWaiting]?: Waiting }): void {
  let socket: Socket | null = null;
  let queuedOn: QueuedResponses | undefined;
  let done = false;

  const finish: Finisher = (err) => {
    if (done) return;
    done = true;
    msg.removeListener('end', onDone);
    msg.removeListener('finish', onDone);
    msg.removeListener('close', onDone);
    msg.removeListener('socket', onSocket);
    queuedOn?.remove(finish);
    if (socket) {
      socket.removeListener('error', finish);
      socket.removeListener('close', onDone);
    }
    // Cleared, not deleted: deleting a property that is not the object's last one turns
    // it into a dictionary, and a response streaming a file still has every later write
    // and event to run through it (17,000 instructions of a 1 MB file's request on Node
    // 26, and slower property reads after).
    if (carrier[kWaiting] === waiting) carrier[kWaiting] = undefined;
    const queue = waiting.queue;
    waiting.queue = [];
    for (const callback of queue) callback(err);
  };
  const onDone = () => finish();
  // Keep-alive sockets outlive the message: listen to them only until it is done.
  const onSocket = (assigned: Socket) => {
    msg.removeListener('socket', onSocket);
    queuedOn?.remove(finish);
    queuedOn = undefined;
    if (done || socket) return;
    socket = assigned;
    socket.on('error', finish);
    socket.on('close', onDone);
  };

  msg.on('end', onDone);
  msg.on('finish', onDone);
  // A response whose connection dies emits 'close' without 'finish' (also over HTTP/2).
  msg.on('close', onDone);
  if (msg.socket) {
    onSocket(msg.socket as Socket);
    return;
  }
  msg.on('socket', onSocket);
  // A response queued behind others on its connection (pipelined requests) has no
  // socket yet, and when the client leaves, Node 20 never gives it one, nor `close`:
  // its request's connection tells. (Without this, a file sent to such a response kept
  // its descriptor open for good, one per request: a client could exhaust them.)
  const connection = (msg as OutgoingMessage & { req?: IncomingMessage }).req?.socket as Socket | null | undefined;
  // A test double's request may carry a socket that is no emitter (node-mocks-http's `{}`).
  if (connection && typeof connection.on === 'function') {
    if (connection.destroyed) defer(finish);
    else (queuedOn = QueuedResponses.on(connection)).add(finish);
  }
}

type Finisher = (err?: Error | null) => void;

const kQueued = Symbol('webapp.onFinished.queued');

/**
 * The queued responses of one connection that wait on it, under one `error` and one
 * `close` listener: a client may pipeline thousands of requests, and a listener pair
 * for each (Node warns past ten) would make every removal a scan of all of them.
 */
class QueuedResponses {
  private readonly finishers = new Set<Finisher>();
  private readonly onError = (err: Error) => this.finishAll(err);
  private readonly onClose = () => this.finishAll(null);

  private constructor(private readonly connection: Socket & { [kQueued]?: QueuedResponses }) {
    connection.on('error', this.onError);
    connection.on('close', this.onClose);
  }

  /** The connection's registry, made with its listeners on first use. */
  static on(connection: Socket & { [kQueued]?: QueuedResponses }): QueuedResponses {
    return (connection[kQueued] ??= new QueuedResponses(connection));
  }

  add(finish: Finisher): void {
    this.finishers.add(finish);
  }

  /** Forgets a response that finished or got its socket; the last one takes the listeners away. */
  remove(finish: Finisher): void {
    this.finishers.delete(finish);
    if (this.finishers.size === 0) this.detach();
  }

  private finishAll(err: Error | null): void {
    const finishers = [...this.finishers];
    this.detach();
    for (const finish of finishers) finish(err);
  }

  private detach(): void {
    this.finishers.clear();
    const connection = this.connection;
    if (connection[kQueued] !== this) return;
    delete connection[kQueued];
    connection.removeListener('error', this.onError);
    connection.removeListener('close', this.onClose);
  }
}

/**
 * Calls `send` once the request body has been read (and discarded): an answer
 * then does not cut off a client still uploading, and the keep-alive connection
 * stays usable. The final handlers and the body parsers' error path use it. A
 * `send` that waits runs in the caller's async context (the request's
 * AsyncLocalStorage stores, for what the answer's events run), not the socket's.
 *
 * A client that leaves before the end of its body ends the wait as it does in
 * Express (on-finished, under body-parser and finalhandler): on the connection's
 * `error` or `close`, which come first. Node's parser fails on the cut body and
 * destroys the socket with that error; the request's `aborted` and `close` follow
 * the socket's `close`. (Waiting for the request's, a body refused by its length,
 * a 413, reached the app's error handlers after `aborted`, not before.)
 */
export function whenRequestRead(req: IncomingMessage, send: () => void): void {
  const socket = req.socket;
  if (
    (req as IncomingMessage & { upgrade?: boolean }).upgrade ||
    !socket ||
    !socket.readable ||
    (req.complete && !req.readable)
  ) {
    send();
    return;
  }
  let sent = false;
  const sendInContext = inCallerContext(send);
  // A test double's socket may be no emitter.
  const watchSocket = typeof socket.on === 'function';
  const once = () => {
    if (sent) return;
    sent = true;
    req.removeListener('end', once);
    req.removeListener('close', once);
    // A kept-alive connection outlives the request: its listeners go with the wait.
    if (watchSocket) {
      socket.removeListener('error', once);
      socket.removeListener('close', once);
    }
    sendInContext();
  };
  req.unpipe();
  req.on('end', once);
  // Where no socket tells (a stream made to look like a request), the request's own close.
  req.on('close', once);
  // Over HTTP/2 the request's socket is a proxy that listens to the request's stream.
  if (watchSocket) {
    socket.on('error', once);
    socket.on('close', once);
  }
  req.resume();
}
