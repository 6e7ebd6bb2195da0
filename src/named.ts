/**
 * A layer function given the name Express's or Connect's has, for good. Written as a
 * function expression named as the factory around it, a bundler renames it (esbuild
 * makes `cookieParser` `cookieParser2`), and tools that read `layer.name` (route
 * listers, tracers, APM spans) would show the new name. V8 then keeps the function's
 * own properties in a dictionary, slower to read: a function whose fields are read on
 * every request (a router) is named by the key of an object literal instead.
 */
export function named<F extends object>(name: string, fn: F): F {
  return Object.defineProperty(fn, 'name', { value: name });
}

/**
 * A method given the `length` Express's declares, where webapp's takes its arguments
 * as a rest parameter (which counts for none): `app.use(fn)` is 1 in Express, and
 * code that wraps or lists an app's methods may read it.
 */
export function declaring<F extends object>(length: number, fn: F): F {
  return Object.defineProperty(fn, 'length', { value: length });
}
