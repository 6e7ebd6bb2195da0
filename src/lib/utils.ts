/// <reference types="node" preserve="true" />
/**
 * `require('express/lib/utils')` under an npm alias: Express 4's internal helpers,
 * which application code reaches for (an editor's auto-import of `contentDisposition`
 * or `compileETag` writes that path), built on webapp's own. Private in Express, so
 * only what 4.22 exports, with the same answers; the two that Express deprecates
 * print the deprecation notice (under webapp's name, as all of webapp's do). Named
 * exports, as Express's `exports.name = ...`, so that an ES module's
 * `import { contentDisposition } from 'express/lib/utils'` finds them too.
 */
import { contentDisposition as formatContentDisposition } from '../http/content-disposition';
import { setCharset } from '../http/content-type';
import { deprecate } from '../http/deprecate';
import { mediaTypeFor } from '../http/mime-answers';
import { isAbsolutePath } from '../response/files';
import { flattenHandlers } from '../router/route';
import { compileETag, compileQueryParser, compileTrust, strongETag, weakETag } from '../settings';

interface MediaRange {
  value: string;
  quality: number;
  params: Record<string, string>;
}

/** `type; q=0.5; level=1` as Express reads a type given to `res.format`-era helpers. */
function mediaRange(text: string): MediaRange {
  const [value, ...parameters] = text.split(/ *; */);
  const range: MediaRange = { value, quality: 1, params: {} };
  for (const parameter of parameters) {
    const [name, parameterValue] = parameter.split(/ *= */);
    if (name === 'q') range.quality = parseFloat(parameterValue);
    else range.params[name] = parameterValue;
  }
  return range;
}

/** An extension (`html`) becomes its type (send's mime 1.x: unknown ones are `application/octet-stream`). */
function normalizeType(type: string): MediaRange | { value: string; params: Record<string, string> } {
  return type.includes('/') ? mediaRange(type) : { value: mediaTypeFor(type) as string, params: {} };
}

/** `array-flatten` 1.x: nested arrays flattened, `depth` levels deep when given. */
function flattenArray(array: readonly unknown[], depth?: number): unknown[] {
  if (depth === undefined) return flattenHandlers(array);
  const out: unknown[] = [];
  for (const item of array) {
    if (Array.isArray(item) && depth > 0) out.push(...flattenArray(item, depth - 1));
    else out.push(item);
  }
  return out;
}

/** A strong ETag of a body (a string is read in `encoding`, UTF-8 by default). */
export const etag = strongETag;
/** A weak ETag of a body. */
export const wetag = weakETag;

/** A POSIX absolute path, a Windows drive path (`C:\`, `C:/`) or a UNC path; `undefined` otherwise, as in Express. */
export function isAbsolute(path: string): true | undefined {
  return isAbsolutePath(path) || undefined;
}

export function flatten(array: readonly unknown[], depth?: number): unknown[] {
  deprecate('utils.flatten: use array-flatten npm module instead');
  return flattenArray(array, depth);
}

export function normalizeTypes(types: readonly string[]) {
  return types.map((type) => normalizeType(type));
}

export function contentDisposition(
  filename?: string,
  options?: Parameters<typeof formatContentDisposition>[1],
): string {
  deprecate('utils.contentDisposition: use content-disposition npm module instead');
  return formatContentDisposition(filename, options);
}

export { normalizeType, compileETag, compileQueryParser, compileTrust, setCharset };
