/**
 * Comma-separated header values (`If-None-Match`, `Vary`, `X-Forwarded-Proto`), read
 * in one pass over their characters: a request controls them, up to Node's 16 KB of
 * headers, and a regular expression that backtracks over a run of spaces (` +$` as
 * a trim, white space around a comma as a separator) costs time quadratic in the run.
 */

/** Splits a comma-separated header value, trimming spaces around tokens. */
export function tokenList(value: string): string[] {
  const list: string[] = [];
  let start = 0;
  let end = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 0x20) {
      if (start === end) start = end = i + 1;
    } else if (code === 0x2c) {
      list.push(value.substring(start, end));
      start = end = i + 1;
    } else {
      end = i + 1;
    }
  }
  list.push(value.substring(start, end));
  return list;
}

/**
 * The first entry of a comma-separated list as Express 3's `req.protocol` and Connect's
 * `cookieSession` read it, splitting at a comma and the white space around it: the
 * text before the first comma without the white space before that comma, or the whole
 * value when it has none (leading white space stays, as it does there).
 */
export function firstListEntry(value: string): string {
  const comma = value.indexOf(',');
  return comma === -1 ? value : value.slice(0, comma).trimEnd();
}
