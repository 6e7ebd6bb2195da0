/**
 * The 4.x response prototype (`webapp.response`). Every app gets
 * `app.response = Object.create(response)`, and responses take that as their
 * prototype, so patches to `app.response` apply to the app's responses. The
 * methods are grouped by concern in the modules beside this one.
 */
import { ServerResponse } from 'node:http';
import { cookieMethods } from './cookies';
import { fileMethods } from './files';
import { formatMethods } from './format';
import { headerMethods } from './headers';
import { redirectMethods } from './redirect';
import { renderMethods } from './render';
import { sendMethods } from './send';

export type { CookieOptions, Response } from './types';

export const response: Record<string | symbol, unknown> = Object.create(ServerResponse.prototype);

Object.assign(
  response,
  sendMethods,
  headerMethods,
  cookieMethods,
  redirectMethods,
  formatMethods,
  renderMethods,
  fileMethods,
);
