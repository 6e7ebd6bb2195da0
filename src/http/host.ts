/** A Host value without its port; an IPv6 literal (`[::1]:3000`) keeps its brackets. */
export function withoutPort(host: string): string {
  const offset = host[0] === '[' ? host.indexOf(']') + 1 : 0;
  const index = host.indexOf(':', offset);
  return index !== -1 ? host.substring(0, index) : host;
}
