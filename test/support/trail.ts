/**
 * A handler that shows it ran: it appends its name to the response's `x-trail`
 * header and calls next(), so a differential test sees which handlers ran, in order.
 */
import type { ServerResponse } from 'node:http';

export function hit(name: string) {
  return (_req: unknown, res: ServerResponse, next: (err?: unknown) => void): void => {
    const trail = res.getHeader('x-trail');
    res.setHeader('x-trail', trail ? trail + ',' + name : name);
    next();
  };
}
