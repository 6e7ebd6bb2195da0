/** `text(options)`: the body as a string into `req.body`, in its charset (else `defaultCharset`). */
import { commonSettings, type Options } from './options';
import { parserMiddleware } from './parser';

export interface OptionsText extends Options {
  /** Charset when the Content-Type names none (default utf-8). */
  defaultCharset?: string | undefined;
}

export function text(options?: OptionsText) {
  const opts = options || {};
  return parserMiddleware('textParser', commonSettings(opts, 'text/plain'), {
    defaultCharset: opts.defaultCharset || 'utf-8',
    parse: (body) => body,
  });
}
