/** `json(options)`: JSON bodies into `req.body`. */
import { commonSettings, type Options } from './options';
import { parserMiddleware } from './parser';

export interface OptionsJson extends Options {
  /**
   * Passed to JSON.parse as its reviver. A method with `any`, as @types/body-parser
   * declares it, so that a reviver annotated with narrower types is accepted.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  reviver?(key: string, value: any): any;
  /** Only objects and arrays (default true). */
  strict?: boolean | undefined;
}

/** The first character that is not JSON whitespace (space, tab, LF, CR), or undefined. */
function firstNonSpace(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return text[i];
  }
  return undefined;
}

/**
 * A strict-mode rejection worded as JSON.parse words it: parse the text with the
 * offending part replaced by placeholders, then put the original text back into
 * the engine's message (so the message names what the client sent).
 */
function strictSyntaxError(text: string, first: string): SyntaxError {
  const index = text.indexOf(first);
  const partial = index !== -1 ? text.substring(0, index) + '#'.repeat(text.length - index) : '';
  try {
    JSON.parse(partial);
    return new SyntaxError('strict violation');
  } catch (err) {
    const error = err as SyntaxError;
    error.message = error.message.replace(/#+/g, (placeholder) => text.substring(index, index + placeholder.length));
    return error;
  }
}

/**
 * What JSON.parse threw (a reviver may throw anything) as body-parser 1.20 passes
 * it on: its message and stack kept, every other own property removed, so its own
 * `status` or `type` cannot replace the 400 `entity.parse.failed`. Something that
 * is not an object fails here as it fails there (a TypeError, also a 400).
 */
function keepOnlyMessage(thrown: unknown): unknown {
  const message = (thrown as Error).message;
  const stack = (thrown as Error).stack;
  const error = thrown as Record<string, unknown>;
  for (const key of Object.getOwnPropertyNames(error)) {
    if (key !== 'stack' && key !== 'message') delete error[key];
  }
  // As there, a thrown value without a stack fails here: a TypeError.
  error.stack = (stack as string).replace(error.message as string, message);
  error.message = message;
  return error;
}

/** The error for a strict-mode body that is not an object or array (`first` is its first character). */
export type StrictViolation = (text: string, first: string) => Error;

export function json(options?: OptionsJson) {
  return createJsonParser(options, { strictViolation: strictSyntaxError, parseError: keepOnlyMessage });
}

/** How a version of body-parser reports a body JSON.parse refuses. */
export interface JsonDialect {
  /** The error for a strict-mode body that is not an object or array. */
  strictViolation: StrictViolation;
  /** What becomes of what JSON.parse (or the reviver) threw: 1.20 keeps only its message. */
  parseError: (thrown: unknown) => unknown;
}

/**
 * The json parser in the caller's dialect (webapp/middleware's json words its
 * errors as Connect 2.30's body-parser 1.13).
 */
export function createJsonParser(options: OptionsJson | undefined, dialect: JsonDialect) {
  const { strictViolation, parseError } = dialect;
  const opts = options || {};
  const settings = commonSettings(opts, 'application/json');
  const reviver = opts.reviver;
  const strict = opts.strict !== false;

  const parse = (body: string | Buffer): unknown => {
    const text = body as string;
    if (text.length === 0) return {};
    if (strict) {
      const first = firstNonSpace(text);
      if (first !== '{' && first !== '[') throw strictViolation(text, first as string);
    }
    try {
      return JSON.parse(text, reviver);
    } catch (err) {
      throw parseError(err);
    }
  };

  return parserMiddleware('jsonParser', settings, {
    defaultCharset: 'utf-8',
    readsCharset: (charset) => charset.slice(0, 4) === 'utf-',
    parse,
  });
}
