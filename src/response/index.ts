/**
 * The 4.x response prototype (`webapp.response`). Every app gets
 * `app.response = Object.create(response)`, and responses take that as their
 * prototype, so patches to `app.response` apply to the app's responses. The
 * methods are grouped by concern in the modules beside this one.
 */
import { ServerResponse } from 'node:http';
import { definePrototype } from '../define-prototype';
import { deprecate } from '../http/deprecate';
import { cookieMethods } from './cookies';
import { deprecatedSendfile, fileMethods } from './files';
import { formatMethods } from './format';
import { installHeaderStore } from './header-store';
import { headerMethods } from './headers';
import { redirectMethods } from './redirect';
import { renderMethods } from './render';
import { sendMethods } from './send';

export type { CookieOptions, Response } from './types';

/** The response prototype: Node's response plus the method groups installed below. */
export type ResponsePrototype = ServerResponse &
  typeof sendMethods &
  typeof headerMethods &
  typeof cookieMethods &
  typeof redirectMethods &
  typeof formatMethods &
  typeof renderMethods &
  typeof fileMethods;

/** Express 4 keeps the 3.x `res.sendfile` only as a deprecated alias of the file sender, with 4.x outcomes. */
type SendfileArgs = Parameters<typeof deprecatedSendfile>;
function sendfile(this: unknown, _path: SendfileArgs[0], _options?: SendfileArgs[1], _callback?: SendfileArgs[2]) {
  deprecate('res.sendfile: Use res.sendFile instead');
  // Passed on as received: the sender tells `(path, fn)` from `(path, options, fn)` by argument type.
  return deprecatedSendfile.apply(this as never, Array.prototype.slice.call(arguments) as SendfileArgs);
}

export const response = definePrototype<ResponsePrototype>(ServerResponse.prototype, {
  methods: {
    ...sendMethods,
    ...headerMethods,
    ...cookieMethods,
    ...redirectMethods,
    ...formatMethods,
    ...renderMethods,
    ...fileMethods,
    sendfile,
  },
});

// Node's header API over webapp's own header store (see header-store.ts).
installHeaderStore(response);
