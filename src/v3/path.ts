/**
 * Express 3's route path syntax. It differs from 4.x's in details apps notice
 * (`/foo/` requires its trailing slash unless strict routing is off, `:name*`
 * captures the rest after a slash, `*` and regex groups become numbered params),
 * so webapp/v3 compiles 3.x patterns the way 3.x did, with one security fix:
 *
 * A parameter that follows literal text in the same segment (`/:from-:to`) was
 * compiled to `([^/]+?)`, which backtracks polynomially on long hostile paths
 * (the ReDoS that CVE-2024-45296 fixed in 4.x). Here such a parameter may not
 * contain that literal text, as path-to-regexp 0.1.10+ does, so a path is split at
 * the first occurrence of the separator and matching stays linear.
 */

export interface PathKey3 {
  name: string;
  optional: boolean;
}

const PARAM = /(\/)?(\.)?:(\w+)(?:(\(.*?\)))?(\?)?(\*)?/g;
/** Stands in for a backtracking-safe capture until escaping is done (NUL never occurs in patterns). */
const SAFE_CAPTURE = /\u0000(\d+)\u0000/g;

export function compilePath3(
  path: string | RegExp | Array<string | RegExp>,
  keys: PathKey3[],
  sensitive?: boolean,
  strict?: boolean,
): RegExp {
  if (Object.prototype.toString.call(path) === '[object RegExp]') return path as RegExp;
  let source = Array.isArray(path) ? '(' + path.join('|') + ')' : (path as string);
  const separators: string[] = [];

  source = (source + (strict ? '' : '/?')).replace(/\/\(/g, '(?:/');
  source = source.replace(
    PARAM,
    (
      match,
      slash: string | undefined,
      format: string | undefined,
      name: string,
      capture: string | undefined,
      optional: string | undefined,
      star: string | undefined,
      offset: number,
      whole: string,
    ) => {
      keys.push({ name, optional: Boolean(optional) });
      let pattern = capture;
      if (!pattern) {
        const literal = !slash && !format ? literalBefore(whole, offset) : '';
        if (literal) {
          separators.push(literal);
          pattern = '\u0000' + (separators.length - 1) + '\u0000';
        } else {
          pattern = format ? '([^/.]+?)' : '([^/]+?)';
        }
      }
      const lead = slash ?? '';
      return (
        (optional ? '' : lead) +
        '(?:' +
        (optional ? lead : '') +
        (format ?? '') +
        pattern +
        ')' +
        (optional ?? '') +
        (star ? '(/*)?' : '')
      );
    },
  );
  source = source.replace(/([/.])/g, '\\$1').replace(/\*/g, '(.*)');
  source = source.replace(
    SAFE_CAPTURE,
    (_m, index: string) => '((?:(?!\\/|' + escapeRegExp(separators[Number(index)]) + ').)+?)',
  );
  return new RegExp('^' + source + '$', sensitive ? '' : 'i');
}

/** The literal text between the last `/` (or the end of the previous parameter) and `offset`. */
function literalBefore(source: string, offset: number): string {
  let start = offset;
  while (start > 0) {
    const ch = source[start - 1];
    if (
      ch === '/' ||
      ch === ')' ||
      ch === '?' ||
      ch === '*' ||
      ch === '(' ||
      (/\w/.test(ch) && /:\w*$/.test(source.slice(0, start)))
    )
      break;
    start--;
  }
  const literal = source.slice(start, offset);
  return /^[^\w:()[\]{}?*+|^$\\]+$/.test(literal) ? literal : '';
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
