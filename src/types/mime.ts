/** The `mime` 1.x object of `webapp.static.mime` (and `express.mime` in 3.x); src/http/mime-module.ts makes it. */
export interface MimeModule {
  /** The type of a path or extension; else `fallback`, else `default_type`. */
  lookup(path: string, fallback?: string): string;
  /** The first extension of a type (parameters ignored), or undefined. */
  extension(type: string): string | undefined;
  /** Adds types: `{ 'text/x-foo': ['foo', 'fo'] }`. */
  define(map: Record<string, readonly string[]>, force?: boolean): void;
  /** Adds the types of an Apache `.types` file (`type ext1 ext2`, `#` comments). */
  load(file: string): void;
  charsets: {
    /** The charset of a text type (`UTF-8`), else `fallback`: a string whenever one is given. */
    lookup(type: string, fallback: string): string;
    lookup(type: string): string | undefined;
  };
  /** The type of an unknown extension, for `lookup` and for files served (`application/octet-stream`). */
  default_type: string;
  /** Extension to type, every one known; assigning or deleting one changes what is served. */
  types: Record<string, string>;
  /** Type to its first extension, every one known; assignable as `types` is. */
  extensions: Record<string, string>;
  /** mime 1.x's class: a table of its own, empty until `define` or `load` fill it. */
  Mime: new () => MimeTable;
}

/** An instance of `mime.Mime`. */
export interface MimeTable {
  types: Record<string, string>;
  extensions: Record<string, string>;
  default_type: string | undefined;
  define(map: Record<string, readonly string[]>): void;
  load(file: string): void;
  lookup(path: string, fallback?: string): string | undefined;
  extension(type: string): string | undefined;
}
