/**
 * The errors the body parsers send to `next`, worded and typed as body-parser
 * 1.20 and raw-body word them (body-parser's documented error list): apps match on `type` and read the
 * extra properties, so both are part of the API.
 */
import { STATUS_CODES } from 'node:http';
import { createHttpError, fieldsOf, toHttpError, type HttpError } from '../http/errors';

type Thrown = Error & { status?: unknown; statusCode?: unknown; type?: string };

/**
 * What http-errors' `createError(status, thrown, props)` makes of something a
 * parser or `verify` threw: an Error keeps its own `status` (or `statusCode`)
 * when that is a known code, else gets `status`, and always gets an `expose`
 * matching the final status; a thrown string becomes the message.
 */
function fromThrown(status: number, thrown: unknown, props?: Record<string, unknown>): HttpError {
  if (!(thrown instanceof Error)) {
    // An object that is no Error here: thrown so, or a Node error (zlib's) seen from the
    // realm of a Jest test. http-errors takes its fields as the props, unless others follow.
    const fields = props ?? (thrown !== null && typeof thrown === 'object' ? fieldsOf(thrown) : undefined);
    return createHttpError(status, typeof thrown === 'string' ? thrown : undefined, fields);
  }
  const own = (thrown as Thrown).status || (thrown as Thrown).statusCode || status;
  const code = typeof own === 'number' && (STATUS_CODES[own] || (own >= 400 && own < 600)) ? own : 500;
  return toHttpError(code, thrown, props);
}

function thrownType(thrown: unknown): string | undefined {
  return thrown !== null && typeof thrown === 'object' ? (thrown as Thrown).type : undefined;
}

/** 415 `charset.unsupported`: a charset the parser does not accept or cannot decode. */
export function unsupportedCharset(charset: string): HttpError {
  return createHttpError(415, 'unsupported charset "' + charset.toUpperCase() + '"', {
    charset: charset.toLowerCase(),
    type: 'charset.unsupported',
  });
}

/** 415 `encoding.unsupported`: an unknown Content-Encoding, or any encoding when `inflate` is false. */
export function unsupportedEncoding(encoding: string, inflateDisabled: boolean): HttpError {
  const message = inflateDisabled ? 'content encoding unsupported' : 'unsupported content encoding "' + encoding + '"';
  return createHttpError(415, message, { encoding, type: 'encoding.unsupported' });
}

/**
 * 413 `entity.too.large`: refused from Content-Length (`expected`, `length`, then
 * `limit`) or while reading (`limit`, then `received`). The keys in raw-body's order:
 * `Object.keys(err)` and `JSON.stringify(err)` list them so.
 */
export function entityTooLarge(limit: number, sizes: { expected: number } | { received: number }): HttpError {
  const props =
    'received' in sizes
      ? { limit, received: sizes.received, type: 'entity.too.large' }
      : { expected: sizes.expected, length: sizes.expected, limit, type: 'entity.too.large' };
  return createHttpError(413, 'request entity too large', props);
}

/** 400 `request.size.invalid`: the body ended with a byte count other than its Content-Length. */
export function sizeMismatch(expected: number, received: number): HttpError {
  return createHttpError(400, 'request size did not match content length', {
    expected,
    length: expected,
    received,
    type: 'request.size.invalid',
  });
}

/** 400 `request.aborted`: the client went away mid-body. */
export function requestAborted(expected: number | null, received: number): HttpError {
  return createHttpError(400, 'request aborted', {
    code: 'ECONNABORTED',
    expected,
    length: expected,
    received,
    type: 'request.aborted',
  });
}

/** 500 `stream.encoding.set`: something called `req.setEncoding`, so bytes cannot be counted. */
export function streamEncodingSet(): HttpError {
  return createHttpError(500, 'stream encoding should not be set', { type: 'stream.encoding.set' });
}

/** 500 `stream.not.readable`: the body was already consumed by someone else. */
export function streamNotReadable(): HttpError {
  return createHttpError(500, 'stream is not readable', { type: 'stream.not.readable' });
}

/** 413 `parameters.too.many`: more urlencoded parameters than `parameterLimit`. */
export function tooManyParameters(): HttpError {
  return createHttpError(413, 'too many parameters', { type: 'parameters.too.many' });
}

/** 400 `querystring.parse.rangeError`: extended urlencoded nesting deeper than `depth`. */
export function depthExceeded(): HttpError {
  return createHttpError(400, 'The input exceeded the depth', { type: 'querystring.parse.rangeError' });
}

/**
 * What a parse or `verify` threw, as the error passed on with the body and a type.
 * Something thrown that cannot take the fields (frozen, sealed, with a read-only
 * `status` or `type`) or cannot be read (a throwing getter, a Proxy) is replaced by a
 * new error with what of it can be read: body-parser 1.20 throws there, out of the
 * request's 'end' listener, and the process ends. One request must not stop the server.
 */
function passedOn(status: number, thrown: unknown, body: string | Buffer, type: string): HttpError {
  try {
    return fromThrown(status, thrown, { body, type: thrownType(thrown) || type });
  } catch {
    return replacement(status, thrown, body, type);
  }
}

function replacement(status: number, thrown: unknown, body: string | Buffer, type: string): HttpError {
  let code = status;
  let message: string | undefined;
  let ownType = type;
  try {
    if (thrown !== null && typeof thrown === 'object') {
      const own = (thrown as Thrown).status || (thrown as Thrown).statusCode;
      if (typeof own === 'number' && (STATUS_CODES[own] || (own >= 400 && own < 600))) code = own;
      const text = (thrown as Thrown).message;
      if (typeof text === 'string') message = text;
      const named = (thrown as Thrown).type;
      if (typeof named === 'string' && named) ownType = named;
    }
  } catch {
    // Nothing more of it can be read: the parser's status, type and message.
  }
  return createHttpError(code, message, { body, type: ownType });
}

/** 400 (or the error's own status) `entity.parse.failed`, carrying the decoded body. */
export function parseFailed(thrown: unknown, body: string | Buffer): HttpError {
  return passedOn(400, thrown, body, 'entity.parse.failed');
}

/** 403 (or the error's own status) `entity.verify.failed`, carrying the raw body. */
export function verifyFailed(thrown: unknown, body: Buffer): HttpError {
  return passedOn(403, thrown, body, 'entity.verify.failed');
}

/** Any other stream failure (e.g. corrupt gzip) as a 400 keeping its own fields. */
export function streamFailed(cause: Error): HttpError {
  return fromThrown(400, cause);
}
