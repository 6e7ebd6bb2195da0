/**
 * Why: what a request does not need must not be loaded before the first request
 * (cold start). `lazy(() => require('x'))` loads `x` on the first call and
 * returns the same module afterwards.
 */
export function lazy<T>(load: () => T): () => T {
  let loaded: { value: T } | undefined;
  return () => (loaded ??= { value: load() }).value;
}
