import type { IncomingMessage } from 'node:http';

/** What the request API and the session middleware read of a request's connection. */
export interface ConnectionFacts {
  encrypted?: boolean;
  remoteAddress?: string;
}

/**
 * The request's connection, read as `req.connection` as Express and Connect read it:
 * the same object as `req.socket` on Node's requests, and the only one that older test
 * doubles and adapters give (`{ connection: { encrypted: true } }`); else `req.socket`.
 */
export function connectionOf(req: IncomingMessage): ConnectionFacts | undefined {
  return ((req.connection ?? req.socket) as ConnectionFacts | null) ?? undefined;
}
