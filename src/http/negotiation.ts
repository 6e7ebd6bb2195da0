/**
 * Accept-* negotiation as Express 4's `req.accepts*` answer it (the accepts
 * package's rules over negotiator): the best of the offered values in the
 * client's preference order, `false` when none is acceptable, the first offer
 * when the header is absent, and every accepted value when nothing is offered.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { lazy } from './lazy';

const mimeTypes = lazy(() => require('mime-types') as typeof import('mime-types'));
const loadNegotiator = lazy(() => require('negotiator') as typeof import('negotiator'));

/** `json` stands for `application/json`; values with a slash are taken as media types. */
function extensionToMime(type: string): string | false {
  return type.indexOf('/') === -1 ? mimeTypes().lookup(type) : type;
}

/**
 * Offers arrive as one array or as separate arguments. As in accepts, a falsy
 * first argument means "no offers" (answer with every accepted value), and the
 * list is otherwise taken as given.
 */
export function offers(args: ArrayLike<unknown>): string[] {
  const first = args[0];
  if (!first) return [];
  if (Array.isArray(first)) return first as string[];
  return Array.from(args as ArrayLike<string>);
}

/**
 * SPEC 4.4 (and Express's own documentation) lets `req.accepts('json, html')`
 * name several types in one string. The accepts package never split them (it
 * answers false, or the whole string without an Accept header), so a comma is
 * the one place we follow the documented behaviour over the observed one, and
 * only there: a single string argument. In an array or among several arguments
 * (as `res.format` passes its keys) a string with a comma is one type, as in Express.
 */
function splitTypeLists(types: string[]): string[] {
  if (!types.some((type) => typeof type === 'string' && type.indexOf(',') !== -1)) return types;
  const split: string[] = [];
  for (const type of types) {
    if (typeof type !== 'string' || type.indexOf(',') === -1) split.push(type);
    else for (const part of type.split(',')) if (part.trim()) split.push(part.trim());
  }
  // Nothing but commas (`list.join(',')` of empty entries): offered as they came, so
  // the answer is Express's (false, or the string itself without an Accept header),
  // not the one for no offers at all.
  return split.length > 0 ? split : types;
}

export function acceptsTypes(
  headers: IncomingHttpHeaders,
  offered: string[],
  oneTypeList = false,
): string | string[] | false {
  const types = oneTypeList ? splitTypeLists(offered) : offered;
  const negotiator = new (loadNegotiator())({ headers });
  if (types.length === 0) return negotiator.mediaTypes();
  if (!headers.accept) return types[0];
  const mimes = types.map(extensionToMime);
  const accepted = negotiator.mediaTypes(mimes.filter((type): type is string => typeof type === 'string'));
  const first = accepted[0];
  return first ? types[mimes.indexOf(first)] : false;
}

type Dimension = 'encodings' | 'charsets' | 'languages';

export function acceptsOther(
  headers: IncomingHttpHeaders,
  dimension: Dimension,
  values: string[],
): string | string[] | false {
  const negotiator = new (loadNegotiator())({ headers });
  if (values.length === 0) return negotiator[dimension]();
  return negotiator[dimension](values)[0] || false;
}
