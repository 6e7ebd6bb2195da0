/**
 * `logger([format | options])`: one line per request (morgan 1.6 as Connect 2.30
 * bundles it). Formats by name (`default`, `combined`, `common`, `short`,
 * `tiny`, `dev`), as a `:token[arg]` string, or as a function; options
 * `format`, `stream` (default stdout), `immediate` (log on arrival), `skip`,
 * `buffer`. `logger.token(name, fn)` and `logger.format(name, fmt)` extend it.
 */
import { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { onFinished } from '../http/on-finished';
import { onHeaders } from './on-headers';
import { parseFormat } from './logger-format';
import type { Middleware } from './types';
import { named } from '../named';

type Timed = { _startAt?: [number, number]; _startTime?: Date; _remoteAddress?: string };
type LogRequest = IncomingMessage & Timed & { ip?: string; originalUrl?: string };
type LogResponse = ServerResponse & Timed;

export type TokenFunction = (req: LogRequest, res: LogResponse, arg?: string) => string | number | undefined | null;
export type FormatFunction = (
  tokens: Record<string, TokenFunction>,
  req: LogRequest,
  res: LogResponse,
) => string | undefined | null;

export interface LoggerOptions {
  format?: string | FormatFunction;
  stream?: { write(line: string): unknown };
  immediate?: boolean;
  skip?: (req: IncomingMessage, res: ServerResponse) => boolean;
  buffer?: boolean | number;
}

/**
 * Tokens and named formats share one table, as in Connect 2.30 (morgan keeps both as
 * its own members): `logger.token('short', fn)` replaces the format `short` (which then
 * formats with `fn`), `logger.format('url', fmt)` the token `:url` (a string there logs
 * `-`). Format functions get the table as `tokens`.
 */
const table: Record<string, TokenFunction> = Object.create(null);

const CLF_MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad2 = (n: number) => String(n).padStart(2, '0');

function clfDate(date: Date): string {
  return (
    pad2(date.getUTCDate()) +
    '/' +
    CLF_MONTHS[date.getUTCMonth()] +
    '/' +
    date.getUTCFullYear() +
    ':' +
    pad2(date.getUTCHours()) +
    ':' +
    pad2(date.getUTCMinutes()) +
    ':' +
    pad2(date.getUTCSeconds()) +
    ' +0000'
  );
}

function remoteAddress(req: LogRequest): string | undefined {
  return req.ip || req._remoteAddress || req.socket?.remoteAddress || undefined;
}

const BASIC_CREDENTIALS = /^ *(?:[Bb][Aa][Ss][Ii][Cc]) +([A-Za-z0-9._~+/-]+=*) *$/;

function basicUser(req: IncomingMessage): string | undefined {
  const match = BASIC_CREDENTIALS.exec(req.headers.authorization || '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString();
  const colon = decoded.indexOf(':');
  // 3.x (basic-auth 1.0) matched the password with `.*$`, so one holding a line break gave no user.
  if (colon === -1 || /[\n\r\u2028\u2029]/.test(decoded.slice(colon + 1))) return undefined;
  return escapeControls(decoded.slice(0, colon));
}

/**
 * Control characters as `\xHH`. The user name is the one token whose text the client
 * chooses byte by byte (base64 lets it send a line break, which no header may hold):
 * Connect 2.30 logged it as sent, so one request could write lines that look like
 * other requests'. Names without control characters are logged as before.
 */
function escapeControls(text: string): string {
  return text.replace(/[\x00-\x1f\x7f]/g, (c) => '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0'));
}

function headerValue(value: number | string | string[] | undefined): string | number | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * A format string as a function. 3.x generated JavaScript source from the string
 * (`new Function`); here the string is split once into literal text and token
 * calls (read as 3.x read them, ./logger-format), so no format can inject code,
 * and a token that is not a function logs `-`.
 */
export function compile(format: string): FormatFunction {
  if (typeof format !== 'string') throw new TypeError('argument format must be a string');
  const { literals, calls } = parseFormat(format);
  return (table, req, res) => {
    let line = literals[0];
    for (let i = 0; i < calls.length; i++) {
      const fn = table[calls[i].name];
      line += (typeof fn === 'function' && fn(req, res, calls[i].arg)) || '-';
      line += literals[i + 1];
    }
    return line;
  };
}

const devLines: Record<number, FormatFunction> = {};

function devFormat(table: Record<string, TokenFunction>, req: LogRequest, res: LogResponse): string | undefined | null {
  const status = res.headersSent ? res.statusCode : 0;
  const color = status >= 500 ? 31 : status >= 400 ? 33 : status >= 300 ? 36 : status >= 200 ? 32 : 0;
  devLines[color] ??= compile(
    '\x1b[0m:method :url \x1b[' + color + 'm:status \x1b[0m:response-time ms - :res[content-length]\x1b[0m',
  );
  return devLines[color](table, req, res);
}

function startClock(this: Timed): void {
  this._startAt = process.hrtime();
  this._startTime = new Date();
}

function bufferedStream(stream: { write(line: string): unknown }, interval: number) {
  const lines: string[] = [];
  let timer: NodeJS.Timeout | null = null;
  return {
    write(line: string) {
      timer ??= setTimeout(() => {
        timer = null;
        stream.write(lines.join(''));
        lines.length = 0;
      }, interval);
      lines.push(line);
    },
  };
}

function formatFunction(format: string | FormatFunction): FormatFunction {
  if (typeof format === 'function') return format;
  // A registered entry that is empty falls back to the name itself, as in 3.x.
  const named: unknown = table[format] || format || table.default;
  return typeof named === 'function' ? (named as FormatFunction) : compile(named as string);
}

export function logger(options?: string | FormatFunction | LoggerOptions): Middleware {
  let format: string | FormatFunction = 'default';
  let opts: LoggerOptions = {};
  if (options && typeof options === 'object') {
    opts = options;
    format = options.format || format;
  } else if (options) {
    format = options;
  }
  const formatLine = formatFunction(format);
  const skip = opts.skip || false;
  let stream = opts.stream || process.stdout;
  if (opts.buffer) stream = bufferedStream(stream, typeof opts.buffer === 'number' ? opts.buffer : 1000);

  return named('logger', function (request, response, next) {
    const req = request as LogRequest;
    const res = response as LogResponse;
    req._startAt = undefined;
    req._startTime = undefined;
    req._remoteAddress = remoteAddress(req);
    res._startAt = undefined;
    res._startTime = undefined;
    startClock.call(req);

    const log = () => {
      if (skip !== false && skip(req, res)) return;
      const line = formatLine(table, req, res);
      if (line == null) return;
      stream.write(line + '\n');
    };
    if (opts.immediate) {
      log();
    } else {
      onHeaders(res, () => startClock.call(res));
      onFinished(res, () => {
        // A response queued behind another on its connection whose client left before its
        // turn was never written out, nor given the connection: Connect's logger
        // (on-finished watching the socket it never got) writes no line for it, rather
        // than a status and length the client never saw.
        if (res.socket == null && res.writableFinished === false) return;
        log();
      });
    }
    next();
  });
}

/** Defines (or replaces) the token `:name`. */
function token(name: string, fn: TokenFunction): typeof logger {
  table[name] = fn;
  return logger;
}

/** Defines (or replaces) the named format. */
function format(name: string, fmt: string | FormatFunction): typeof logger {
  table[name] = fmt as unknown as TokenFunction;
  return logger;
}

token('url', (req) => req.originalUrl || req.url);
token('method', (req) => req.method);
token('response-time', (req, res) => {
  if (!req._startAt || !res._startAt) return undefined;
  const ms = (res._startAt[0] - req._startAt[0]) * 1e3 + (res._startAt[1] - req._startAt[1]) * 1e-6;
  return ms.toFixed(3);
});
token('date', (_req, _res, arg) => {
  const date = new Date();
  switch (arg || 'web') {
    case 'clf':
      return clfDate(date);
    case 'iso':
      return date.toISOString();
    case 'web':
      return date.toUTCString();
    default:
      return undefined;
  }
});
token('status', (_req, res) => (res.headersSent ? String(res.statusCode) : undefined));
token('referrer', (req) => headerValue(req.headers.referer || req.headers.referrer));
token('remote-addr', (req) => remoteAddress(req));
token('remote-user', (req) => basicUser(req));
token('http-version', (req) => req.httpVersionMajor + '.' + req.httpVersionMinor);
token('user-agent', (req) => req.headers['user-agent']);
// Without a header name (`:req`, `:res[]`) 3.x threw while logging; the token logs `-`.
token('req', (req, _res, field) => (field === undefined ? undefined : headerValue(req.headers[field.toLowerCase()])));
token('res', (_req, res, field) =>
  res.headersSent && field !== undefined ? headerValue(res.getHeader(field)) : undefined,
);

format(
  'combined',
  ':remote-addr - :remote-user [:date[clf]] ":method :url HTTP/:http-version" ' +
    ':status :res[content-length] ":referrer" ":user-agent"',
);
format(
  'common',
  ':remote-addr - :remote-user [:date[clf]] ":method :url HTTP/:http-version" :status :res[content-length]',
);
// Connect 2.30 makes `default` morgan's `combined` (the access-log date), where morgan
// 1.x's own deprecated `default` prints the web date.
format(
  'default',
  ':remote-addr - :remote-user [:date[clf]] ":method :url HTTP/:http-version" ' +
    ':status :res[content-length] ":referrer" ":user-agent"',
);
format(
  'short',
  ':remote-addr :remote-user :method :url HTTP/:http-version :status :res[content-length] - :response-time ms',
);
format('tiny', ':method :url :status :res[content-length] - :response-time ms');
format('dev', devFormat);

logger.token = token;
logger.format = format;
logger.compile = compile;
// The built-in tokens and formats are members of `logger` too, as on Connect 2.30, whose
// logger is a copy of morgan's members (`express.logger.dev`, `express.logger.url`); those
// defined later are not, there either.
Object.assign(logger, table);
