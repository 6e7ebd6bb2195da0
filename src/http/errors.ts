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
 * The classes of webapp's HTTP errors, as http-errors 2 (which body-parser, send
 * and serve-static use in Express 4) shapes its own: one per status, below a
 * client or server error class, with `status`, `statusCode` and `expose` on the
 * class's prototype and `message` an own enumerable property. So an error reads
 * the same to an app: `JSON.stringify(err)`, `{ ...err }` and `Object.keys(err)`
 * give the message and the error's own details, not its status.
 */
class HttpErrorBase extends Error {
  constructor(message: string) {
    super(message);
    Object.defineProperty(this, 'message', { value: message, enumerable: true, writable: true, configurable: true });
  }
}
class ClientError extends HttpErrorBase {}
class ServerError extends HttpErrorBase {}

const errorClasses = new Map<number, new (message: string) => HttpError>();

/** The class of `code`'s errors, made on first use (named as http-errors names it, e.g. NotFoundError). */
function errorClass(code: number): new (message: string) => HttpError {
  let ErrorClass = errorClasses.get(code);
  if (ErrorClass !== undefined) return ErrorClass;
  const name = errorName(code);
  const Base = code < 500 ? ClientError : ServerError;
  // A computed key names the class, so `err.constructor.name` is NotFoundError too.
  ErrorClass = { [name]: class extends Base {} }[name] as unknown as new (message: string) => HttpError;
  Object.assign(ErrorClass.prototype, { status: code, statusCode: code, expose: code < 500 });
  errorClasses.set(code, ErrorClass);
  return ErrorClass;
}

/**
 * The one place HTTP errors are made. `props` are copied on (e.g. `type`, `limit`,
 * `body`). A status outside 400..599 falls back to 500, as http-errors does; one
 * without a phrase of its own (450) takes its class's (400), and its status as its own.
 */
export function createHttpError(status: number, message?: string, props?: Record<string, unknown>): HttpError {
  const code = Number.isInteger(status) && status >= 400 && status < 600 ? status : 500;
  const known = STATUS_CODES[code] !== undefined;
  const classCode = known ? code : Math.floor(code / 100) * 100;
  const ErrorClass = errorClass(classCode);
  const err = new ErrorClass(message ?? STATUS_CODES[classCode] ?? 'Error');
  // An own, hidden `name`, as http-errors gives each error.
  Object.defineProperty(err, 'name', {
    value: ErrorClass.name,
    enumerable: false,
    writable: true,
    configurable: true,
  });
  if (!known) {
    err.expose = code < 500;
    err.status = err.statusCode = code;
  }
  if (props) {
    for (const key of Object.keys(props)) {
      if (key !== 'status' && key !== 'statusCode') err[key] = props[key];
    }
  }
  return err;
}

/**
 * The fields http-errors copies from an object given in place of an Error: its
 * enumerable keys, own and inherited (`for...in`); createHttpError leaves out `status`
 * and `statusCode` of them.
 */
export function fieldsOf(value: object): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const key in value) fields[key] = (value as Record<string, unknown>)[key];
  return fields;
}

/**
 * An error of one of http-errors' classes (`createError(401)`, `new NotFound()`), made
 * by the app's copy of that package: its `status`, `statusCode` and `expose` come from
 * its class's prototype, as webapp's own errors' do. http-errors, which body-parser and
 * Express's middleware use, leaves such an error as it is when the status agrees,
 * rather than giving it those fields as its own.
 */
function isHttpErrorsClassInstance(err: HttpError): boolean {
  return (
    typeof err.status === 'number' &&
    err.statusCode === err.status &&
    typeof err.expose === 'boolean' &&
    !Object.prototype.hasOwnProperty.call(err, 'status')
  );
}

/**
 * Adds HTTP error fields to an existing error (http-errors' `createError(status, err)`
 * form): `expose`, `statusCode` and `status` become its own, in that order, unless it
 * is an HTTP error of that status already (webapp's, or http-errors'); then `props` are copied on.
 */
export function toHttpError(status: number, cause: Error, props?: Record<string, unknown>): HttpError {
  const err = cause as HttpError;
  if (!(err instanceof HttpErrorBase || isHttpErrorsClassInstance(err)) || err.status !== status) {
    err.expose = status < 500;
    err.statusCode = status;
    err.status = status;
  }
  if (props) {
    for (const key of Object.keys(props)) {
      if (key !== 'status' && key !== 'statusCode') err[key] = props[key];
    }
  }
  return err;
}
