/**
 * `res.format`: content negotiation on the request's Accept header. The chosen
 * handler runs with Content-Type set to its type; without a match, `default`
 * runs, or a 406 error listing the offered types goes to `next`. Vary: Accept is
 * always added, since the answer depends on that header.
 */
import { createHttpError } from '../http/errors';
import { mediaTypeOf } from './headers';
import type { FormatHandlers, Response } from './types';

/** A handler key as a media type: extensions looked up, parameters (`;q=...`) dropped. */
export function formatKeyType(key: string): string {
  return key.indexOf('/') === -1 ? mediaTypeOf(key) : key.split(/ *; */)[0];
}

export const formatMethods = {
  // The handlers are `obj`, as Express names them: a handler that is not a function
  // throws `obj[key] is not a function`, the message Express's error pages show.
  format(this: Response, obj: FormatHandlers) {
    const req = this.req;
    const next = req.next;
    const keys = Object.keys(obj).filter((key) => key !== 'default');
    const key = keys.length > 0 ? req.accepts(keys) : false;

    this.vary('Accept');

    if (key) {
      this.set('Content-Type', formatKeyType(key));
      obj[key](req, this, next);
    } else if (obj.default) {
      obj.default(req, this, next);
    } else {
      next(createHttpError(406, undefined, { types: keys.map(formatKeyType) }));
    }
    return this;
  },
};
