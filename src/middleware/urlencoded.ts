/**
 * `urlencoded([options])`: Connect 2's form body parser, body-parser 1.13's urlencoded
 * with 3.x defaults (`extended: true`, limit `1mb`). Extended bodies parse as qs 4.0
 * parsed them for it (src/querystring/qs4.ts), with body-parser 1.13's options: prototype
 * names allowed, arrays up to the number of `&` (at least 100). Security fix kept: a key
 * nested deeper than `depth` (default 32) is a 400, where 1.13 parsed to any depth.
 */
import {
  urlencoded as urlencodedParser,
  type ExtendedDialect,
  type OptionsUrlencoded,
} from '../body-parser/urlencoded';
import { deprecate } from '../http/deprecate';
import { parseQs4 } from '../querystring/qs4';
import { convertVerify, type LegacyVerify } from './json';
import type { Middleware } from './types';

export type UrlencodedOptions = Omit<OptionsUrlencoded, 'verify'> & { verify?: LegacyVerify };

/** body-parser 1.13's extended bodies: qs 4.0, and arrays up to the number of `&` (at least 100). */
const QS4: ExtendedDialect = {
  parse: parseQs4,
  arrayLimit: (parameters) => Math.max(100, parameters - 1),
};

export function urlencoded(options?: UrlencodedOptions): Middleware {
  const opts: OptionsUrlencoded = { extended: true, limit: '1mb', ...options } as OptionsUrlencoded;
  if (typeof options?.verify === 'function') {
    deprecate('urlencoded.verify: use body-parser module for verify');
    opts.verify = convertVerify(options.verify) as OptionsUrlencoded['verify'];
  }
  return urlencodedParser(opts, QS4) as Middleware;
}
