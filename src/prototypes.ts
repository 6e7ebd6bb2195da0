/**
 * Giving requests and responses the app's prototypes (`app.request`,
 * `app.response`), for HTTP/1 and for HTTP/2.
 *
 * Express swaps the prototype of every request to `app.request`, whose chain ends
 * in `http.IncomingMessage.prototype`. An HTTP/2 compatibility request
 * (`Http2ServerRequest`) loses its own methods that way, which is why Express 4
 * and 5 fail behind `http2.createSecureServer({ allowHTTP1: true }, app)`. For
 * those objects webapp uses a prototype that looks names up in the app's chain
 * first (so `app.request` patches made at any time apply) and in the HTTP/2 class
 * second. HTTP/1 requests keep the plain, fast prototype swap, and so do objects
 * of neither kind (test doubles, serverless adapters' requests), as in Express.
 */
import { IncomingMessage, METHODS, ServerResponse } from 'node:http';
import { holdHttp2Peer } from './http/http2-request';
import { lazy } from './http/lazy';
import { isHeaderStoreMethod, storeSetHeader } from './response/header-store';

/** Only HTTP/2 responses need it (cold start). */
const http2ResponseModule = lazy(() => require('./http/http2-response') as typeof import('./http/http2-response'));

/** Asked only of objects that are not Node's HTTP/1 messages (cold start). */
const http2Module = lazy(() => require('node:http2') as typeof import('node:http2'));

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Whether `req` is an HTTP/2 compatibility request. Anything else that is not an
 * IncomingMessage (node-mocks-http's requests, a serverless adapter's) takes the app's
 * prototype as it does under Express, Node's methods below it included.
 */
function isHttp2Request(req: object): boolean {
  return isOfClass(req, http2Module().Http2ServerRequest);
}

function isHttp2Response(res: object): boolean {
  return isOfClass(res, http2Module().Http2ServerResponse);
}

/**
 * Whether `obj` is of `cls`: by its prototype chain, or, when code other than webapp's
 * gave it a chain of its own after webapp adopted it, by the class webapp found it with
 * (see nativePrototypeOf). An express@4 sub-app's `expressInit` gives an HTTP/2 request
 * its `app.request`, whose chain is HTTP/1's: on the way back the parent app must still
 * give it the HTTP/2 prototype, where Node's HTTP/1 methods would touch the HTTP/2
 * session's socket (an error event that ends the process).
 */
function isOfClass(obj: object, cls: { prototype: object }): boolean {
  if (obj instanceof (cls as new () => object)) return true;
  const native = recordedNativePrototype(obj);
  return (
    native !== undefined && (native === cls.prototype || Object.prototype.isPrototypeOf.call(cls.prototype, native))
  );
}

/** Whether webapp has adopted `obj` as an object of another class than HTTP/1's (see nativePrototypeOf). */
function adoptedAsNative(obj: object): boolean {
  return recordedNativePrototype(obj) !== undefined;
}

/**
 * Each app prototype's HTTP/2 prototypes, one per Node class. Kept beside the app
 * prototypes, not on them: a mounted app's `app.request` inherits from its parent's,
 * and a property there would be the parent's, so the sub-app's requests got the parent
 * app's prototype (its settings, `trust proxy` among them) over HTTP/2.
 */
const http2Prototypes = new WeakMap<object, WeakMap<object, object>>();

/** Finds `key` along `start`'s prototype chain, stopping before `stop`. */
function findDescriptor(start: object, stop: object, key: string | symbol): PropertyDescriptor | undefined {
  for (let proto: object | null = start; proto !== null && proto !== stop; proto = Object.getPrototypeOf(proto)) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, key);
    // The HTTP/1 header store is not for HTTP/2 responses: they keep their own header API.
    if (descriptor !== undefined && !isHeaderStoreMethod(descriptor.value)) return descriptor;
  }
  return undefined;
}

/** A prototype that resolves names in `appProto`'s chain (down to `nodeProto`) and then in `nativeProto`. */
function layeredPrototype(appProto: object, nodeProto: object, nativeProto: object): object {
  return new Proxy(Object.create(nativeProto) as object, {
    get(_target, key, receiver) {
      const descriptor = findDescriptor(appProto, nodeProto, key);
      if (descriptor === undefined) return Reflect.get(nativeProto, key, receiver);
      return descriptor.get ? descriptor.get.call(receiver) : descriptor.value;
    },
    // An assignment does what it does on an object whose prototype is the app's: a
    // setter runs, a getter alone or a read-only value refuses it (a TypeError in
    // strict code), and anything else becomes the object's own property. So
    // `req.ip = req.headers['x-real-ip']` changes nothing, over HTTP/2 as in Express.
    set(_target, key, value, receiver) {
      const descriptor = findDescriptor(appProto, nodeProto, key);
      if (descriptor === undefined) return Reflect.set(nativeProto, key, value, receiver);
      if (descriptor.get !== undefined || descriptor.set !== undefined) {
        if (descriptor.set === undefined) return false;
        descriptor.set.call(receiver, value);
        return true;
      }
      if (descriptor.writable !== true) return false;
      return Reflect.defineProperty(receiver as object, key, {
        value,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    },
    has(_target, key) {
      return findDescriptor(appProto, nodeProto, key) !== undefined || key in nativeProto;
    },
  });
}

function http2Prototype(appProto: object, nodeProto: object, nativeProto: object): object {
  let cache = http2Prototypes.get(appProto);
  if (cache === undefined) {
    cache = new WeakMap();
    http2Prototypes.set(appProto, cache);
  }
  let proto = cache.get(nativeProto);
  if (proto === undefined) {
    proto = layeredPrototype(appProto, nodeProto, nativeProto);
    cache.set(nativeProto, proto);
  }
  return proto;
}

/**
 * On the empty prototype objects that stand for the app prototype below them (see
 * layerOver): that app prototype, so one property read of a request or response
 * tells which app prototype it was born with.
 */
const kLayerFor = Symbol('webapp.layerFor');

/**
 * Makes `layer`, the prototype of a class `app.listen` constructs with, an empty
 * stand-in for `appProto`: its instances have the app's prototype from birth,
 * and the adopt functions below leave them as they are.
 */
export function layerOver(layer: object, appProto: object): void {
  Object.setPrototypeOf(layer, appProto);
  // `req.constructor` stays Node's class (found below the app prototype), as in Express.
  delete (layer as { constructor?: unknown }).constructor;
  Object.defineProperty(layer, kLayerFor, { value: appProto });
}

type Marked = { [kLayerFor]?: object };

/** Whether `obj` was constructed by a class layerOver made (by `app.listen`'s server, say). */
export function bornWithAppPrototype(obj: object): boolean {
  return (obj as Marked)[kLayerFor] !== undefined;
}

/**
 * Whether `obj` has `appProto` as its prototype, or the layer standing for it. The mark
 * is found through the layer `obj` was born with (app prototypes never inherit from a
 * layer): one property read, where reading an object's prototype is a call into V8's
 * runtime, and every request entering an app asks this twice.
 */
function hasPrototype(obj: object, appProto: object): boolean {
  return (obj as Marked)[kLayerFor] === appProto || Object.getPrototypeOf(obj) === appProto;
}

/**
 * V8 before 13 (Node 20 and 22) gives an object whose prototype was replaced a map
 * of its own, outside any transition tree, and each property added to it afterwards
 * copies that map and its whole descriptor array (about 1 KB for a response) instead
 * of following a transition other objects share. Every swapped request then has
 * maps no other request has: property reads in the app and in Node go megamorphic,
 * and the copies fill old space until a mark-compact. It is most of why Express
 * on Node 20 runs a third as fast as on Node 24, where V8 shares those transitions.
 * Deleting a property right after the swap makes V8 turn the object into a
 * dictionary with a map all such objects share (V8's normalized-map cache), and
 * properties added later go into the dictionary without new maps. A request
 * entering a mounted sub-app, or reaching the app through a wrapper of the server's
 * request listener, went from 3 to 5 times the CPU of one born with the app's
 * prototypes to about 1.6 times (bench/README.md, "Requests whose prototype is swapped").
 * That cache is small and hashed by prototype: in about one process in 150 two of its
 * entries evict each other, and that process's swapped requests cost what they did.
 */
const swapLeavesDetachedMap = Number(process.versions.v8.split('.')[0]) < 13;
const kSwapping = Symbol('webapp.prototypeSwap');

/** `Object.setPrototypeOf` for HTTP/1 requests and responses; see swapLeavesDetachedMap. */
function swapPrototype(obj: object, proto: object): void {
  if (!swapLeavesDetachedMap) {
    Object.setPrototypeOf(obj, proto);
    return;
  }
  const carrier = obj as { [kSwapping]?: undefined };
  carrier[kSwapping] = undefined;
  Object.setPrototypeOf(obj, proto);
  delete carrier[kSwapping];
}

/** Gives `req` the app's request prototype (HTTP/1: `app.request` itself). */
export function adoptRequestPrototype(req: object, appRequest: object): void {
  if (hasPrototype(req, appRequest)) return;
  if ((req instanceof IncomingMessage && !adoptedAsNative(req)) || !isHttp2Request(req)) {
    swapPrototype(req, appRequest);
  } else {
    const native = nativePrototypeOf(req);
    const headers = (req as { headers?: Record<string, unknown> }).headers;
    // HTTP/2 carries the host in :authority; the request API reads Host. A Host header
    // as well names the same host or should not be trusted (RFC 9113, 8.3.1): a front
    // end that checked :authority may have passed any Host through.
    if (headers && typeof headers[':authority'] === 'string') headers.host = headers[':authority'];
    normalizeMethodCase(req as { method?: unknown });
    holdHttp2Peer(req as IncomingMessage);
    Object.setPrototypeOf(req, http2Prototype(appRequest, IncomingMessage.prototype, native));
  }
}

/**
 * HTTP/2 takes any token as `:method`, where HTTP/1's parser refuses a method not
 * written in capitals. The router matches methods without regard to case (as
 * Express's does), so `post` reached `app.post` routes while passing the app's own
 * `req.method === 'POST'` checks (a CSRF or role guard): a known method is given
 * its capitals, and the app sees the method its routes answered.
 */
function normalizeMethodCase(req: { method?: unknown }): void {
  const method = req.method;
  if (typeof method !== 'string') return;
  const upper = method.toUpperCase();
  if (upper !== method && NORMALIZED_METHODS.has(upper)) req.method = upper;
}

/**
 * All known methods but HEAD: Node and the client take `head` for a method of its own,
 * whose answer has a body; answered as HEAD (a Content-Length and no body), the client
 * resets the stream as malformed.
 */
const NORMALIZED_METHODS = new Set(METHODS.filter((method) => method !== 'HEAD'));

/**
 * The `setHeader` `res` has before it takes `appResponse` (a parent app's, or Node's
 * for a response Node built), or undefined when it was born with that prototype and has
 * none of its own: for Express's X-Powered-By, set before the swap (see initLayer).
 */
export function setHeaderBeforeAdoption(res: object, appResponse: object): unknown {
  const setHeader = (res as { setHeader?: unknown }).setHeader;
  // The store's own method is no wrapper (setOwnHeader takes it as none), and is most responses'.
  if (setHeader === storeSetHeader) return undefined;
  if (!hasPrototype(res, appResponse)) return setHeader;
  // Born with the app's prototype (a server the app adopted), the response may still
  // have a `setHeader` of its own, put on it before the app ran (an agent's wrapper from
  // `http.server.request.start` or a `request` listener ahead of the app): Express calls that one.
  return hasOwn.call(res, 'setHeader') ? setHeader : undefined;
}

/** Gives `res` the app's response prototype (HTTP/1: `app.response` itself). */
export function adoptResponsePrototype(res: object, appResponse: object): void {
  if (hasPrototype(res, appResponse)) return;
  if ((res instanceof ServerResponse && !adoptedAsNative(res)) || !isHttp2Response(res)) {
    swapPrototype(res, appResponse);
    return;
  }
  // HTTP/2's own response class under a layer that adds what HTTP/1 code expects of it.
  const layer = http2ResponseModule().http2ResponseLayer(nativePrototypeOf(res));
  Object.setPrototypeOf(res, http2Prototype(appResponse, ServerResponse.prototype, layer));
}

/**
 * Node's own `key` of an HTTP/2 response the app adopted (its class's, under webapp's
 * HTTP/2 layer): for an app prototype method that replaces one of Node's and calls it
 * in turn, as webapp/v3's `setHeader` does.
 */
export function http2ResponseMember(res: object, key: string): unknown {
  return Reflect.get(http2ResponseModule().http2ResponseLayer(nativePrototypeOf(res)), key);
}

const kNativePrototype = Symbol('webapp.nativePrototype');

/**
 * The object's own class prototype (e.g. Http2ServerRequest.prototype), remembered
 * on the object the first time, since later it has one of our prototypes.
 */
function nativePrototypeOf(obj: object): object {
  let native = recordedNativePrototype(obj);
  if (native === undefined) {
    native = Object.getPrototypeOf(obj) as object;
    Object.defineProperty(obj, kNativePrototype, { value: native, configurable: true });
  }
  return native;
}

/** What nativePrototypeOf remembered on the object, if webapp adopted it as another class than HTTP/1's. */
function recordedNativePrototype(obj: object): object | undefined {
  return (obj as { [kNativePrototype]?: object })[kNativePrototype];
}
