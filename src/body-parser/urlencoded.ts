/** `urlencoded(options)`: form bodies into `req.body`, flat (`extended: false`) or nested (qs). */
import { parse as parseSimple } from 'node:querystring';
import { deprecate } from '../http/deprecate';
import { parseExtended } from '../querystring';
import { commonSettings, type Options } from './options';
import { depthExceeded, tooManyParameters } from './errors';
import { parserMiddleware } from './parser';

export interface OptionsUrlencoded extends Options {
  /** Nested objects and arrays (qs) when true (the deprecated default), flat strings when false. */
  extended?: boolean | undefined;
  /** Most parameters accepted (default 1000); more is a 413. */
  parameterLimit?: number | undefined;
  /** Deepest nesting for extended parsing (default 32); deeper is a 400. */
  depth?: number | undefined;
}

/** Counts `&`-separated parameters, stopping as soon as the limit is passed (undefined then). */
function parameterCount(body: string, limit: number): number | undefined {
  let count = 0;
  let index = -1;
  do {
    count++;
    if (count > limit) return undefined;
    index = body.indexOf('&', index + 1);
  } while (index !== -1);
  return count;
}

function checkedParameterLimit(value: number | undefined): number {
  let limit = value !== undefined ? value : 1000;
  if (isNaN(limit) || limit < 1) throw new TypeError('option parameterLimit must be a positive number');
  if (isFinite(limit)) limit = limit | 0;
  return limit;
}

/**
 * How extended bodies are read: the nested-key parser, and how many entries an array
 * may hold for a body of `parameters` parts. webapp/middleware's urlencoded passes
 * body-parser 1.13's (qs 4.0, arrays up to the number of `&`).
 */
export interface ExtendedDialect {
  parse(
    body: string,
    options: { allowPrototypes: true; arrayLimit: number; depth: number; strictDepth: true; parameterLimit: number },
  ): unknown;
  arrayLimit(parameters: number): number;
}

/** body-parser 1.20's: qs 6, and arrays as long as the body has parameters (at least 100). */
const QS6: ExtendedDialect = {
  parse: parseExtended,
  // So that `a[]=` repeated cannot be turned into an object by crossing a fixed limit.
  arrayLimit: (parameters) => Math.max(100, parameters),
};

function extendedParser(opts: OptionsUrlencoded, dialect: ExtendedDialect): (body: string) => unknown {
  const parameterLimit = checkedParameterLimit(opts.parameterLimit);
  const depth = opts.depth !== undefined ? opts.depth : 32;
  if (isNaN(depth) || depth < 0) throw new TypeError('option depth must be a zero or a positive number');
  const { parse, arrayLimit: arrayLimitFor } = dialect;
  return (body) => {
    const count = parameterCount(body, parameterLimit);
    if (count === undefined) throw tooManyParameters();
    const arrayLimit = arrayLimitFor(count);
    try {
      return parse(body, { allowPrototypes: true, arrayLimit, depth, strictDepth: true, parameterLimit });
    } catch (err) {
      if (err instanceof RangeError) throw depthExceeded();
      throw err;
    }
  };
}

function simpleParser(opts: OptionsUrlencoded): (body: string) => unknown {
  const parameterLimit = checkedParameterLimit(opts.parameterLimit);
  return (body) => {
    if (parameterCount(body, parameterLimit) === undefined) throw tooManyParameters();
    return parseSimple(body, undefined, undefined, { maxKeys: parameterLimit });
  };
}

/** `dialect`: how extended bodies are read (qs 6 unless a 3.x parser asks for its own). */
export function urlencoded(options?: OptionsUrlencoded, dialect: ExtendedDialect = QS6) {
  const opts = options || {};
  if (opts.extended === undefined) deprecate('undefined extended: provide extended option', 'body-parser');
  const settings = commonSettings(opts, 'application/x-www-form-urlencoded');
  const queryParse = opts.extended !== false ? extendedParser(opts, dialect) : simpleParser(opts);
  const parse = (body: string | Buffer) => ((body as string).length ? queryParse(body as string) : {});

  return parserMiddleware('urlencodedParser', settings, {
    defaultCharset: 'utf-8',
    readsCharset: (charset) => charset === 'utf-8',
    parse,
  });
}
