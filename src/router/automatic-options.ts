/**
 * The answer Express's router gives an OPTIONS request that no route handled: the
 * methods of the routes whose path matched, as `Allow` and as the body.
 */
import type { ServerResponse } from 'node:http';
import type { NextFunction } from './layer';

/** Adds the methods of one more matching route, each once, in the order first seen. */
export function appendMethods(list: string[], addition: string[]): void {
  for (const method of addition) if (!list.includes(method)) list.push(method);
}

interface OptionsResponse extends ServerResponse {
  set?: (field: string, value: string) => unknown;
  send?: (body: string) => unknown;
}

/** The answer to an OPTIONS request no route handled: `Allow` and the same list as the body. */
export function answerOptions(res: OptionsResponse, allowed: string[], next: NextFunction): void {
  try {
    const body = allowed.join(',');
    // Through `res`, as Express names it: without an app, `res.set is not a function`.
    res.set!('Allow', body);
    res.send!(body);
  } catch (err) {
    next(err);
  }
}
