/**
 * A layer function given the name Express's or Connect's has, for good. Written as a
 * function expression named as the factory around it, a bundler renames it (esbuild
 * makes `cookieParser` `cookieParser2`), and tools that read `layer.name` (route
 * listers, tracers, APM spans) would show the new name.
 */
export function named<F extends object>(name: string, fn: F): F {
  return Object.defineProperty(fn, 'name', { value: name });
}
