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
import { kQueryParser } from './request';
import { kStaged } from './response/header-store';

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

export function serverClasses(app: AppPrototypes): ServerClasses {
  const AppIncomingMessage = class extends http.IncomingMessage {
    constructor(socket: Socket) {
      super(socket);
      // An own slot from the start keeps the query layer's check a fast own-property read.
      (this as { [kQueryParser]?: unknown })[kQueryParser] = undefined;
    }
  };
  const AppServerResponse = class extends NodeServerResponse {
    constructor(req: http.IncomingMessage, options?: object) {
      super(req, options);
      // The header store's slot exists from the start, so every response has one shape.
      (this as { [kStaged]?: unknown })[kStaged] = undefined;
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
  Object.defineProperty(server, kClassesChecked, { value: true });
  const listeners = server.listeners('request');
  if (listeners.length !== 1 || listeners[0] !== (app as unknown)) return;
  const requestSlot = classSlot(server, 'IncomingMessage', http.IncomingMessage);
  const responseSlot = classSlot(server, 'ServerResponse', http.ServerResponse);
  if (!requestSlot || !responseSlot) return;
  const classes = serverClasses(app);
  server[requestSlot] = classes.IncomingMessage;
  server[responseSlot] = classes.ServerResponse;
}
