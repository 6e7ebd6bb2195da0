/** `text(options)`: the body as a string into `req.body`, in its charset (else `defaultCharset`). */
import { commonSettings, type Options } from './options';
import { parserMiddleware } from './parser';

export interface OptionsText extends Options {
  /** Charset when the Content-Type names none (default utf-8). */
  defaultCharset?: string | undefined;
}

/**
 * The `defaultCharset` option as body-parser's modules read it: `true` is UTF-8 (raw-body's
 * reading of `encoding: true`), any other value its text (iconv-lite looks a code page up
 * by number: `1252` is windows-1252).
 */
function defaultCharsetOf(option: unknown): string {
  return option === true || !option ? 'utf-8' : String(option);
}

export function text(options?: OptionsText) {
  const opts = options || {};
  return parserMiddleware('textParser', commonSettings(opts, 'text/plain'), {
    defaultCharset: defaultCharsetOf(opts.defaultCharset),
    parse: (body) => body,
  });
}
