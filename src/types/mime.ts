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
  charsets: { lookup(type: string, fallback?: string): string | undefined };
  /** The type of an unknown extension, for `lookup` and for files served (`application/octet-stream`). */
  default_type: string;
}
