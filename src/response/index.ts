/**
 * The 4.x response prototype (`webapp.response`) (interim: the complete response
 * API replaces this file).
 */
import { ServerResponse } from 'node:http';
import { fileMethods } from './files';

export const response: Record<string | symbol, unknown> = Object.create(ServerResponse.prototype);
Object.assign(response, fileMethods);
