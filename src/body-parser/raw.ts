/** `raw(options)`: the body as a Buffer into `req.body`. */
import { commonSettings, type Options } from './options';
import { parserMiddleware } from './parser';

export function raw(options?: Options) {
  return parserMiddleware('rawParser', commonSettings(options || {}, 'application/octet-stream'), {
    defaultCharset: null,
    parse: (buf) => buf,
  });
}
