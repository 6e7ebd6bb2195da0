import type { ServerResponse } from 'node:http';
import { tokenList } from './header-list';

const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The Vary header value with `field` (a name, comma list or array) added once,
 * case-insensitively; `*` absorbs everything. Invalid header names throw.
 */
export function appendVary(header: string, field: string | readonly string[]): string {
  if (typeof header !== 'string') throw new TypeError('header argument is required');
  if (!field) throw new TypeError('field argument is required');
  const fields = Array.isArray(field) ? (field as string[]) : tokenList(String(field));
  for (const name of fields) {
    if (!FIELD_NAME.test(name)) throw new TypeError('field argument contains an invalid header name');
  }
  return addNames(header, fields, tokenList, lowerName);
}

/**
 * A name of `fields` in lower case. An array may hold a non-string whose text passed the
 * name test (a number, a Buffer): it fails with the TypeError the `vary` package's loop throws.
 */
function lowerName(name: string): string {
  if (typeof name !== 'string' && name != null && typeof (name as { toLowerCase?: unknown }).toLowerCase !== 'function')
    throw new TypeError('fields[i].toLowerCase is not a function');
  return name.toLowerCase();
}

/** A separator of RFC 7230's token grammar: what the rules of Express 3.x refuse in a name. */
const SEPARATOR = /[()<>@,;:\\"/[\]?={}\u0020\u0009]/;

/** A Vary list cut as Express 3.x cut it: at commas with the spaces around them. */
const legacyList = (list: string): string[] => list.trim().split(/ *, */);

/**
 * `appendVary` by the rules of Express 3.21 (its `vary` 1.0.1), for webapp/v3's
 * `res.vary`: a name is refused only for a separator in it (a Latin-1 letter passes), and an
 * empty name between two commas is one more name, already present in an empty header
 * (`Accept,,Cookie` adds `Accept, Cookie`) and added after a name (`X, Accept, , Cookie`).
 */
export function appendVaryLegacy(header: string, field: string | readonly string[]): string {
  if (typeof header !== 'string') throw new TypeError('header argument is required');
  if (!field) throw new TypeError('field argument is required');
  const fields = Array.isArray(field) ? (field as string[]) : legacyList(String(field));
  for (const name of fields) {
    if (SEPARATOR.test(name)) throw new TypeError('field argument contains an invalid header');
  }
  return addNames(header, fields, legacyList, (name) => name.toLowerCase());
}

/**
 * `header` with each of `fields` it lacks added (compared in lower case, the header read
 * as `split` lists it); `*` in either absorbs everything. A set, not the list: a field
 * list from a request (`res.vary(req.get(...))`) holds thousands of names, and a search
 * of the list per name made the answer quadratic.
 */
function addNames(
  header: string,
  fields: readonly string[],
  split: (list: string) => string[],
  lower: (name: string) => string,
): string {
  if (header === '*') return header;
  const present = new Set(split(header.toLowerCase()));
  if (fields.includes('*') || present.has('*')) return '*';
  let value = header;
  for (const name of fields) {
    const lowered = lower(name);
    if (present.has(lowered)) continue;
    present.add(lowered);
    value = value ? value + ', ' + name : name;
  }
  return value;
}

type VaryTarget = Pick<ServerResponse, 'getHeader' | 'setHeader'>;

/** Adds `field` to the response's Vary header (what `res.vary` does), by `append`'s rules. */
export function vary(res: VaryTarget, field: string | readonly string[], append = appendVary): void {
  const current = res.getHeader('Vary') || '';
  const header = Array.isArray(current) ? current.join(', ') : String(current);
  const value = append(header, field);
  if (value) res.setHeader('Vary', value);
}
