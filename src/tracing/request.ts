/**
 * The `webapp:request` trace: one per request through an app (the outermost one
 * when apps are mounted). start/end bracket the synchronous dispatch, `error`
 * reports what reached the final handler, asyncStart/asyncEnd mark the response
 * finished (or the connection gone).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { onFinished } from '../http/on-finished';
import type { NextFunction } from '../router/layer';
import { kRequestTrace, requestChannel, type RequestTrace } from './channels';

export type TracedRequest = IncomingMessage & { [kRequestTrace]?: RequestTrace };

export function traceRequest(
  app: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  done: NextFunction,
  dispatch: (req: IncomingMessage, res: ServerResponse, done: NextFunction) => void,
): void {
  const trace: RequestTrace = { req, res, app, route: undefined };
  (req as TracedRequest)[kRequestTrace] = trace;
  const finalDone: NextFunction = (err) => {
    if (err) {
      trace.error = err;
      requestChannel.error.publish(trace);
    }
    done(err);
  };
  onFinished(res, () => {
    requestChannel.asyncStart.publish(trace);
    requestChannel.asyncEnd.publish(trace);
  });
  requestChannel.start.runStores(trace, () => {
    try {
      dispatch(req, res, finalDone);
    } finally {
      requestChannel.end.publish(trace);
    }
  });
}
