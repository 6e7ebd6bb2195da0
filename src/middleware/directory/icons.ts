/**
 * Icons of the HTML listing (`icons: true`): a handful of 16x16 SVG drawings
 * embedded as data URIs in the page's stylesheet, so a listing is one response
 * with nothing else to fetch. A file gets the icon of its kind, found from its
 * extension, then from its media type.
 */
import { extname } from 'node:path';
import mimeTypes from 'mime-types';

export type IconKind = 'directory' | 'file' | 'text' | 'image' | 'code' | 'archive' | 'media' | 'document';

/** A sheet of paper with a folded corner: the base of every file icon. */
const PAGE =
  '<path d="M3 1.5h6.5L13 5v9.5H3z" fill="#fff" stroke="#8a8f98"/>' +
  '<path d="M9.5 1.5V5H13" fill="#e4e6ea" stroke="#8a8f98"/>';

function svg(body: string): string {
  return '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">' + body + '</svg>';
}

const DRAWINGS: Record<IconKind, string> = {
  directory: svg(
    '<path d="M1.5 3.5h5l1.5 1.5h6.5v8.5h-13z" fill="#f3c95b" stroke="#c9982a"/>' +
      '<path d="M1.5 6.5h13" stroke="#c9982a"/>',
  ),
  file: svg(PAGE),
  text: svg(PAGE + '<path d="M5 7.5h6M5 9.5h6M5 11.5h4" stroke="#8a8f98"/>'),
  image: svg(
    PAGE +
      '<circle cx="6.5" cy="7.5" r="1.2" fill="#e8a33d"/><path d="M4 13l3-3.5 2 2 1.5-1.5 1.5 3z" fill="#4f9a5b"/>',
  ),
  code: svg(PAGE + '<path d="M6.5 8L5 10l1.5 2M9.5 8l1.5 2-1.5 2" fill="none" stroke="#3b6fd1" stroke-width="1.2"/>'),
  archive: svg(
    '<path d="M2.5 5.5h11v8h-11z" fill="#d9b77e" stroke="#9a7a45"/>' +
      '<path d="M1.5 3h13v2.5h-13z" fill="#c9a266" stroke="#9a7a45"/>' +
      '<path d="M6.5 8h3" stroke="#6b5230" stroke-width="1.4"/>',
  ),
  media: svg(PAGE + '<path d="M6.5 7.5v5l4-2.5z" fill="#b04ad1"/>'),
  document: svg(PAGE + '<path d="M4.5 7h7v2h-7z" fill="#d14a4a"/><path d="M5 11h6M5 12.8h4" stroke="#8a8f98"/>'),
};

const BY_EXTENSION: Record<string, IconKind> = {};
function kindFor(kind: IconKind, extensions: string): void {
  for (const ext of extensions.split(' ')) BY_EXTENSION['.' + ext] = kind;
}
// Extensions whose media type is unknown or too generic (application/octet-stream, text/plain) to tell.
kindFor(
  'code',
  'c cc cpp cs go h hpp java jsx kt lua m php pl py rb rs scss sass less sh swift ts tsx vue yaml yml toml ini sql',
);
kindFor('archive', 'gz tgz bz2 tbz2 xz txz lz lzma 7z rar tar zip jar apk deb rpm dmg iso cab msi');
kindFor('document', 'pdf doc docx odt rtf xls xlsx ods ppt pptx odp');
kindFor('text', 'txt md markdown log csv srt');

const CODE_TYPES = new Set([
  'application/javascript',
  'application/json',
  'application/xml',
  'text/html',
  'text/css',
  'text/javascript',
  'text/xml',
]);

function kindOfType(type: string): IconKind {
  if (CODE_TYPES.has(type) || type.endsWith('+json') || type.endsWith('+xml'))
    return type === 'image/svg+xml' ? 'image' : 'code';
  if (type.endsWith('+zip') || type.endsWith('-compressed') || type === 'application/gzip') return 'archive';
  const [major] = type.split('/');
  if (major === 'image') return 'image';
  if (major === 'audio' || major === 'video') return 'media';
  if (major === 'text') return 'text';
  if (major === 'font') return 'file';
  if (
    type === 'application/pdf' ||
    type === 'application/rtf' ||
    type === 'application/msword' ||
    type.startsWith('application/vnd.ms-') ||
    type.startsWith('application/vnd.openxmlformats') ||
    type.startsWith('application/vnd.oasis.opendocument')
  ) {
    return 'document';
  }
  return 'file';
}

/** The icon of a file name (not of a directory: those are always `directory`). */
export function iconKindOf(name: string): IconKind {
  const ext = extname(name).toLowerCase();
  const known = BY_EXTENSION[ext];
  if (known) return known;
  const type = ext ? mimeTypes.lookup(ext) : false;
  return type ? kindOfType(type) : 'file';
}

/**
 * The extension as a CSS class (`icon-pdf`), so a custom stylesheet can give one
 * extension its own icon as it could in 3.x; names that are not plain class
 * material get none.
 */
export function extensionClass(name: string): string | undefined {
  const ext = extname(name).slice(1).toLowerCase();
  return /^[a-z0-9_-]+$/.test(ext) ? 'icon-' + ext : undefined;
}

/** CSS rules giving each kind in `kinds` its drawing (only the kinds a page shows are sent). */
export function iconStylesheet(kinds: Iterable<IconKind>): string {
  let css = '';
  for (const kind of new Set(kinds)) {
    css +=
      '#files .icon-' +
      kind +
      ' .name { background-image: url("data:image/svg+xml,' +
      encodeURIComponent(DRAWINGS[kind]) +
      '"); }\n';
  }
  return css;
}
