import type { ServerResponse } from 'node:http';

/**
 * Adds a Set-Cookie line, keeping those already set (by the app's `res.cookie`, by
 * other middleware). Node sends the name of the last `setHeader`: small letters by
 * default, as Connect 2.30's session and csurf name it; cookieSession names it
 * `Set-Cookie`. (Connect's response added up Set-Cookie values itself; a 4.x response
 * replaces them, and webapp/v3's, which adds them up as Connect's did, takes a list
 * that repeats its values as that list.)
 */
export function appendSetCookie(res: ServerResponse, line: string, name = 'set-cookie'): void {
  const previous = res.getHeader('set-cookie');
  const lines = previous === undefined ? [] : Array.isArray(previous) ? previous : [String(previous)];
  res.setHeader(name, [...lines, line]);
}
