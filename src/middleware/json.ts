/**
 * `json([options])`: Connect 2's JSON body parser, the standalone json parser
 * with 3.x defaults (limit `1mb`, types `application/json` and
 * `application/*+json`). A 3.x `verify(req, res, string)` gets the body as text,
 * and a strict-mode primitive (`"str"`, `1`) is a 400 `invalid json`, as in 3.x.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createJsonParser, type OptionsJson } from '../body-parser/json';
import { deprecate } from '../http/deprecate';
import type { Middleware } from './types';

export type LegacyVerify = (req: IncomingMessage, res: ServerResponse, body: string) => void;
export type JsonOptions = Omit<OptionsJson, 'verify'> & { verify?: LegacyVerify };

/** 3.x verify callbacks took the decoded string; body-parser's take the Buffer. */
export function convertVerify(verify: LegacyVerify) {
  return (req: IncomingMessage, res: ServerResponse, buf: Buffer, encoding: string) =>
    verify(req, res, buf.toString(encoding as BufferEncoding));
}

/** Connect 2.30's (body-parser 1.13's) words for a strict-mode body that is not an object or array. */
const connectStrictViolation = (): Error => new Error('invalid json');

export function json(options?: JsonOptions): Middleware {
  const opts: OptionsJson = {
    limit: '1mb',
    type: ['application/json', 'application/*+json'],
    ...options,
  } as OptionsJson;
  if (typeof options?.verify === 'function') {
    deprecate('json.verify: use body-parser module for verify');
    opts.verify = convertVerify(options.verify) as OptionsJson['verify'];
  }
  // body-parser 1.13 passes on what JSON.parse threw as it is.
  return createJsonParser(opts, {
    strictViolation: connectStrictViolation,
    parseError: (thrown) => thrown,
  }) as Middleware;
}
