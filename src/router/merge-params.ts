/** `req.params` of a router made with `mergeParams: true`. */

export type Params = Record<string, unknown>;

/**
 * `mergeParams`: the parent's params under the child's. When both have numbered
 * captures, the child's are shifted after the parent's, as Express does.
 */
export function mergeParams(params: Params, parent: Params | undefined): Params {
  if (typeof parent !== 'object' || !parent) return params;
  const merged: Params = Object.assign({}, parent);
  if (!(0 in params) || !(0 in parent)) return Object.assign(merged, params);
  let i = 0;
  let o = 0;
  while (i in params) i++;
  while (o in parent) o++;
  for (i--; i >= 0; i--) {
    params[i + o] = params[i];
    if (i < o) delete params[i];
  }
  return Object.assign(merged, params);
}
