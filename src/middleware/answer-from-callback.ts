import type { ServerResponse } from 'node:http';
import type { NextFunction } from './types';

/**
 * Runs `answer`, which ends `res` from an asynchronous callback (an fs read, the app's
 * own check): a head Node refuses there (a status or status message the app set from
 * the request) would throw out of the callback and end the process. The response is
 * destroyed instead, and the error goes to `next`.
 */
export function answerFromCallback(res: ServerResponse, next: NextFunction, answer: () => void): void {
  try {
    answer();
  } catch (err) {
    res.destroy();
    next(err);
  }
}
