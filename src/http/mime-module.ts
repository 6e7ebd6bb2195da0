/**
 * The `mime` 1.x object Express hands its apps: `express.static.mime` in 4.x
 * (send's, through serve-static) and `express.mime` in 3.x (Connect's). Apps
 * look types up with it and, with `define` or `load`, add types that `res.type`,
 * `res.sendFile` and the static middleware then answer with, as in Express,
 * where all of them read the same `mime` tables.
 */
import { readFileSync } from 'node:fs';
import type { MimeModule } from '../types/mime';
import {
  charsetOf,
  defaultType,
  defineType,
  extensionOfType,
  lookupType,
  lookupType3,
  setDefaultType,
  textCharsetOf,
} from './mime';

export type { MimeModule };

/** The `.types` file format mime 1.x reads: one type per line, then its extensions. */
function parseTypesFile(text: string): Record<string, string[]> {
  const map: Record<string, string[]> = {};
  for (const line of text.split(/[\r\n]+/)) {
    const fields = line.replace(/\s*#.*|^\s*|\s*$/g, '').split(/\s+/);
    const type = fields.shift();
    if (type) map[type] = fields.filter(Boolean);
  }
  return map;
}

/**
 * A `mime` object of one version's tables: mime 1.6 (4.x) gives UTF-8 to text,
 * JavaScript and JSON; mime 1.3.4 (3.x) to text only, and has older names for a
 * few types (`lookupType3`).
 */
function createMimeModule(
  lookupFor: (path: string) => string | false,
  charsetFor: (type: string) => string | false,
): MimeModule {
  const methods = {
    lookup(path: string, fallback?: string): string {
      return lookupFor(String(path)) || fallback || defaultType;
    },
    extension(type: string): string | undefined {
      const match = /^\s*([^;\s]*)(?:;|\s|$)/.exec(String(type));
      return match ? extensionOfType(match[1].toLowerCase()) : undefined;
    },
    define(map: Record<string, readonly string[]>): void {
      for (const type of Object.keys(map)) defineType(type, map[type]);
    },
    load(file: string): void {
      methods.define(parseTypesFile(readFileSync(file, 'ascii')));
    },
    charsets: {
      lookup(type: string, fallback?: string): string | undefined {
        return charsetFor(String(type)) || fallback;
      },
    },
  };
  // An accessor: setting it changes what res.type and the file senders fall back to.
  return Object.defineProperty(methods, 'default_type', {
    enumerable: true,
    configurable: true,
    get: () => defaultType,
    set: (type: string) => setDefaultType(type),
  }) as MimeModule;
}

/** `express.static.mime` (4.x). */
export const mime = createMimeModule(lookupType, charsetOf);

/** `express.mime` and `express.static.mime` of 3.x (Connect 2.30's send 0.13). */
export const mime3 = createMimeModule(lookupType3, textCharsetOf);
