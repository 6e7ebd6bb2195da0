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
import { IncomingMessage, Server, ServerResponse, createServer, type RequestListener } from 'node:http';
import type { Socket } from 'node:net';
import { bornWithAppPrototype, layerOver } from './prototypes';
import { kHeadCheck } from './response/body';

interface AppPrototypes {
  request: object;
  response: object;
}

export interface ServerClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

// Node passes the server's options as a second argument its typings omit.
const NodeServerResponse = ServerResponse as unknown as new (req: IncomingMessage, options?: object) => ServerResponse;

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
 * fewer (bench/README.md, "A production stack"). `query` too, which the app's query
 * layer sets on every request. Declared in the order Express sets them; before the
 * app runs they read undefined, as in Express (where `'baseUrl' in req` is still false),
 * but for `res`, which the app's response class links (see AppServerResponse).
 *
 * An app's accessor for one of them makes them the request's own properties instead
 * (fieldsMeetAccessors). A function of its own, given the class's state in one object,
 * not the constructor's body: a constructor this long is no longer one V8 (Node 20)
 * optimizes as a small function, and it stayed in baseline code (so did one that kept
 * the state in variables of its closure: about 3,000 instructions per request more).
 */
function declareRequestFields(req: Record<string | symbol, unknown>, fields: DeclaredFields): void {
  fields.assignable ??= !fieldsMeetAccessors(fields);
  if (fields.assignable) {
    try {
      req.next = undefined;
      req.baseUrl = undefined;
      req.originalUrl = undefined;
      req._parsedUrl = undefined;
      req.params = undefined;
      req.query = undefined;
      req.res = undefined;
      return;
    } catch {
      // A getter without a setter put on the app's prototypes after the first request.
      fields.assignable = false;
    }
  }
  defineOwnFields(req, DECLARED_REQUEST_FIELDS);
}

/** What declareRequestFields declared, taken off a request the app will not see. */
const DECLARED_REQUEST_FIELDS: ReadonlyArray<string | symbol> = [
  'next',
  'baseUrl',
  'originalUrl',
  '_parsedUrl',
  'params',
  'query',
  'res',
];

/**
 * A request of an event the app does not answer (`upgrade`, `connect`, `checkContinue`,
 * `dropRequest` ...) or of a server the app is no longer the only listener of, as an
 * Express server gives it to those listeners: Node's own, with no `req.app`, `req.ip`
 * or `req.fresh` of the app's (a getter, so a strict-mode `req.ip = ...` in such a
 * listener would throw), nor its declared fields. Node builds it with the app's class
 * before it knows who gets it. (Code that hands it to the app afterwards, as express-ws
 * or a `checkContinue` listener does, gets the per-request swap, as on Express.)
 */
function asNodeRequest(req: unknown): void {
  if (!(req instanceof IncomingMessage) || !bornWithAppPrototype(req)) return;
  Object.setPrototypeOf(req, IncomingMessage.prototype);
  unlinkResponse(req as IncomingMessage & { res?: unknown });
  removeDeclaredFields(req as unknown as Record<string | symbol, unknown>, DECLARED_REQUEST_FIELDS);
}

/** Undoes the link the app's response class gave its request: Node's request has no `res`. */
function unlinkResponse(req: IncomingMessage & { res?: unknown }): void {
  const res = req.res;
  if (res instanceof ServerResponse && res.req === req) req.res = undefined;
}

/**
 * Takes off `object` the fields its class declared, where they still hold the declared
 * `undefined`: a value a diagnostics_channel subscriber set (`http.server.request.start`,
 * and from Node 22 on `http.server.response.created`, inside Node's constructor) stays,
 * as it does on a request Express is given (`req.originalUrl = req.originalUrl || req.url`,
 * `res.locals = res.locals || ...`).
 */
function removeDeclaredFields(object: Record<string | symbol, unknown>, fields: ReadonlyArray<string | symbol>): void {
  for (const field of fields) if (object[field] === undefined) delete object[field];
}

/**
 * `res.locals` and res.send's head check, present from the start: see declareRequestFields.
 * `locals` is left out when the app's prototypes have an accessor for it: Express sets
 * it after the response took the app's prototype, through that accessor (a getter alone
 * refuses it, and the request gets a 500, as there).
 *
 * A `locals` the response already has is kept: from Node 22 on, subscribers of the
 * `http.server.response.created` channel run inside Node's constructor, before this,
 * and one may give the response its locals (a trace id for the views), which Express
 * keeps (`res.locals = res.locals || ...`).
 */
function declareResponseFields(res: Record<string | symbol, unknown>, fields: DeclaredFields): void {
  res[kHeadCheck] = false;
  fields.assignable ??= !fieldsMeetAccessors(fields);
  if (!fields.assignable) return;
  try {
    // Undefined unless a subscriber set it.
    const locals = res.locals;
    res.locals = locals;
  } catch {
    // A getter without a setter put on `app.response` after the first request.
    fields.assignable = false;
  }
}

/**
 * A class's declared fields: whether they can be assigned, known at its first object,
 * and the prototypes between which an accessor of the app's would be in the way.
 */
interface DeclaredFields {
  assignable: boolean | undefined;
  readonly layer: object;
  readonly nodeProto: object;
  readonly names: ReadonlyArray<string | symbol>;
}

/**
 * Whether the prototypes between a class's `layer` and Node's prototype have an accessor
 * for one of the fields: a getter an app put on `app.request` (an Express 5 style
 * read-only `req.query`, say). Express gives a request those fields as its own before it
 * takes the app's prototype, so such an accessor is never reached; assigning them on an
 * object born with that prototype would call its setter, or throw inside Node's parser
 * (a crash) for a getter alone. Asked once per class, at its first object: apps define
 * such accessors while they are set up.
 */
function fieldsMeetAccessors({ layer, nodeProto, names }: DeclaredFields): boolean {
  for (let proto = Object.getPrototypeOf(layer) as object | null; proto !== null && proto !== nodeProto;) {
    for (const name of names) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      if (descriptor !== undefined && !('value' in descriptor)) return true;
    }
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return false;
}

/** The declared fields as the object's own data properties, past any accessor of its prototypes. */
function defineOwnFields(obj: object, names: ReadonlyArray<string | symbol>): void {
  for (const name of names) {
    Object.defineProperty(obj, name, { value: undefined, writable: true, enumerable: true, configurable: true });
  }
}

const DECLARED_RESPONSE_FIELDS: ReadonlyArray<string | symbol> = ['locals', kHeadCheck];

/** The response beside such a request, as Node's own: see asNodeRequest. */
function asNodeResponse(res: unknown): void {
  if (!(res instanceof ServerResponse) || !bornWithAppPrototype(res)) return;
  Object.setPrototypeOf(res, ServerResponse.prototype);
  // The head check's `false` is webapp's own, never a subscriber's: taken off first, so
  // that the walk below finds it gone.
  delete (res as unknown as Record<symbol, unknown>)[kHeadCheck];
  removeDeclaredFields(res as unknown as Record<string | symbol, unknown>, DECLARED_RESPONSE_FIELDS);
}

function serverClasses(app: AppPrototypes): ServerClasses {
  const AppIncomingMessage = class extends IncomingMessage {
    constructor(socket: Socket) {
      super(socket);
      declareRequestFields(this as unknown as Record<string | symbol, unknown>, requestFields);
    }
  };
  const AppServerResponse = class extends NodeServerResponse {
    constructor(req: IncomingMessage, options?: object) {
      super(req, options);
      declareResponseFields(this as unknown as Record<string | symbol, unknown>, responseFields);
      // Node links the response to its request (`res.req`), not the request to it; Express's
      // `expressInit` does. A request born with the app's prototype has `req.fresh`, which
      // reads `req.res`, and a response `res.send`, which reads `req.fresh`, before that
      // layer runs: a middleware moved ahead of it (`stack.unshift`) that answers with
      // `res.json` when it is a function, Node's `res.end` otherwise, needs them linked.
      if (req instanceof AppIncomingMessage) (req as unknown as { res: unknown }).res = this;
    }
  };
  const requestFields: DeclaredFields = {
    assignable: undefined,
    layer: AppIncomingMessage.prototype,
    nodeProto: IncomingMessage.prototype,
    names: DECLARED_REQUEST_FIELDS,
  };
  const responseFields: DeclaredFields = {
    assignable: undefined,
    layer: AppServerResponse.prototype,
    nodeProto: ServerResponse.prototype,
    names: DECLARED_RESPONSE_FIELDS,
  };
  layerOver(AppIncomingMessage.prototype, app.request);
  layerOver(AppServerResponse.prototype, app.response);
  return {
    IncomingMessage: AppIncomingMessage,
    ServerResponse: AppServerResponse as unknown as typeof ServerResponse,
  };
}

const kClassesChecked = Symbol('webapp.serverClassesChecked');

interface NodeServer extends Server {
  [kClassesChecked]?: true;
  [slot: symbol]: unknown;
  /** EventEmitter's listeners by event: a function for one listener. */
  _events?: Record<string | symbol, unknown>;
}

type Emit = (this: NodeServer, event: string | symbol, ...args: unknown[]) => boolean;

/** Node's own slots for the classes a server constructs with (`Symbol(IncomingMessage)` ...). */
function classSlot(server: NodeServer, description: string, expected: unknown): symbol | undefined {
  for (const symbol of Object.getOwnPropertySymbols(server)) {
    if (symbol.description === description && server[symbol] === expected) return symbol;
  }
  return undefined;
}

/** Request listeners of webapp's own that run beside an app on its own objects (see `asAppCompanion`). */
const companions = new WeakSet<object>();

/**
 * Marks `listener`, a `request` listener of webapp's own, as one the app stays the
 * server's only listener beside: it runs on the objects born with the app's classes
 * and needs nothing of Node's plain ones. graceful()'s drain, which notes each
 * response and its socket, is one: without the mark, every server it watched (the
 * recommended `webapp.graceful(app.listen(port))`) went back to the per-request
 * prototype swap at its first request.
 */
export function asAppCompanion<T extends object>(listener: T): T {
  companions.add(listener);
  return listener;
}

/** Whether `listeners` are the app, once, and companions of webapp's beside it. */
function appBesideCompanions(listeners: readonly unknown[], app: AppPrototypes): boolean {
  let apps = 0;
  for (const listener of listeners) {
    if (listener === app) apps++;
    else if (typeof listener !== 'function' || !companions.has(listener)) return false;
  }
  return apps === 1;
}

/**
 * Whether `app` is the server's one `request` listener, companions aside: EventEmitter
 * keeps a single listener as itself, several in an array (read in place, not copied
 * as `listeners()` copies it, since this is asked for each request).
 */
function isOnlyListener(server: NodeServer, app: AppPrototypes): boolean {
  const events = server._events;
  if (events !== undefined && events !== null) {
    const listeners = events.request;
    if (listeners === app) return true;
    if (Array.isArray(listeners) && appBesideCompanions(listeners, app)) return true;
  }
  return appBesideCompanions(server.listeners('request'), app);
}

/**
 * Makes `server` construct with the app's classes for as long as `app` is its only
 * `request` listener (companions aside, see `asAppCompanion`); returns whether it does.
 * Where Express's server gives a listener Node's plain objects, the server's own `emit`
 * (installed here; not enumerable, so the server's own keys stay Node's) turns them back
 * into Node's first (asNodeRequest):
 * - for `upgrade`, `connect` and `dropRequest` listeners, and `checkContinue` and
 *   `checkExpectation` ones (request and response): events the app does not answer;
 * - for every `request` listener once the app is not the only one (a listener
 *   prepended for monitoring, a development server swapping in the reloaded app): that
 *   request goes out as Node's, and the server gets Node's classes and `emit` back. A
 *   webapp app that is the only listener again takes the server on its first request
 *   (adoptServer).
 * Asked as each request is emitted (one property read) rather than by listening to the
 * server's `newListener`/`removeListener` events, which would put a listener of
 * webapp's in the server's `eventNames()`; a removed app and its classes are let go
 * with the next request.
 *
 * A server that already has an `emit` of its own (an instrumentation wrapped it: one
 * that wraps each new server's, or Sentry's kind, which wraps it at the first
 * request's `http.server.request.start`) is left Node's, as Express leaves it: an
 * `emit` of webapp's over that one would hide it from the code that wrapped it, which
 * then finds its wrapper gone (not `server.emit` any more, nor its markers), wraps
 * again and runs twice per request, or puts back what it saved, dropping webapp's.
 */
function tieClassesToListener(server: NodeServer, app: AppPrototypes): boolean {
  const requestSlot = classSlot(server, 'IncomingMessage', IncomingMessage);
  const responseSlot = classSlot(server, 'ServerResponse', ServerResponse);
  if (!requestSlot || !responseSlot || Object.prototype.hasOwnProperty.call(server, 'emit')) return false;
  const classes = serverClasses(app);
  const prototype = Object.getPrototypeOf(server) as { emit: Emit };
  // False once untied: an emit that code wrapped after this one stays in its chain, inert.
  let tied = true;
  const untie = () => {
    tied = false;
    if (server[requestSlot] === classes.IncomingMessage) server[requestSlot] = IncomingMessage;
    if (server[responseSlot] === classes.ServerResponse) server[responseSlot] = ServerResponse;
    if (server.emit === emit) delete (server as { emit?: unknown }).emit;
    delete server[kClassesChecked];
  };
  // One declared parameter: `length` 1, as EventEmitter's; `arguments` goes on as it came
  // (a rest parameter would be an array made for every event).
  /* eslint-disable prefer-rest-params */
  const emit = function emit(this: NodeServer, event: string | symbol): boolean {
    if (tied) {
      if (event === 'request') {
        if (!isOnlyListener(server, app)) {
          untie();
          asNodeRequest(arguments[1]);
          asNodeResponse(arguments[2]);
        }
      } else if (event === 'upgrade' || event === 'connect' || event === 'dropRequest') {
        asNodeRequest(arguments[1]);
      } else if (event === 'checkContinue' || event === 'checkExpectation') {
        asNodeRequest(arguments[1]);
        asNodeResponse(arguments[2]);
      }
    }
    // The prototype's `emit` as it is at the call: an instrumentation that wraps
    // `http.Server.prototype.emit` later still sees each event. A request and other
    // events of two arguments go by `call`: `apply` copies `arguments` into a list first.
    if (arguments.length === 3) return prototype.emit.call(this, event, arguments[1], arguments[2]);
    return prototype.emit.apply(this, arguments as unknown as [string | symbol, ...unknown[]]);
  };
  /* eslint-enable prefer-rest-params */
  server[requestSlot] = classes.IncomingMessage;
  server[responseSlot] = classes.ServerResponse;
  Object.defineProperty(server, 'emit', { value: emit, writable: true, configurable: true, enumerable: false });
  return true;
}

/**
 * Takes `server` for `app` (tieClassesToListener) when the app is its only request
 * listener and it builds with Node's default classes. Anything else (several
 * listeners, a listener wrapping the app, custom classes, a Node without these slots)
 * keeps the per-request swap.
 */
function adoptIfOnlyListener(server: NodeServer, app: AppPrototypes): void {
  if (server[kClassesChecked] || typeof server.listeners !== 'function') return;
  // Configurable: untying takes it away for the next app.
  Object.defineProperty(server, kClassesChecked, { value: true, configurable: true });
  if (isOnlyListener(server, app)) tieClassesToListener(server, app);
}

/**
 * `app.listen`'s server, made as Express makes it, `http.createServer(app)`: code that
 * patches `createServer` for its one-argument form (wrapping the request listener)
 * sees what it expects. Then taken for the app's classes at once.
 */
export function createAppServer(app: AppPrototypes): Server {
  const server = createServer(app as unknown as RequestListener);
  adoptIfOnlyListener(server as NodeServer, app);
  return server;
}

/**
 * For `http.createServer(app)` (and https): the first request tells which server the
 * app is the request listener of, to be taken as `app.listen`'s is.
 */
export function adoptServer(app: AppPrototypes, req: IncomingMessage): void {
  // Most requests come from a server that constructs with an app's class: one property
  // read tells, where reading the prototype is a call into V8's runtime.
  if (bornWithAppPrototype(req) || Object.getPrototypeOf(req) !== IncomingMessage.prototype) return;
  const server = (req.socket as (Socket & { server?: NodeServer }) | null)?.server;
  if (server) adoptIfOnlyListener(server, app);
}
