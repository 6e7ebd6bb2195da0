/**
 * Redirects that the server builds from the request's own path must stay on
 * the same site. A browser reads a Location starting with `//` as another host
 * (`//evil.example/`, and `//user@host/` too), and treats `\` like `/` there,
 * so `/\evil.example` is the same trap. Such paths reach the server as
 * `GET //evil.example`, or come back from `url.resolve`, which turns `\` into `/`.
 */

/** `path` with any leading run of `/` and `\` turned into one `/`: never a host, always this site. */
export function sameOriginPath(path: string): string {
  let i = 0;
  for (; i < path.length; i++) {
    const code = path.charCodeAt(i);
    if (code !== 0x2f /* / */ && code !== 0x5c /* \ */) break;
  }
  return i > 1 || (i === 1 && path.charCodeAt(0) === 0x5c) ? '/' + path.slice(i) : path;
}
