/**
 * Express's constructors are plain functions, and code relies on it: Express's own
 * route.js calls `Layer('/', {}, fn)` without `new`, and modules subclass them the ES5
 * way (`ExpressRoute.call(this, path)` on an object of `Object.create(Route.prototype)`),
 * both of which an ES class refuses. A class's twin is a plain function that does what
 * the class's constructor does, `new` or not, and on such an object: the package
 * exports it where Express exports the constructor.
 *
 * The twin shares the class's prototype, so `instanceof` either of them, and a patch of
 * the prototype (`Layer.prototype.handle_request`), reach every object of both; the
 * prototype's `constructor` is the twin, as an Express object's is what Express exports.
 */
export function callableTwin<A extends unknown[], T extends object, C extends new (...args: A) => T>(
  Class: C,
  init: (target: T, ...args: A) => void,
): C & ((...args: A) => T) {
  const twin = function (this: unknown, ...args: A): T | undefined {
    if (!(this instanceof Class)) return new Class(...args);
    init(this, ...args);
    return undefined;
  };
  Object.defineProperties(twin, {
    name: { value: Class.name },
    length: { value: Class.length },
    prototype: { value: Class.prototype },
  });
  Object.defineProperty(Class.prototype, 'constructor', {
    value: twin,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  return twin as unknown as C & ((...args: A) => T);
}
