/**
 * A copy of `text` that shares no memory with the string it came from. V8 makes a
 * substring of 13 characters or more (`slice`, `split`, `trim`, a regular expression's
 * capture, a urlencoded field that needs no decoding) a view into its parent, which
 * then lives as long as the substring does. A cache keyed by a value an app took from a
 * request (`res.type(req.body.kind)`, `res.send(req.body.name)`) would keep that whole
 * request body: a bounded number of entries, but each up to the body parser's limit.
 * Cached strings are detached when they are stored (on a miss), never when looked up.
 *
 * How: concatenated with one character, the text is a pair V8 flattens into a new
 * string of its own when the slice is taken; the slice is a view of that new string.
 */
export function detachedString(text: string): string {
  return (' ' + text).slice(1);
}
