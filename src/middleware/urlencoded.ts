/**
 * `urlencoded([options])`: Connect 2's form body parser, the standalone
 * urlencoded parser with 3.x defaults (`extended: true`, limit `1mb`).
 */
import { urlencoded as urlencodedParser, type OptionsUrlencoded } from '../body-parser/urlencoded';
import { deprecate } from '../http/deprecate';
import { convertVerify, type LegacyVerify } from './json';
import type { Middleware } from './types';

export type UrlencodedOptions = Omit<OptionsUrlencoded, 'verify'> & { verify?: LegacyVerify };

export function urlencoded(options?: UrlencodedOptions): Middleware {
  const opts: OptionsUrlencoded = { extended: true, limit: '1mb', ...options } as OptionsUrlencoded;
  if (typeof options?.verify === 'function') {
    deprecate('urlencoded.verify: use body-parser module for verify');
    opts.verify = convertVerify(options.verify) as OptionsUrlencoded['verify'];
  }
  return urlencodedParser(opts) as Middleware;
}
