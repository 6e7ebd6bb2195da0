/**
 * The file objects `req.files` holds, shaped as Connect 2.30 (multiparty 3)
 * made them, and the temporary paths they are written to.
 */
import { randomBytes } from 'node:crypto';
import type { WriteStream } from 'node:fs';
import * as path from 'node:path';
import type { PartInfo } from './busboy';

export interface UploadedFile {
  /** The form field's name as sent (`photos[]`). */
  fieldName: string;
  originalFilename: string;
  /** Where the upload was written, under `uploadDir`. */
  path: string;
  /** The part's headers, lower-cased names. */
  headers: Record<string, string>;
  ws: WriteStream;
  /** Hex digest, present when the `hash` option names an algorithm. */
  hash?: string;
  size: number;
  /** `originalFilename` again (the formidable-era name). */
  name: string;
  /** The part's Content-Type. */
  type: string | null;
  /** When the file was fully written (formidable's field; not enumerable, as Connect 2.30 had none). */
  lastModifiedDate: Date;
}

/** What every file has while it is still being written. */
export type OpenFile = Pick<UploadedFile, 'fieldName' | 'originalFilename' | 'path' | 'headers'> &
  Partial<UploadedFile>;

/**
 * The client's file name as multiparty reported it: anything up to the last
 * backslash (a Windows path) dropped, `%22` and `&#NNNN;` decoded as browsers
 * encode them.
 */
export function clientFilename(raw: string): string {
  return raw
    .slice(raw.lastIndexOf('\\') + 1)
    .replace(/%22/g, '"')
    .replace(/&#(\d{4});/g, (_match, code: string) => String.fromCharCode(Number(code)));
}

/** The extension kept on temporary files: short and harmless characters only (`.tar.gz` keeps `.gz`). */
function safeExtension(filename: string): string {
  const match = /^\.[\w-]{0,16}/.exec(path.extname(filename));
  return match ? match[0] : '';
}

/** A fresh, unguessable path in `dir` (128 random bits; multiparty's Math.random names were guessable). */
export function uploadPath(dir: string, filename: string, keepExtension: boolean): string {
  const name = randomBytes(16).toString('hex') + (keepExtension ? safeExtension(filename) : '');
  return path.join(dir, name);
}

/**
 * The part headers as multiparty kept them. busboy hands over the parsed values
 * only, so the Content-Disposition is rebuilt in the form every browser sends.
 */
export function partHeaders(fieldName: string, rawFilename: string, info: PartInfo): Record<string, string> {
  const headers: Record<string, string> = {
    'content-disposition': `form-data; name="${fieldName}"; filename="${rawFilename}"`,
    'content-type': info.mimeType,
  };
  if (info.encoding !== '7bit') headers['content-transfer-encoding'] = info.encoding;
  return headers;
}
