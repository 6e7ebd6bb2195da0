/**
 * The drain behind graceful() (index.ts): `track()` starts when the server is wrapped,
 * `begin()` when its close() is called, and `closed()` is what a signal waits for.
 */
import { once } from 'node:events';
import type { Socket, Server as NetServer } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2Session } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { isHttp2Request } from '../http/http2-request';
import { asAppCompanion } from '../server-classes';

/** Anything with http.Server's event shape: http, https, http2 (plain or secure). */
export type AnyServer = NetServer & { closeIdleConnections?: () => void; closeAllConnections?: () => void };

/**
 * What the drain knows of an HTTP/1 connection that has begun a request: fields of one
 * object, found by one look-up per request. A map of responses, a set per socket, a weak
 * map of bytes read and two listeners per response cost 3,400 instructions more per
 * request (4% of a small answer's; bench/README.md, "`webapp.graceful`").
 */
class ConnectionState {
  /** Responses begun and not yet closed; none means idle between requests. */
  owed = 0;
  /** The newest response begun: the one a drain makes the connection's last (see makeLast). */
  newest: ServerResponse | undefined = undefined;
  /** What the connection had read when its last response closed (see requestArriving). */
  readWhenIdle = 0;
  /** Its last response went out before its request's body had all come: busy until it has. */
  bodyComing = false;
}

/** What one server tracks so that its close() can tell idle connections from busy ones. */
export class Drain {
  closing = false;
  /** Whether the server has emitted `close` since it last began listening. */
  serverClosed = false;
  /** Raw TCP sockets, so the deadline can end connections of every kind (TLS handshakes included). */
  readonly connections = new Set<Socket>();
  /** The open HTTP/1 connections that have begun a request, and what each owes. */
  readonly states = new Map<Socket, ConnectionState>();
  /** HTTP/1 responses begun and not yet closed, on every connection. */
  unfinished = 0;
  /** The response the drain made the last of each connection, which had been kept alive (see makeLast). */
  readonly madeLast = new WeakMap<Socket, ServerResponse>();
  readonly sessions = new Set<Http2Session>();
  /** The connections HTTP/2 sessions run on (h2c): they end with their session, not as idle HTTP/1. */
  readonly sessionSockets = new WeakSet<object>();
  /** TLS sockets: their requests are not on the raw connections, so fresh HTTP/1 ones are found here. */
  readonly secureSockets = new Set<TLSSocket>();
  /** Sockets whose last response finished in the drain, given the grace for the next request (its timer). */
  readonly ending = new Map<Socket, NodeJS.Timeout>();
  /**
   * Responses started from a `checkContinue` or `checkExpectation` event and not closed
   * yet, which the app's listener may emit as a `request` later (after an asynchronous
   * check): counted again, the response became the connection's newest once more, and
   * the drain made it the last, cutting off the answer to a request pipelined behind it.
   * The count keeps the look-up off every other request.
   */
  readonly startedOnExpect = new WeakSet<ServerResponse>();
  expectStarts = 0;
  /** Node's idle connections are to be closed once nothing tracked is being written (see closeUntrackedIdle). */
  untrackedIdlePending = false;
  deadline: NodeJS.Timeout | undefined;
  freshDeadline: NodeJS.Timeout | undefined;

  /** A TLS server (https, HTTP/2 secure): its requests' sockets are not the raw connections. */
  readonly secure: boolean;

  constructor(
    readonly server: AnyServer,
    readonly timeout: number,
    private readonly idleGrace: number,
    /** Whether the server had connections before graceful() (not tracked: only Node's own lists have them). */
    private readonly untracked: boolean,
    private readonly onDrain: (() => void | Promise<void>) | undefined,
  ) {
    this.secure = typeof (server as { setSecureContext?: unknown }).setSecureContext === 'function';
    const closed = (res: ServerResponse) => this.responseClosed(res);
    this.responseDone = function responseDone(this: ServerResponse): void {
      closed(this);
    };
  }

  /** Every response's `close` listener (`this` is the response), made once per server. */
  private readonly responseDone: (this: ServerResponse) => void;

  track(): void {
    this.server.on('close', () => {
      this.serverClosed = true;
      // Listening again, the server keeps its connections alive, and a later close() drains anew.
      this.closing = false;
      this.untrackedIdlePending = false;
    });
    this.server.on('listening', () => (this.serverClosed = false));
    this.server.on('connection', (socket: Socket) => {
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
    });
    this.server.on('secureConnection', (socket: TLSSocket) => {
      this.secureSockets.add(socket);
      socket.once('close', () => this.secureSockets.delete(socket));
      // Its handshake ended during the drain (accepted before the close): its own grace
      // to send a request, as a connection that was ready at the close had.
      if (this.closing) this.closeUnlessRequested(socket);
    });
    this.server.on('session', (session: Http2Session) => {
      this.sessions.add(session);
      if (session.socket) this.sessionSockets.add(session.socket);
      session.once('close', () => this.sessions.delete(session));
      if (this.closing) session.close();
    });
    // Before the app's own listener, so a handler that answers synchronously
    // already sees `Connection: close` once the drain has begun.
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      if (isHttp2Request(req)) return; // HTTP/2 streams end with their session
      // Already started from its `Expect` event, and emitted as a request by the app's
      // listener of that event once it accepted it: started once.
      if (this.expectStarts !== 0 && this.startedOnExpect.has(res)) return;
      this.started(req.socket, res);
    };
    const onExpect = (req: IncomingMessage, res: ServerResponse) => {
      if (isHttp2Request(req) || this.startedOnExpect.has(res)) return;
      this.startedOnExpect.add(res);
      this.expectStarts++;
      this.started(req.socket, res);
    };
    // A companion of the app's: the server still constructs requests with the app's classes.
    this.server.prependListener('request', asAppCompanion(onRequest));
    // Node emits these instead of `request` for an `Expect` header when the server has
    // a listener for them (Node's documented way to answer 100-continue yourself). Ours
    // must not be the only one: Node would stop answering the expectation itself.
    for (const event of ['checkContinue', 'checkExpectation']) trackAlongside(this.server, event, onExpect);
  }

  /**
   * What the app must not see during the drain, kept from its listeners by the server's
   * `emit` for the length of the drain only (no cost per event else): a listener of ours,
   * even first, could not stop the app's from running.
   * - An upgrade, or a CONNECT (a tunnel), would open a connection meant to last, after
   *   `onDrain` closed the others: it would hold the drain to its deadline (and a
   *   WebSocket client would get no close frame). Refused with a 503 (a proxy would
   *   otherwise open a connection to its backend, a hand-written handler count a
   *   WebSocket that never was). Node emits `upgrade` and `connect` only when the server
   *   has a listener (it destroys the socket itself otherwise), so a server without one
   *   is left as it was.
   * - A request pipelined behind an answer that already said `Connection: close` is not
   *   run (RFC 9112 section 9.6: a server that sent `close` processes no further request
   *   on the connection). Its answer would come after the close a client acts on, so the
   *   client counts it unanswered and may send it again elsewhere, while the app had done
   *   its work (a POST run twice). Not run, it is safe to send again; the connection
   *   closes after the answer that said close.
   */
  private interceptDuringDrain(): void {
    const server = this.server;
    const own = Object.getOwnPropertyDescriptor(server, 'emit');
    const emit = server.emit;
    const intercepting = (event: string | symbol, ...args: unknown[]): boolean => {
      // `closing` too: left in place by a wrapper of someone else's, it must not act once listening again.
      if (this.closing) {
        if (event === 'upgrade' || event === 'connect') {
          refuseTakeover(args[1] as Socket);
          return true;
        }
        if (
          (event === 'request' || event === 'checkContinue' || event === 'checkExpectation') &&
          this.closeAnnounced(args[0] as IncomingMessage)
        )
          return true;
      }
      return emit.apply(server, [event, ...args] as Parameters<typeof emit>);
    };
    server.emit = intercepting;
    server.once('close', () => {
      // Put back unless someone has wrapped it since (their wrapper calls ours, which passes through).
      if (server.emit !== intercepting) return;
      if (own) Object.defineProperty(server, 'emit', own);
      else delete (server as { emit?: unknown }).emit;
    });
  }

  /**
   * Whether the drain has already told the request's connection it closes: the head of
   * the answer it made the last went out saying so. The app may have kept the connection
   * by its own `Connection: keep-alive` (a proxy copies its backend's), which Node honours
   * (`shouldKeepAlive` true again): the client then sends its next request, which is
   * answered, and made the last in turn.
   */
  private closeAnnounced(req: IncomingMessage): boolean {
    if (isHttp2Request(req)) return false;
    const last = this.madeLast.get(req.socket);
    return last !== undefined && last.headersSent && !last.shouldKeepAlive;
  }

  private started(socket: Socket, res: ServerResponse): void {
    // Its connection already gone (a request queued behind others when the client left):
    // nothing to wait for, and no `close` of the socket left to forget it by.
    if (socket.destroyed) return;
    let state = this.states.get(socket);
    if (state === undefined) {
      state = new ConnectionState();
      this.states.set(socket, state);
      socket.once('close', () => this.socketClosed(socket));
    }
    state.owed++;
    state.newest = res;
    this.unfinished++;
    if (this.closing) this.makeLast(socket, res);
    // One listener shared by every response (`this` is the response), no closure and no
    // `once` wrapper made per request. `close` alone: a response emits it once, a turn
    // after `finish` (no read of the socket comes between), or when its connection ends
    // before it finished.
    res.on('close', this.responseDone);
  }

  /**
   * Makes `res`, the newest response its connection owes, the connection's last: its
   * answer says `Connection: close` and Node ends the socket after it. Only the newest:
   * the answers to requests pipelined behind an older one would be lost with the socket
   * (Node's own close() answers them all). The response made last before a newer request
   * arrived is given its keep-alive back: its head is unwritten, or went out keeping the
   * connection by the app's own header, since a request behind one whose head said close
   * never reaches here (see closeAnnounced).
   */
  private makeLast(socket: Socket, res: ServerResponse): void {
    const previous = this.madeLast.get(socket);
    if (previous !== undefined && previous !== res) previous.shouldKeepAlive = true;
    this.madeLast.delete(socket);
    // Not yet answered and meant to keep the connection (not an HTTP/1.0 client's, say).
    if (!res.headersSent && res.shouldKeepAlive) {
      res.shouldKeepAlive = false;
      this.madeLast.set(socket, res);
    }
  }

  private responseClosed(res: ServerResponse): void {
    if (this.expectStarts !== 0 && this.startedOnExpect.delete(res)) this.expectStarts--;
    // Through its request (its own `socket` is let go once it finished). One an app took
    // `req` from leaves its connection counted busy, to the deadline.
    const socket = (res as ServerResponse & { req?: IncomingMessage }).req?.socket;
    const state = socket && this.states.get(socket);
    // Its connection closed first: forgotten with it (see socketClosed).
    if (!state) return;
    state.owed--;
    this.unfinished--;
    const left = state.owed;
    if (left === 0) this.idleAfter(socket, state, res);
    // A response whose headers went out before the drain promised keep-alive, and the
    // client may send its next request as soon as it has the answer: a moment for it
    // (answered with `Connection: close`), then the socket ends, rather than after
    // keepAliveTimeout. Ended at once, the next request would be lost, or, read before
    // the end reached the client, run with its answer written to a closed socket.
    if (this.closing && left === 0 && !socket.destroyed) this.endWhenIdle(socket);
    if (this.untrackedIdlePending) this.closeUntrackedIdle();
  }

  /**
   * Notes what the connection has read as its last response finished: bytes read after
   * that are the next request arriving (see requestArriving). Unless the request's own
   * body is still coming (an answer sent before reading it: a 401, a 413): Node reads
   * and drops the rest, and the connection is idle once it has, not before.
   */
  private idleAfter(socket: Socket, state: ConnectionState, res: ServerResponse): void {
    state.newest = undefined;
    state.readWhenIdle = socket.bytesRead;
    const req = (res as ServerResponse & { req?: IncomingMessage }).req;
    if (req === undefined || req.complete || req.destroyed) return;
    // Not idle before then, however long the client pauses between two pieces of its upload:
    // closed as idle at the grace, a slow uploader was cut mid-body (its writes reset, and
    // with them, often, the answer it had not read yet).
    state.bodyComing = true;
    req.once('end', () => {
      state.bodyComing = false;
      if (state.owed !== 0) return;
      state.readWhenIdle = socket.bytesRead;
      // The connection's own grace, from now (one the finished response began starts again).
      if (this.closing && !socket.destroyed) this.endWhenIdle(socket);
    });
  }

  /**
   * A connection closed: what it still owed is forgotten. The responses to requests
   * pipelined behind an unanswered one end with it without a word on Node 20 (no
   * `finish`, no `close`), and on Node 26 their `close` comes after the socket's:
   * kept, each held its request, response and socket for the life of the server.
   */
  private socketClosed(socket: Socket): void {
    this.unfinished -= this.states.get(socket)!.owed;
    this.states.delete(socket);
    if (this.untrackedIdlePending) this.closeUntrackedIdle();
  }

  private endWhenIdle(socket: Socket): void {
    clearTimeout(this.ending.get(socket));
    const timer = setTimeout(() => {
      this.ending.delete(socket);
      // Closed once what is written has gone out: an HTTP server's socket allows half-open
      // connections, and an end() alone waits for the client to close its side.
      const state = this.states.get(socket);
      if (!socket.destroyed && !state?.owed && !state?.bodyComing && !this.requestArriving(socket))
        socket.destroySoon();
      if (this.untrackedIdlePending) this.closeUntrackedIdle();
    }, this.grace());
    timer.unref();
    this.ending.set(socket, timer);
  }

  /** A TLS connection that became ready during the drain: closed after the grace unless it sent a request. */
  private closeUnlessRequested(socket: TLSSocket): void {
    const timer = setTimeout(() => {
      if (!socket.destroyed && socket.alpnProtocol !== 'h2' && this.silent(socket)) socket.destroy();
    }, this.grace());
    timer.unref();
  }

  /**
   * How long a connection with no request in progress may stay open once the drain has
   * begun: `idleGrace`, whose default (FRESH_CONNECTION_GRACE_MS in index.ts) says why
   * such a connection is not closed at once.
   */
  private grace(): number {
    return Math.min(this.idleGrace, this.timeout);
  }

  begin(): void {
    if (this.closing) return;
    this.closing = true;
    // Idle keep-alive sockets are not closed here but with the fresh connections, a
    // moment later: a client reusing its connection may have sent the next request
    // already (in the socket buffer, not yet read), and closing would reset it. Read
    // now, it is answered with `Connection: close`.
    // Responses close in the order their requests came, so one is owed while the newest is.
    for (const [socket, state] of this.states) if (state.newest !== undefined) this.makeLast(socket, state.newest);
    for (const session of this.sessions) session.close();
    this.interceptDuringDrain();
    if (this.onDrain) {
      // The drain goes on whatever the app's hook does: a throw is reported, not raised
      // into the caller of close() (a signal handler, cluster's disconnect), and so is
      // the rejection of an `async` hook, which would otherwise end the process mid-drain.
      const report = (err: unknown) =>
        process.emitWarning(`graceful(): onDrain threw: ${(err as Error)?.stack ?? String(err)}`);
      try {
        const result = this.onDrain() as unknown;
        if (typeof (result as PromiseLike<void> | undefined)?.then === 'function')
          (result as PromiseLike<void>).then(undefined, report);
      } catch (err) {
        report(err);
      }
    }
    this.freshDeadline = setTimeout(() => this.closeFresh(), this.grace());
    this.freshDeadline.unref();
    this.deadline = setTimeout(() => this.forceEnd(), this.timeout);
    this.deadline.unref();
    this.server.once('close', () => {
      clearTimeout(this.freshDeadline);
      clearTimeout(this.deadline);
    });
  }

  /**
   * Connections with no request in progress by now, new or kept alive between
   * requests: closed (one that has started a request is answered with Connection: close).
   */
  private closeFresh(): void {
    if (this.untracked) this.closeUntrackedIdle();
    // Idle between requests (a request's body still coming after its answer is not), and
    // not in the grace a response finished in the drain gives.
    for (const [socket, state] of this.states)
      if (state.owed === 0 && !this.ending.has(socket) && !state.bodyComing && !this.requestArriving(socket))
        socket.destroy();
    if (this.secure) {
      // HTTP/1 over TLS that has not sent a request yet (HTTP/2 ones close with their session).
      for (const socket of this.secureSockets)
        if (socket.alpnProtocol !== 'h2' && this.silent(socket)) socket.destroy();
      // And connections that have not begun their handshake (a preconnect, a TCP health
      // check, a stalled client): not TLS sockets yet, they held the drain to its deadline.
      // One whose handshake is under way has read its ClientHello, and closeUnlessRequested
      // gives it its grace once the handshake ends.
      for (const socket of this.connections) if (socket.bytesRead === 0) socket.destroy();
    } else {
      // Plain HTTP/1: the request's socket is the connection itself. One without
      // an HTTP parser left was taken over (a WebSocket upgrade, CONNECT): it is
      // the app's to close, or the deadline's. One that has sent nothing at all is
      // silent whatever it would have spoken: plain HTTP/2 (`http2.createServer`) gives
      // it a session at once, whose close waited until the deadline for a client that
      // reads nothing either (a check that connects and waits).
      for (const socket of this.connections)
        if (socket.bytesRead === 0 || (!this.sessionSockets.has(socket) && this.silent(socket))) socket.destroy();
    }
  }

  /** An HTTP/1 connection that has not begun a request since it opened. */
  private silent(socket: Socket): boolean {
    return !this.states.has(socket) && isHttpConnection(socket) && !this.requestArriving(socket);
  }

  /**
   * Whether the next request on this connection has begun to arrive: bytes read since
   * its last response finished (or since it opened), the request not yet complete (the
   * app would have it). Such a connection is not idle, as for Node's own `close()`, which
   * counts a connection busy from the first byte of a request: it is answered (with
   * `Connection: close`) when the rest comes, or destroyed at the deadline.
   */
  private requestArriving(socket: Socket): boolean {
    return socket.bytesRead > (this.states.get(socket)?.readWhenIdle ?? 0);
  }

  /**
   * Connections made before graceful() are only in Node's own idle list, which
   * `closeIdleConnections` closes. It takes a response for done once `end()` is
   * called, and would destroy a socket whose response is still being written (the
   * rest of its body lost with a slow client), or one in the grace after a response:
   * so it runs only when no tracked response is unfinished and no socket is in its grace.
   */
  private closeUntrackedIdle(): void {
    this.untrackedIdlePending = this.unfinished !== 0 || this.ending.size !== 0;
    if (!this.untrackedIdlePending) this.server.closeIdleConnections?.();
  }

  /**
   * Closes the server (a drain, unless one is under way) and resolves once it has
   * closed and so has every connection it tracked: what a signal waits for before
   * the shutdown hooks and the exit. Not when `listening` turns false, which is the
   * moment a drain begins, nor at the server's `close`: the connections the deadline
   * destroyed emit theirs a turn of the event loop later, and the app's handlers of
   * it (a span ended, an event stream unsubscribed, a file's callback) must run first.
   */
  async closed(): Promise<void> {
    if (this.server.listening) this.server.close();
    // A server that never listened, or has closed already, has no close to wait for.
    if (this.closing && !this.serverClosed) await once(this.server, 'close');
    // Each connection leaves the set on its `close`: the ones left have not emitted it yet.
    await Promise.all([...this.connections].map((socket) => once(socket, 'close')));
  }

  private forceEnd(): void {
    for (const session of this.sessions) session.destroy();
    for (const socket of this.connections) socket.destroy();
    // Connections made before graceful() (in Node's lists only): the deadline is for every one.
    if (this.untracked) this.server.closeAllConnections?.();
  }
}

/** Whether node:http still parses this connection (an upgrade or CONNECT frees its parser). */
function isHttpConnection(socket: Socket): boolean {
  return (socket as Socket & { parser?: unknown }).parser != null;
}

/** An upgrade or a CONNECT asked for during the drain: a 503, and the socket destroyed. */
function refuseTakeover(socket: Socket): void {
  if (socket.destroyed) return;
  socket.write('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  socket.destroy();
}

/**
 * Keeps `listener` first among the server's listeners for `event` while the app has
 * one of its own, and removes it with the app's last: a listener of ours alone would
 * change what Node does when the event has none.
 */
function trackAlongside(
  server: AnyServer,
  event: string,
  listener: ((req: IncomingMessage, res: ServerResponse) => void) | ((req: IncomingMessage, socket: Socket) => void),
): void {
  const others = () => server.listeners(event).filter((fn) => fn !== listener).length;
  const attach = () => {
    if (!server.listeners(event).includes(listener)) server.prependListener(event, listener);
  };
  if (others() > 0) attach();
  server.on('newListener', (name: string | symbol, added: unknown) => {
    if (name === event && added !== listener) attach();
  });
  server.on('removeListener', (name: string | symbol, removed: unknown) => {
    if (name === event && removed !== listener && others() === 0) server.removeListener(event, listener);
  });
}
