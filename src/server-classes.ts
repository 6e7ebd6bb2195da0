/**
 * Request and response classes that are born with an app's prototypes, so the
 * per-request prototype swap Express does (`req.__proto__ = app.request`) is not
 * needed. The swap is what makes Express slow: V8 gives every swapped object a
 * new hidden class, and the property accesses on `req`/`res` that follow, in the
 * app and in Node, stop being fast. Measured on `GET /` answering a string:
 * swapping halves throughput compared with objects constructed this way.
 *
 * The classes are `class ... extends` Node's, not functions calling
 * `IncomingMessage.call(this)` with `app.request` as their prototype: V8 sizes an
 * instance from its constructor, and a plain function that lets Node's
 * constructor add ~30 properties leaves the response in slow dictionary mode.
 * A class prototype cannot be replaced, so each class prototype is an empty layer
 * over `app.request` / `app.response` (see layerOver); `app.request.isPrototypeOf(req)`
 * holds and every method and property resolves as in Express.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { bornWithAppPrototype, layerOver } from './prototypes';
import { kQueryParser, kQueryUrl } from './request';
import { kHeadCheck } from './response/body';

interface AppPrototypes {
  request: object;
  response: object;
}

export interface ServerClasses {
  IncomingMessage: typeof http.IncomingMessage;
  ServerResponse: typeof http.ServerResponse;
}

// Node passes the server's options as a second argument its typings omit.
const NodeServerResponse = http.ServerResponse as unknown as new (
  req: http.IncomingMessage,
  options?: object,
) => http.ServerResponse;

/**
 * The fields the app gives every request, present from the start (undefined until
 * set), so a request keeps one hidden class through the app's own work. Why: V8
 * gives an object a new hidden class for each property added. Node's code and
 * middleware read `req` at many points of a request (Node's `req.headers` getter
 * alone is read by nearly every middleware), and a read site that has seen more than
 * four classes turns megamorphic: each read then costs a lookup in V8's global cache.
 * With these six added one by one, in front of the fields middleware adds, the reads
 * of a typical production stack (helmet, cors, morgan, response-time, cookie-parser,
 * json) went megamorphic; with them declared, about 9,000 instructions (5%) per request
 * fewer (bench/README.md, "A production stack"). The query layer's slots too, so its
 * check is an own-property read. Declared in the order Express sets them; before the
 * app runs they read undefined, as in Express (where `'baseUrl' in req` is still false).
 *
 * A function of its own, not the constructor's body: a constructor this long is no
 * longer one V8 (Node 20) optimizes as a small function, and it stayed in baseline code.
 */
function declareRequestFields(req: Record<string | symbol, unknown>): void {
  req[kQueryParser] = undefined;
  req[kQueryUrl] = undefined;
  req.next = undefined;
  req.baseUrl = undefined;
  req.originalUrl = undefined;
  req._parsedUrl = undefined;
  req.params = undefined;
  req.res = undefined;
}

/** What declareRequestFields declared, taken off a request the app will not see. */
const DECLARED_REQUEST_FIELDS: Array<string | symbol> = [
  kQueryParser,
  kQueryUrl,
  'next',
  'baseUrl',
  'originalUrl',
  '_parsedUrl',
  'params',
  'res',
];

/**
 * The request of an `upgrade` or `connect` event (a WebSocket, a CONNECT proxy) as an
 * Express server gives it to those listeners: Node's own, with no `req.app`, `req.ip`
 * or `req.fresh` of the app's, nor its declared fields. Node builds it with the app's
 * class before it knows it is one; the app never runs for it. (Code that hands it to
 * the app afterwards, as express-ws does, gets the per-request swap, as on Express.)
 */
function asNodeRequest(req: unknown): void {
  if (!(req instanceof http.IncomingMessage) || !bornWithAppPrototype(req)) return;
  Object.setPrototypeOf(req, http.IncomingMessage.prototype);
  for (const field of DECLARED_REQUEST_FIELDS) delete (req as unknown as Record<string | symbol, unknown>)[field];
}

/**
 * `emit` for a server that builds requests with an app's classes: the requests of
 * `upgrade` and `connect` go to their listeners as Node's (asNodeRequest). Every
 * event is emitted by the server's own `emit` as it is at the call (an instrumentation
 * that wraps `http.Server.prototype.emit` later still sees each).
 */
function emitWithNodeUpgrades(server: NodeServer): NodeServer['emit'] {
  const prototype = Object.getPrototypeOf(server) as { emit: (...args: unknown[]) => boolean };
  return function emit(this: NodeServer, event: string | symbol, request?: unknown) {
    if (event === 'upgrade' || event === 'connect') asNodeRequest(request);
    // eslint-disable-next-line prefer-rest-params
    return prototype.emit.apply(this, arguments as unknown as unknown[]);
  } as NodeServer['emit'];
}

/** `res.locals` and res.send's head check, present from the start: see declareRequestFields. */
function declareResponseFields(res: Record<string | symbol, unknown>): void {
  res.locals = undefined;
  res[kHeadCheck] = false;
}

export function serverClasses(app: AppPrototypes): ServerClasses {
  const AppIncomingMessage = class extends http.IncomingMessage {
    constructor(socket: Socket) {
      super(socket);
      declareRequestFields(this as unknown as Record<string | symbol, unknown>);
    }
  };
  const AppServerResponse = class extends NodeServerResponse {
    constructor(req: http.IncomingMessage, options?: object) {
      super(req, options);
      declareResponseFields(this as unknown as Record<string | symbol, unknown>);
    }
  };
  layerOver(AppIncomingMessage.prototype, app.request);
  layerOver(AppServerResponse.prototype, app.response);
  return {
    IncomingMessage: AppIncomingMessage,
    ServerResponse: AppServerResponse as unknown as typeof http.ServerResponse,
  };
}

const kClassesChecked = Symbol('webapp.serverClassesChecked');

interface NodeServer extends http.Server {
  [kClassesChecked]?: true;
  [slot: symbol]: unknown;
}

/** Node's own slots for the classes a server constructs with (`Symbol(IncomingMessage)` ...). */
function classSlot(server: NodeServer, description: string, expected: unknown): symbol | undefined {
  for (const symbol of Object.getOwnPropertySymbols(server)) {
    if (symbol.description === description && server[symbol] === expected) return symbol;
  }
  return undefined;
}

/**
 * For as long as `app` is the request listener of a server building with its classes:
 * upgrade and connect requests go out as Node's (emitWithNodeUpgrades). Once `app` is
 * no longer its listener (a development server swapping in the reloaded app,
 * `removeAllListeners`), the server gets Node's own classes and `emit` back: whatever
 * listens next gets plain requests and responses, as from Node, not ones carrying the
 * old app's `req.app` and `res.json` (which then throw). A webapp app that becomes the
 * only listener makes the server its own again on its first request.
 */
function tieClassesToListener(server: NodeServer, app: AppPrototypes, classes: ServerClasses): void {
  const requestSlot = classSlot(server, 'IncomingMessage', classes.IncomingMessage);
  const responseSlot = classSlot(server, 'ServerResponse', classes.ServerResponse);
  if (!requestSlot || !responseSlot) return;
  const onRemoveListener = (event: string | symbol, listener: unknown) => {
    if (event !== 'request' || listener !== app) return;
    server.removeListener('removeListener', onRemoveListener);
    if (server[requestSlot] === classes.IncomingMessage) server[requestSlot] = http.IncomingMessage;
    if (server[responseSlot] === classes.ServerResponse) server[responseSlot] = http.ServerResponse;
    if (server.emit === emit) delete (server as { emit?: unknown }).emit;
    delete server[kClassesChecked];
  };
  server.on('removeListener', onRemoveListener);
  const emit = emitWithNodeUpgrades(server);
  // Not enumerable: the server's own keys stay Node's.
  Object.defineProperty(server, 'emit', { value: emit, writable: true, configurable: true, enumerable: false });
}

/** `app.listen`'s server: constructing with the app's classes for as long as the app is its listener. */
export function createAppServer(app: AppPrototypes): http.Server {
  const classes = serverClasses(app);
  const server = http.createServer(classes as http.ServerOptions, app as unknown as http.RequestListener);
  tieClassesToListener(server as NodeServer, app, classes);
  return server;
}

/**
 * For `http.createServer(app)` (and https): the first request tells which server
 * the app is the request listener of; when the app is its only listener and the
 * server uses Node's default classes, later requests are constructed with the
 * app's classes, as under `app.listen`. Anything else (several listeners, custom
 * classes, a Node without these slots) keeps the per-request swap.
 */
export function adoptServer(app: AppPrototypes, req: http.IncomingMessage): void {
  // Most requests come from a server that constructs with an app's class: one property
  // read tells, where reading the prototype is a call into V8's runtime.
  if (bornWithAppPrototype(req) || Object.getPrototypeOf(req) !== http.IncomingMessage.prototype) return;
  const server = (req.socket as (Socket & { server?: NodeServer }) | null)?.server;
  if (!server || server[kClassesChecked] || typeof server.listeners !== 'function') return;
  // Configurable: tieClassesToListener takes it away for the next app.
  Object.defineProperty(server, kClassesChecked, { value: true, configurable: true });
  const listeners = server.listeners('request');
  if (listeners.length !== 1 || listeners[0] !== (app as unknown)) return;
  const requestSlot = classSlot(server, 'IncomingMessage', http.IncomingMessage);
  const responseSlot = classSlot(server, 'ServerResponse', http.ServerResponse);
  if (!requestSlot || !responseSlot) return;
  const classes = serverClasses(app);
  server[requestSlot] = classes.IncomingMessage;
  server[responseSlot] = classes.ServerResponse;
  tieClassesToListener(server, app, classes);
}
