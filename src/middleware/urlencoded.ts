/**
 * `urlencoded([options])`: Connect 2's form body parser, body-parser 1.13's urlencoded
 * with 3.x defaults (`extended: true`, limit `1mb`). Extended bodies parse as qs 4.0
 * parsed them for it (src/querystring/qs4.ts), with body-parser 1.13's options: prototype
 * names allowed, arrays up to the number of `&` (at least 100). Security fix kept: a key
 * nested deeper than `depth` (default 32) is a 400, where 1.13 parsed to any depth.
 */
import { urlencoded as urlencodedParser, type OptionsUrlencoded } from '../body-parser/urlencoded';
import { depthExceeded, tooManyParameters } from '../body-parser/errors';
import { commonSettings } from '../body-parser/options';
import { parserMiddleware } from '../body-parser/parser';
import { deprecate } from '../http/deprecate';
import { parseQs4 } from '../querystring/qs4';
import { convertVerify, type LegacyVerify } from './json';
import type { Middleware } from './types';

export type UrlencodedOptions = Omit<OptionsUrlencoded, 'verify'> & { verify?: LegacyVerify };

/** How many `&` the body holds, as body-parser 1.13 counted; undefined once that reaches `limit`. */
function ampersandCount(body: string, limit: number): number | undefined {
  let count = 0;
  for (let index = body.indexOf('&'); index !== -1; index = body.indexOf('&', index + 1)) {
    if (++count === limit) return undefined;
  }
  return count;
}

function extendedParser(opts: OptionsUrlencoded): (body: string) => unknown {
  let parameterLimit = opts.parameterLimit !== undefined ? opts.parameterLimit : 1000;
  if (isNaN(parameterLimit) || parameterLimit < 1)
    throw new TypeError('option parameterLimit must be a positive number');
  if (isFinite(parameterLimit)) parameterLimit = parameterLimit | 0;
  const depth = opts.depth !== undefined ? opts.depth : 32;
  if (isNaN(depth) || depth < 0) throw new TypeError('option depth must be a zero or a positive number');
  return (body) => {
    const count = ampersandCount(body, parameterLimit);
    if (count === undefined) throw tooManyParameters();
    const arrayLimit = Math.max(100, count);
    try {
      return parseQs4(body, { allowPrototypes: true, arrayLimit, depth, parameterLimit, strictDepth: true });
    } catch (err) {
      if (err instanceof RangeError) throw depthExceeded();
      throw err;
    }
  };
}

export function urlencoded(options?: UrlencodedOptions): Middleware {
  const opts: OptionsUrlencoded = { extended: true, limit: '1mb', ...options } as OptionsUrlencoded;
  if (typeof options?.verify === 'function') {
    deprecate('urlencoded.verify: use body-parser module for verify');
    opts.verify = convertVerify(options.verify) as OptionsUrlencoded['verify'];
  }
  if (opts.extended === false) return urlencodedParser(opts) as Middleware;
  if (opts.extended === undefined) deprecate('undefined extended: provide extended option', 'body-parser');
  const settings = commonSettings(opts, 'application/x-www-form-urlencoded');
  const parse = extendedParser(opts);
  return parserMiddleware('urlencodedParser', settings, {
    defaultCharset: 'utf-8',
    readsCharset: (charset) => charset === 'utf-8',
    parse: (body) => ((body as string).length ? parse(body as string) : {}),
  }) as Middleware;
}
