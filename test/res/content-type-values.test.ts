/**
 * Content-Type values past the number webapp keeps worked out (an app that sets
 * types taken from requests sees many): each still gets the charset Express 4 gives
 * it, the first ones again after the others pushed them out. Differential against
 * express@4.
 */
import { describe, it } from 'node:test';
import type { Request, Response } from 'express';
import { assertSameResponses } from '../support/differential';

const TYPES = Array.from({ length: 600 }, (_, i) =>
  i % 3 === 0 ? `text/x-kind-${i}` : i % 3 === 1 ? `application/x-kind-${i}` : `text/x-kind-${i}; charset=latin1`,
);

describe('Content-Type values', () => {
  it('many distinct types, and the first again after them: the charset Express adds, every time', async () => {
    await assertSameResponses(
      (fw) => {
        const app = fw();
        app.get('/', (_req: Request, res: Response) => {
          const seen: string[] = [];
          for (const type of [...TYPES, ...TYPES.slice(0, 10)]) {
            res.type(type);
            seen.push(String(res.get('Content-Type')));
            res.set('Content-Type', type);
            seen.push(String(res.get('Content-Type')));
          }
          res.type('text');
          res.end(seen.join('\n'));
        });
        return app;
      },
      [{ path: '/' }],
    );
  });
});
