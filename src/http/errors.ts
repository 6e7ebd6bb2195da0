import { STATUS_CODES } from 'node:http';

/** The shape of every error webapp creates for an HTTP failure (as http-errors shapes them). */
export interface HttpError extends Error {
  status: number;
  statusCode: number;
  /** Whether `message` may be shown to the client: true for 4xx, false for 5xx. */
  expose: boolean;
  /** A stable error kind to match on instead of the message (body-parser's `type`). */
  type?: string;
  [key: string]: unknown;
}

/** Names http-errors gives its error classes, so `err.name` reads as it does in Express apps. */
function errorName(status: number): string {
  const phrase = STATUS_CODES[status];
  if (!phrase) return 'Error';
  const words = phrase.replace(/[^ A-Za-z0-9]/g, '').split(' ');
  const name = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
  return name.endsWith('Error') ? name : name + 'Error';
}

/**
 * The one place HTTP errors are made. `props` are copied on (e.g. `type`, `limit`,
 * `body`). A status outside 400..599 falls back to 500, as http-errors does.
 */
export function createHttpError(status: number, message?: string, props?: Record<string, unknown>): HttpError {
  const code = Number.isInteger(status) && status >= 400 && status < 600 ? status : 500;
  const err = new Error(message ?? STATUS_CODES[code] ?? 'Error') as HttpError;
  Object.defineProperty(err, 'name', { value: errorName(code), enumerable: false, writable: true, configurable: true });
  err.status = code;
  err.statusCode = code;
  err.expose = code < 500;
  if (props) {
    for (const key of Object.keys(props)) {
      if (key !== 'status' && key !== 'statusCode') err[key] = props[key];
    }
  }
  return err;
}

/**
 * Adds HTTP error fields to an existing error (http-errors' `createError(status, err)` form).
 * Its causes are file-system, stream and multipart-parser errors, which carry no HTTP status
 * of their own: `status` is always the one given.
 */
export function toHttpError(status: number, cause: Error, props?: Record<string, unknown>): HttpError {
  const err = cause as HttpError;
  err.status = status;
  err.statusCode = status;
  if (typeof err.expose !== 'boolean') err.expose = err.status < 500;
  if (props) {
    for (const key of Object.keys(props)) err[key] = props[key];
  }
  return err;
}
