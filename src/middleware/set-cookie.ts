import type { ServerResponse } from 'node:http';

/**
 * Adds a Set-Cookie line, keeping those already set. Named in small letters on the
 * wire (Node sends the name of the last `setHeader`), as Connect 2.30's session and
 * csurf name it.
 */
export function appendSetCookie(res: ServerResponse, line: string): void {
  const previous = res.getHeader('set-cookie');
  const lines = previous === undefined ? [] : Array.isArray(previous) ? previous : [String(previous)];
  res.setHeader('set-cookie', [...lines, line]);
}
