import { METHODS } from 'node:http';

/**
 * The HTTP methods Node's parser knows, lower-cased: the names of `app.METHOD`,
 * `router.METHOD` and `route.METHOD`. Node 20 to 26 know the same list; the
 * runtime reads it from `http.METHODS`, the types name it here.
 */
export type HttpMethod =
  | 'acl'
  | 'bind'
  | 'checkout'
  | 'connect'
  | 'copy'
  | 'delete'
  | 'get'
  | 'head'
  | 'link'
  | 'lock'
  | 'm-search'
  | 'merge'
  | 'mkactivity'
  | 'mkcalendar'
  | 'mkcol'
  | 'move'
  | 'notify'
  | 'options'
  | 'patch'
  | 'post'
  | 'propfind'
  | 'proppatch'
  | 'purge'
  | 'put'
  | 'query'
  | 'rebind'
  | 'report'
  | 'search'
  | 'source'
  | 'subscribe'
  | 'trace'
  | 'unbind'
  | 'unlink'
  | 'unlock'
  | 'unsubscribe';

/** One member per HTTP method, each of type `Member`: the method-named members of apps, routers and routes. */
export type MethodMembers<Member> = { [Method in HttpMethod]: Member };

/** Every HTTP method Node's parser knows, lower-cased: the names of `app.METHOD` / `router.METHOD`. */
export const methods = METHODS.map((method) => method.toLowerCase()) as readonly HttpMethod[];

/**
 * One member per HTTP method, made by `member(method)`, in the list's order: the
 * `methods` record that `defineMembers` installs on apps, routers and routes.
 */
export function methodMembers<Member>(member: (method: HttpMethod) => Member): MethodMembers<Member> {
  const members = {} as MethodMembers<Member>;
  for (const method of methods) members[method] = member(method);
  return members;
}
