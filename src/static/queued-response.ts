/**
 * Responses that wait for their connection (a pipelined request's, behind an earlier
 * one) and the moment their turn comes: send.ts opens such a response's file only then.
 */
import { OutgoingMessage, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { inCallerContext } from '../http/async-context';

/**
 * A response to a pipelined request that waits behind an earlier one on its
 * connection: Node gives it the socket once the earlier responses have finished.
 * Until then whatever it writes is held in memory, so a client that pipelines
 * thousands of requests for a large file and reads nothing held every file open,
 * with its first chunk read (5,000 requests, 200 KB sent: 5,000 descriptors and
 * 1.3 GB). Such a response opens its file when its turn comes.
 */
export function queuedOnConnection(req: IncomingMessage, res: ServerResponse): boolean {
  if (res.socket || !madeByServer(res)) return false;
  const connection = req.socket as (Socket & { _httpMessage?: unknown }) | null;
  return connection != null && connection._httpMessage != null && connection._httpMessage !== res;
}

type PendingDataCounted = OutgoingMessage & { _onPendingData?: unknown };

/** What an OutgoingMessage has for `_onPendingData` until a server gives it its own (read at the first file sent). */
let unwatchedPendingData: unknown;

/**
 * Whether Node's server made this response for a request it parsed: only such a
 * response is queued for its connection, and given the socket at its turn. A response
 * an app makes itself for a live request (`new http.ServerResponse(req)`, to capture
 * a page or run a sub-request through the app) has no socket and never gets one: its
 * file is sent at once, as Express sends it. Node's server gives each of its responses
 * its own `_onPendingData`, which counts what is held for the connection.
 */
function madeByServer(res: ServerResponse): boolean {
  unwatchedPendingData ??= (new OutgoingMessage() as PendingDataCounted)._onPendingData;
  return (res as PendingDataCounted)._onPendingData !== unwatchedPendingData;
}

/**
 * Runs `send` once `res` has its socket, unless the response was ended or destroyed
 * before; in the request's async context, not that of the earlier response whose end
 * gives the socket (a `sendFile` callback's request-id logger would see that request).
 */
export function whenConnected(res: ServerResponse, send: () => void): void {
  res.once(
    'socket',
    inCallerContext(() => {
      if (!res.writableEnded && !res.destroyed) send();
    }),
  );
}
