/**
 * MIME types as Express 4 sees them. The database is mime-types (mime-db), but
 * Express 4.22 and send 0.19 look types up in the older `mime` 1.6 tables, which
 * differ from mime-db for a few extensions. Those differences are listed below so
 * `res.type('ico')`, `res.sendFile('x.wav')` and the static middleware answer
 * with the exact Content-Type an Express 4 app sends today.
 */
import { lazy } from './lazy';

const mimeTypes = lazy(() => require('mime-types') as typeof import('mime-types'));
const mimeDbTypes = () => mimeTypes().types;

/** Extensions that Express 4 (mime 1.6) maps to another type than mime-db does. */
const EXPRESS4_TYPES: Readonly<Record<string, string>> = {
  asc: 'application/pgp-signature',
  deb: 'application/octet-stream',
  dll: 'application/octet-stream',
  dmg: 'application/octet-stream',
  emf: 'application/x-msmetafile',
  exe: 'application/octet-stream',
  hjson: 'text/hjson',
  ico: 'image/x-icon',
  iso: 'application/octet-stream',
  mpp: 'application/vnd.ms-project',
  msi: 'application/octet-stream',
  obj: 'application/x-tgif',
  pcx: 'image/x-pcx',
  rar: 'application/x-rar-compressed',
  stl: 'application/vnd.ms-pki.stl',
  wav: 'audio/wav',
  wmf: 'application/x-msmetafile',
  x3db: 'model/x3d+binary',
  x3dv: 'model/x3d+vrml',
  xlf: 'application/x-xliff+xml',
};

/** Extensions mime-db knows but Express 4 (mime 1.6) does not: they are looked up as unknown. */
const UNKNOWN_TO_EXPRESS4 = new Set(
  (
    '1km 3mf age amr atomdeleted avci avcs avif azv b16 bmml bsp cdfx cjs cpl csl dbf ddf dds ' +
    'disposition-notification drle dwd emotionml es exp exr fdt fits fo ged heic heics heif heifs hej2 held ' +
    'hsj2 its jhc jls jph jxr jxra jxrs jxs jxsc jxsi jxss kdbx key ktx2 lgr m4s maei mdx mpf mtl musd mvt ' +
    'mxmf nq nt numbers obgx ogex opus osm owl pages provx pti rapd relo rsat rsheet rusd senmlx sensmlx ' +
    'shex sieve siv sls spdx stpx stpxz stpz swidtag t38 tap td tfx toml trig ttml u8dsn u8hdr u8mdn u8msg ' +
    'ubj usdz vds vtf wif wsc x_b x_t xav xca xcs xel xns'
  ).split(' '),
);

/** Extensions that Express 3.21 (mime 1.3.4) maps to another type than Express 4 does. */
const EXPRESS3_TYPES: Readonly<Record<string, string>> = {
  deb: 'application/x-debian-package',
  dll: 'application/x-msdownload',
  dmg: 'application/x-apple-diskimage',
  exe: 'application/x-msdownload',
  iso: 'application/x-iso9660-image',
  jpm: 'video/jpm',
  markdown: 'text/x-markdown',
  md: 'text/x-markdown',
  mdp: 'application/dash+xml',
  msi: 'application/x-msdownload',
  otf: 'font/opentype',
  ttc: 'application/x-font-ttf',
  ttf: 'application/x-font-ttf',
  wav: 'audio/x-wav',
  wmz: 'application/x-msmetafile',
  woff: 'application/font-woff',
  woff2: 'application/font-woff2',
};

/** Extensions Express 4 knows but Express 3.21 (mime 1.3.4) does not: served as unknown. */
const UNKNOWN_TO_EXPRESS3 = new Set(
  (
    '3gpp apng arj bdoc cco ear gdoc geojson glb gltf gsheet gslides gz hdd img jardiff jng jp2 jpf jpg2 ' +
    'jpx jsonld litcoffee mjs mml mpd msg msm msp n-gage ova ovf pac pde pem php pkpass pl pm raml rng rpm ' +
    'run sea sfd-hdstx shtml slim slm tk vbox vbox-extpack vdi vhd vmdk wadl war wasm webmanifest ymp'
  ).split(' '),
);

const hasOwn = Object.prototype.hasOwnProperty;

/** Where JavaScript's `.` stops matching: `\n`, `\r`, U+2028 and U+2029. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/**
 * The extension of a path or a bare extension, as `mime` 1.x's lookups cut it:
 * everything after the last `.`, `/` or `\`, lower-cased (so `'html'`, `'.html'` and
 * `'a/b.HTML'` all give `html`). Their expression's `.*` stops at a line terminator,
 * so a name with one keeps it in what they look up, which no table has: `evil\r.html`
 * is of no known type, for Express 4 (mime 1.6 cuts within the first line) and for
 * Express 3 (mime 1.3.4 cuts within the first line that has a separator). Looked at
 * as a whole, it would be served as HTML on the app's own origin.
 */
function extensionOf(pathOrExt: string, firstLineOnly: boolean): string {
  // `test` first: most names have no line terminator, and `search` costs more per call.
  if (!LINE_TERMINATOR.test(pathOrExt)) return afterLastSeparator(pathOrExt, 0, pathOrExt.length);
  const terminator = pathOrExt.search(LINE_TERMINATOR);
  if (firstLineOnly) return afterLastSeparator(pathOrExt, 0, terminator);
  let lineStart = 0;
  let lineEnd = terminator;
  for (;;) {
    const separator = lastSeparator(pathOrExt, lineStart, lineEnd);
    if (separator !== -1) return (pathOrExt.slice(0, lineStart) + pathOrExt.slice(separator + 1)).toLowerCase();
    if (lineEnd === pathOrExt.length) return pathOrExt.toLowerCase();
    lineStart = lineEnd + 1;
    const next = pathOrExt.slice(lineStart).search(LINE_TERMINATOR);
    lineEnd = next === -1 ? pathOrExt.length : lineStart + next;
  }
}

/** What follows the last separator in `[start, end)` (the whole string when there is none there), lower-cased. */
function afterLastSeparator(text: string, start: number, end: number): string {
  return text.slice(lastSeparator(text, start, end) + 1).toLowerCase();
}

/** The position of the last `.`, `/` or `\` in `[start, end)`, or -1. */
function lastSeparator(text: string, start: number, end: number): number {
  for (let i = end - 1; i >= start; i--) {
    const code = text.charCodeAt(i);
    if (code === 0x2e /* . */ || code === 0x2f /* / */ || code === 0x5c /* \ */) return i;
  }
  return -1;
}

/**
 * The types `res.send`, `res.sendStatus` and `res.type` ask for on every response,
 * as mime-db gives them: answering these from here keeps the database (200 KB of
 * JSON) out of the first request.
 */
const COMMON_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html',
  txt: 'text/plain',
  json: 'application/json',
  bin: 'application/octet-stream',
};

/**
 * Types an app added through `mime.define` (src/http/mime-module.ts), by extension,
 * and the first extension of each: they come before every table, as in `mime` 1.x.
 */
const definedTypes = new Map<string, string | false>();
const definedExtensions = new Map<string, string | undefined>();

/** How many `defineType` calls there were: what was looked up before the last may have changed. */
let definitions = 0;

export function definitionCount(): number {
  return definitions;
}

/** Adds `type` for each extension (replacing what it was), as `mime.define` does. */
export function defineType(type: string, extensions: readonly string[]): void {
  definitions++;
  // Kept as written, as mime 1.x keeps it: looked up in small letters, an extension
  // defined in capitals is never found (Express serves `.FOO` files as unknown then).
  for (const ext of extensions) definedTypes.set(String(ext), type);
  if (!definedExtensions.has(type) && extensions.length > 0) definedExtensions.set(type, String(extensions[0]));
}

/**
 * Sets the type of one extension, or (false) makes it unknown: an assignment to (or a
 * `delete` of) `mime.types[ext]`, which mime 1.x's lookups read as they are.
 */
export function setExtensionType(ext: string, type: string | false): void {
  definitions++;
  definedTypes.set(ext, type);
}

/** Sets (or, undefined, removes) the extension of a type: an assignment to `mime.extensions[type]`. */
export function setTypeExtension(type: string, ext: string | undefined): void {
  definitions++;
  definedExtensions.set(type, ext);
}

/** The first extension of a media type (`mime.extension`), or undefined. */
export function extensionOfType(type: string): string | undefined {
  if (definedExtensions.size !== 0 && definedExtensions.has(type)) return definedExtensions.get(type);
  return mimeTypes().extension(type) || undefined;
}

/** The media type for a file path or extension, or `false` when the extension is unknown. */
export function lookupType(pathOrExt: string): string | false {
  if (typeof pathOrExt !== 'string' || pathOrExt === '') return false;
  return typeOfExtension(extensionOf(pathOrExt, true));
}

/**
 * The media type Express 3.21 and Connect 2.30 give a file path or extension (their
 * `mime` 1.3.4 tables), or `false`: what `webapp/v3` serves files and `res.type`s with.
 */
export function lookupType3(pathOrExt: string): string | false {
  if (typeof pathOrExt !== 'string' || pathOrExt === '') return false;
  return typeOfExtension3(extensionOf(pathOrExt, false));
}

/** Express 4's type for an extension as it is written (`mime.types[ext]`), or false. */
export function typeOfExtension(ext: string): string | false {
  if (definedTypes.size !== 0 && definedTypes.has(ext)) return definedTypes.get(ext)!;
  return lookupExtension(ext);
}

/** Express 3.21's type for an extension as it is written, or false. */
export function typeOfExtension3(ext: string): string | false {
  if (definedTypes.size !== 0 && definedTypes.has(ext)) return definedTypes.get(ext)!;
  if (hasOwn.call(EXPRESS3_TYPES, ext)) return EXPRESS3_TYPES[ext];
  if (UNKNOWN_TO_EXPRESS3.has(ext)) return false;
  return lookupExtension(ext);
}

/** Every extension some table or definition names (a superset of those with a type). */
export function namedExtensions(): string[] {
  const names = new Set(Object.keys(mimeDbTypes()));
  for (const table of [COMMON_TYPES, EXPRESS4_TYPES, EXPRESS3_TYPES]) for (const ext in table) names.add(ext);
  for (const ext of definedTypes.keys()) names.add(ext);
  return [...names];
}

/** Every media type some table or definition names (a superset of those with an extension). */
export function namedTypes(): string[] {
  const names = new Set(Object.keys(mimeTypes().extensions));
  for (const type of definedExtensions.keys()) names.add(type);
  return [...names];
}

/** Express 4's type for a lower-cased extension, after the app's own definitions. */
function lookupExtension(ext: string): string | false {
  if (hasOwn.call(COMMON_TYPES, ext)) return COMMON_TYPES[ext];
  if (hasOwn.call(EXPRESS4_TYPES, ext)) return EXPRESS4_TYPES[ext];
  if (UNKNOWN_TO_EXPRESS4.has(ext)) return false;
  return mimeDbTypes()[ext] ?? false;
}

const UTF8_TYPES = /^text\/|^application\/(?:javascript|json)/;

/**
 * The charset Express 4 attaches to a media type: `UTF-8` for `text/*`,
 * `application/javascript*` and `application/json*`, otherwise `false`.
 */
export function charsetOf(type: string): string | false {
  return typeof type === 'string' && UTF8_TYPES.test(type) ? 'UTF-8' : false;
}

const TEXT_TYPES = /^text\//;

/** The charset Express 3.21 and Connect 2.30 (mime 1.3) attach: `UTF-8` for `text/*` only. */
export function textCharsetOf(type: string): string | false {
  return typeof type === 'string' && TEXT_TYPES.test(type) ? 'UTF-8' : false;
}

const HAS_CHARSET = /;\s*charset\s*=/;

/**
 * A full Content-Type value from a media type or an extension, with
 * `; charset=utf-8` appended where `charsetOf` gives one and none is present
 * (what Express 4's `res.type`/`res.set('Content-Type')` produce).
 * `false` when an extension is unknown.
 */
export function contentType(typeOrExt: string): string | false {
  if (typeof typeOrExt !== 'string' || typeOrExt === '') return false;
  const type = typeOrExt.includes('/') ? typeOrExt : lookupType(typeOrExt);
  if (!type) return false;
  if (HAS_CHARSET.test(type)) return type;
  const charset = charsetOf(type.split(';')[0]);
  return charset ? type + '; charset=' + charset.toLowerCase() : type;
}

/**
 * The type Express 4 falls back to for files of unknown extension; an app may
 * change it through `mime.default_type` (setDefaultType).
 */
export let defaultType = 'application/octet-stream';

export function setDefaultType(type: string): void {
  defaultType = type;
}
