/**
 * busboy (a runtime dependency) ships no type declarations; these are the parts
 * of its 1.x API the multipart form uses, kept private to this directory.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Writable } from 'node:stream';

export interface PartInfo {
  /** Absent for a part sent without `filename` (busboy still calls an octet-stream part a file). */
  filename?: string;
  /** The part's Content-Transfer-Encoding, `7bit` when none was sent. */
  encoding: string;
  /** The part's media type without parameters, `text/plain` when none was sent. */
  mimeType: string;
}

export interface FieldInfo extends PartInfo {
  valueTruncated: boolean;
}

export interface BusboyConfig {
  headers: IncomingHttpHeaders;
  preservePath?: boolean;
  defCharset?: string;
  defParamCharset?: string;
  limits?: { fieldSize?: number };
}

/**
 * The parser stream. Its events: 'file' (name, stream, PartInfo), 'field'
 * (name, value, FieldInfo), 'error', 'close'; name is undefined for a part without one.
 */
export type BusboyParser = Writable;

/** Throws when the Content-Type is not multipart/form-data with a boundary. */

export const createBusboy: (config: BusboyConfig) => BusboyParser = require('busboy');
