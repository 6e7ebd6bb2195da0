/**
 * Decoding of one key or value of a form-encoded string: `+` is a space, then
 * percent-escapes are decoded as UTF-8. A string holding any malformed escape
 * (`%zz`, a lone `%`, invalid UTF-8) is kept as it is, with only `+` replaced,
 * because that is what qs (and so Express and body-parser) answer.
 */
const PLUS = /\+/g;

export function decodeComponent(text: string): string {
  const spaced = text.indexOf('+') === -1 ? text : text.replace(PLUS, ' ');
  // Without '%' there is nothing to decode; skipping the call is the common fast path.
  if (spaced.indexOf('%') === -1) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

const ENCODED_BRACKET = /%5[bd]/gi;

/**
 * qs turns every `%5B`/`%5D` of the whole input into `[`/`]` before splitting,
 * so encoded brackets nest like literal ones (and a `%5D=` marks the key's end).
 */
export function unescapeBrackets(input: string): string {
  if (input.indexOf('%') === -1) return input;
  return input.replace(ENCODED_BRACKET, (escape) =>
    escape.charCodeAt(2) === 0x42 || escape.charCodeAt(2) === 0x62 ? '[' : ']',
  );
}
