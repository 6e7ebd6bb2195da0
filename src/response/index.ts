/**
 * The 4.x response prototype (`webapp.response`). Every app gets
 * `app.response = Object.create(response)`, and responses take that as their
 * prototype, so patches to `app.response` apply to the app's responses. The
 * methods are grouped by concern in the modules beside this one.
 */
import { ServerResponse } from 'node:http';
import { definePrototype, lazyMethods } from '../define-prototype';
import { deprecate } from '../http/deprecate';
import { lazy } from '../http/lazy';
import type { cookieMethods } from './cookies';
import type { deprecatedSendfile, fileMethods } from './files';
import type { formatMethods } from './format';
import { installHeaderStore } from './header-store';
import { headerMethods } from './headers';
import type { redirectMethods } from './redirect';
import { renderMethods } from './render';
import { sendMethods } from './send';

/*
 * Why lazy: a first request (and most requests) needs none of these groups, so
 * their modules, and what they load (Content-Disposition, the static file sender,
 * HTML escaping, HTTP errors, cookie signing), wait for the first call
 * (cold start, and memory for apps that never use them).
 */
const loadFiles = lazy(() => require('./files') as typeof import('./files'));
const cookieStandIns = lazyMethods<typeof cookieMethods>(
  { cookie: 3, clearCookie: 2 },
  () => (require('./cookies') as typeof import('./cookies')).cookieMethods,
);
const fileStandIns = lazyMethods<typeof fileMethods>({ sendFile: 3, download: 4 }, () => loadFiles().fileMethods);
const formatStandIns = lazyMethods<typeof formatMethods>(
  { format: 1 },
  () => (require('./format') as typeof import('./format')).formatMethods,
);
const redirectStandIns = lazyMethods<typeof redirectMethods>(
  { location: 1, redirect: 1 },
  () => (require('./redirect') as typeof import('./redirect')).redirectMethods,
);

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
  return loadFiles().deprecatedSendfile.apply(this as never, Array.prototype.slice.call(arguments) as SendfileArgs);
}

export const response = definePrototype<ResponsePrototype>(ServerResponse.prototype, {
  methods: {
    ...sendMethods,
    ...headerMethods,
    ...cookieStandIns,
    ...redirectStandIns,
    ...formatStandIns,
    ...renderMethods,
    ...fileStandIns,
    sendfile,
  },
});

// Node's header API over webapp's own header store (see header-store.ts).
installHeaderStore(response);
