/**
 * `logger`'s format strings, read as Connect 2.30 (morgan 1.6) reads them: it
 * escaped each `"`, put the format between quotes and compiled the result as
 * JavaScript source, so the text between tokens is the text of a JavaScript
 * string literal (`\t` is a tab, `\\` one backslash, `\x41` is `A`) and a token's
 * `[argument]` is read after the quotes were escaped (`:req[a"b]` asks for the
 * header `a\"b`). Here the string is split once into literal text and token
 * calls and no code is generated: a format that 2.30 could not compile (a line
 * break, an escape cut short, a backslash before a token or at the end) throws a
 * SyntaxError when the middleware is made, as there, and one that would have ended
 * 2.30's string early (`\"`, which ran the rest of the format as code) throws too.
 */

export interface TokenCall {
  name: string;
  arg: string | undefined;
}

export interface ParsedFormat {
  /** One more than `calls`: the text before, between and after the token calls. */
  literals: string[];
  calls: TokenCall[];
}

const TOKEN = /:([-\w]{2,})(?:\[([^\]]+)\])?/g;

export function parseFormat(format: string): ParsedFormat {
  const source = format.replace(/"/g, '\\"');
  const literals: string[] = [];
  const calls: TokenCall[] = [];
  let last = 0;
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(source); match; match = TOKEN.exec(source)) {
    literals.push(stringText(source.slice(last, match.index), format));
    calls.push({ name: match[1], arg: match[2] });
    last = match.index + match[0].length;
  }
  literals.push(stringText(source.slice(last), format));
  return { literals, calls };
}

function invalid(format: string, why: string): SyntaxError {
  return new SyntaxError(`invalid logger format ${JSON.stringify(format)}: ${why}`);
}

const HEX = /^[0-9a-fA-F]+$/;

/** The value of `text` as the body of a double-quoted JavaScript string literal (sloppy mode). */
function stringText(text: string, format: string): string {
  if (!text.includes('\\') && !/["\n\r]/.test(text)) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') throw invalid(format, 'a quote after a backslash ends the text (\\")');
    if (c === '\n' || c === '\r') throw invalid(format, 'a line break (write \\n)');
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = text[++i];
    if (e === undefined) throw invalid(format, 'a backslash before a token or at the end');
    switch (e) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'v':
        out += '\v';
        break;
      case '\r':
        if (text[i + 1] === '\n') i++;
        break;
      case '\n':
      case '\u2028':
      case '\u2029':
        break; // a line continuation
      case 'x': {
        const hex = text.slice(i + 1, i + 3);
        if (hex.length !== 2 || !HEX.test(hex)) throw invalid(format, 'an incomplete \\x escape');
        out += String.fromCharCode(parseInt(hex, 16));
        i += 2;
        break;
      }
      case 'u': {
        let hex: string;
        if (text[i + 1] === '{') {
          const close = text.indexOf('}', i + 2);
          hex = close === -1 ? '' : text.slice(i + 2, close);
          if (!HEX.test(hex) || parseInt(hex, 16) > 0x10ffff) throw invalid(format, 'an invalid \\u{} escape');
          i = close;
        } else {
          hex = text.slice(i + 1, i + 5);
          if (hex.length !== 4 || !HEX.test(hex)) throw invalid(format, 'an incomplete \\u escape');
          i += 4;
        }
        out += String.fromCodePoint(parseInt(hex, 16));
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          // Legacy octal: up to three digits from 0-3, two from 4-7.
          let digits = e;
          const max = e <= '3' ? 3 : 2;
          while (digits.length < max && text[i + 1] >= '0' && text[i + 1] <= '7') digits += text[++i];
          out += String.fromCharCode(parseInt(digits, 8));
        } else {
          out += e; // `\8`, `\9`, `\q`, `\\`, `\'`...: the character itself
        }
    }
  }
  return out;
}
