/**
 * Decoding of one key or value of a form-encoded string: `+` is a space, then
 * percent-escapes are decoded as UTF-8. A string holding any malformed escape
 * (`%zz`, a lone `%`, invalid UTF-8) is kept as it is, with only `+` replaced,
 * because that is what qs (and so Express and body-parser) answer.
 */
/** The value of a hexadecimal digit's char code, or -1. */
function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}

/** The general path: `+` replaced, then decodeURIComponent, or the text as it is when that throws. */
function decodeUtf8Escapes(text: string): string {
  const spaced = text.indexOf('+') === -1 ? text : text.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/**
 * Strings up to this long are decoded by the loop alone, which finds the escapes as
 * it goes: cheaper than two builtin searches first for a key or a field's value.
 */
const SEARCHED_FROM_LENGTH = 32;

/**
 * Longer strings go the general way: the loop's answer, built piece by piece, costs
 * more per escape the longer it grows (a value of a million `%2F` took 6 to 10 times
 * Express's time, blocking the event loop for 100 ms and more), where
 * decodeURIComponent is one native pass. Up to this length the loop costs at most a
 * microsecond more, and less where a value has several `+`.
 */
const LOOPED_UP_TO_LENGTH = 256;

export function decodeComponent(text: string): string {
  let first = 0;
  if (text.length > SEARCHED_FROM_LENGTH) {
    const percent = text.indexOf('%');
    // Without '%' there is nothing to decode; skipping the loop is the common fast path.
    if (percent === -1) return text.indexOf('+') === -1 ? text : text.replaceAll('+', ' ');
    if (text.length > LOOPED_UP_TO_LENGTH) return decodeUtf8Escapes(text);
    const plus = text.indexOf('+');
    first = plus !== -1 && plus < percent ? plus : percent;
  }
  // Why a loop: forms escape mostly ASCII punctuation (`%21`, `%2F`, `%40`), and
  // decoding those here, with `+` in the same pass, costs under half of a regex
  // replace plus decodeURIComponent. Anything else (UTF-8 bytes, malformed
  // escapes) goes the general way, so the answers stay the same.
  let out = '';
  let start = 0;
  for (let i = first; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x2b) {
      out += text.slice(start, i) + ' ';
      start = i + 1;
    } else if (code === 0x25) {
      const high = i + 2 < text.length ? hexValue(text.charCodeAt(i + 1)) : -1;
      const low = high === -1 ? -1 : hexValue(text.charCodeAt(i + 2));
      if (low === -1 || high > 7) return decodeUtf8Escapes(text);
      out += text.slice(start, i) + String.fromCharCode(high * 16 + low);
      i += 2;
      start = i + 1;
    }
  }
  // Nothing replaced: the text itself, not a copy.
  return start === 0 ? text : out + text.slice(start);
}

const ENCODED_OPEN_BRACKET = /%5b/gi;
const ENCODED_CLOSE_BRACKET = /%5d/gi;

/**
 * qs turns every `%5B`/`%5D` of the whole input into `[`/`]` before splitting,
 * so encoded brackets nest like literal ones (and a `%5D=` marks the key's end).
 */
export function unescapeBrackets(input: string): string {
  if (input.indexOf('%5') === -1) return input;
  // Two replaces with constant strings: a callback per escape cost 3 to 5 times as much
  // on inputs made of escaped brackets.
  return input.replace(ENCODED_OPEN_BRACKET, '[').replace(ENCODED_CLOSE_BRACKET, ']');
}
