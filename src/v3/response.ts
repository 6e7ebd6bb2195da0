/**
 * The 3.x response prototype: the 4.x response with Express 3's differences.
 */
import { response } from '../response';

export const response3: Record<string | symbol, unknown> = Object.create(response);
