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
  namedExtensions,
  namedTypes,
  setDefaultType,
  setExtensionType,
  setTypeExtension,
  textCharsetOf,
  typeOfExtension,
  typeOfExtension3,
} from './mime';
import { registerMimeObject } from './mime-answers';

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

/** A Content-Type's type without parameters, lower-cased, as `mime.extension` reads it. */
function bareType(type: string): string | undefined {
  return /^\s*([^;\s]*)(?:;|\s|$)/.exec(String(type))?.[1].toLowerCase();
}

/**
 * `mime.types` (extension to type) or `mime.extensions` (type to extension): an object
 * over the tables webapp looks types up in, as mime 1.x's are the tables its lookups
 * read. Reading a key looks it up; assigning one (`mime.types.wasm =
 * 'application/wasm'`, a common line in Express apps) defines it for `res.type`,
 * `res.sendFile` and `static`; `delete` makes it unknown; `Object.keys` lists them all.
 */
function tableView(read: (key: string) => string | false | undefined, write: (key: string, value: unknown) => void) {
  const entry = (key: string | symbol): string | undefined =>
    typeof key === 'string' ? read(key) || undefined : undefined;
  return (names: () => string[]): Record<string, string> =>
    new Proxy(Object.create(null) as Record<string, string>, {
      get: (_target, key) => entry(key),
      has: (_target, key) => entry(key) !== undefined,
      set(_target, key, value) {
        if (typeof key === 'string') write(key, value);
        return true;
      },
      deleteProperty(_target, key) {
        if (typeof key === 'string') write(key, undefined);
        return true;
      },
      defineProperty(_target, key, descriptor) {
        if (typeof key === 'string') write(key, descriptor.value);
        return true;
      },
      ownKeys: () => names().filter((key) => entry(key) !== undefined),
      getOwnPropertyDescriptor(_target, key) {
        const value = entry(key);
        return value === undefined ? undefined : { value, writable: true, enumerable: true, configurable: true };
      },
    });
}

const typesView = (typeOf: (ext: string) => string | false) =>
  tableView(typeOf, (ext, type) => setExtensionType(ext, type ? String(type) : false))(namedExtensions);

const extensionsView = tableView(extensionOfType, (type, ext) => setTypeExtension(type, ext ? String(ext) : undefined))(
  namedTypes,
);

/**
 * mime 1.x's `Mime` class (`new mime.Mime()`): a table of its own, empty until
 * `define` or `load` fill it, apart from the app's.
 */
class Mime {
  types: Record<string, string> = Object.create(null) as Record<string, string>;
  extensions: Record<string, string> = Object.create(null) as Record<string, string>;
  default_type: string | undefined;

  define(map: Record<string, readonly string[]>): void {
    for (const type of Object.keys(map)) {
      const extensions = map[type];
      for (const ext of extensions) this.types[ext] = type;
      if (!this.extensions[type]) this.extensions[type] = extensions[0];
    }
  }

  load(file: string): void {
    this.define(parseTypesFile(readFileSync(file, 'ascii')));
  }

  lookup(path: string, fallback?: string): string | undefined {
    const ext = String(path)
      .replace(/^.*[./\\]/, '')
      .toLowerCase();
    return this.types[ext] || fallback || this.default_type;
  }

  extension(type: string): string | undefined {
    const bare = bareType(type);
    return bare === undefined ? undefined : this.extensions[bare];
  }
}

/**
 * A `mime` object of one version's tables: mime 1.6 (4.x) gives UTF-8 to text,
 * JavaScript and JSON; mime 1.3.4 (3.x) to text only, and has older names for a
 * few types (`lookupType3`).
 */
function createMimeModule(
  lookupFor: (path: string) => string | false,
  typeOf: (ext: string) => string | false,
  charsetFor: (type: string) => string | false,
): MimeModule {
  const methods = {
    types: typesView(typeOf),
    extensions: extensionsView,
    Mime,
    lookup(path: string, fallback?: string): string {
      return lookupFor(String(path)) || fallback || defaultType;
    },
    extension(type: string): string | undefined {
      const bare = bareType(type);
      return bare === undefined ? undefined : extensionOfType(bare);
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
export const mime = createMimeModule(lookupType, typeOfExtension, charsetOf);

/** `express.mime` and `express.static.mime` of 3.x (Connect 2.30's send 0.13). */
export const mime3 = createMimeModule(lookupType3, typeOfExtension3, textCharsetOf);

// What the senders ask once an app replaces `lookup` or `charsets.lookup` (mime-answers.ts).
registerMimeObject(4, mime);
registerMimeObject(3, mime3);
