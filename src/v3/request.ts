/**
 * The 3.x request prototype: the 4.x request with Express 3's differences.
 */
import { request } from '../request';

export const request3: Record<string | symbol, unknown> = Object.create(request);
