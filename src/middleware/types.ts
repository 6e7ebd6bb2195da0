/** The connect-style middleware signature the 3.x bundle uses. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type Next = (err?: unknown) => void;
export type Middleware = (req: IncomingMessage, res: ServerResponse, next: Next) => void;
/** A request as the bundled middleware fill it. */
export type BundleRequest = IncomingMessage & Record<string, unknown>;
