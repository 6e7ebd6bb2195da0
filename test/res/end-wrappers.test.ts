/**
 * A middleware that wraps `res.end` (a logger that keeps the body with
 * `Buffer.concat`, an audit trail, a body rewriter) is given by `res.send` what
 * Express 4 gives it: the UTF-8 bytes as a Buffer unless no ETag is made and the
 * string is under 1,000 characters, and always two arguments. webapp writes short
 * strings as strings only while `res.end` is Node's own, where nothing can tell.
 * Differential against express@4.
 */
import { describe, it } from 'node:test';
import type { NextFunction, Request, Response } from 'express';
import { assertSameResponses, type Framework, type RequestSpec } from '../support/differential';

/** Wraps `res.end` as body loggers do, and reports what it was called with in a header. */
function endWrapper(req: Request, res: Response, next: NextFunction): void {
  const end = res.end;
  res.end = function (this: Response, ...args: unknown[]) {
    const [chunk, encoding] = args;
    const kind = Buffer.isBuffer(chunk) ? 'Buffer' : typeof chunk;
    const length = chunk == null || typeof chunk === 'function' ? '-' : String((chunk as string | Buffer).length);
    if (!this.headersSent) this.setHeader('X-End-Called-With', `${args.length} ${kind} ${length} ${String(encoding)}`);
    // What such loggers do with the body; a string here throws, as it would with Express.
    if (Buffer.isBuffer(chunk)) res.locals.logged = Buffer.concat([chunk]).toString('utf8');
    return (end as (...a: unknown[]) => Response).apply(this, args);
  } as Response['end'];
  next();
}

function routes(app: ReturnType<Framework>): void {
  app.get('/ascii', (_req: Request, res: Response) => res.send('hello'));
  app.get('/accents', (_req: Request, res: Response) => res.send('héllo wörld'));
  app.get('/json', (_req: Request, res: Response) => res.json({ city: 'Zürich' }));
  app.get('/jsonp', (_req: Request, res: Response) => res.jsonp({ a: 1 }));
  app.get('/medium', (_req: Request, res: Response) => res.send('é'.repeat(1500)));
  app.get('/long', (_req: Request, res: Response) => res.send('x'.repeat(20000)));
  app.get('/buffer', (_req: Request, res: Response) => res.send(Buffer.from('bytes')));
  app.get('/nothing', (_req: Request, res: Response) => res.send());
  app.get('/null', (_req: Request, res: Response) => res.send(null));
  app.get('/status', (_req: Request, res: Response) => res.sendStatus(404));
  app.get('/no-content', (_req: Request, res: Response) => res.status(204).send('dropped'));
  app.get('/reset', (_req: Request, res: Response) => res.status(205).send('dropped'));
  app.get('/tagged', (_req: Request, res: Response) => res.set('ETag', '"v1"').send('tagged body'));
}

function define(fw: Framework) {
  const app = fw();
  app.use(endWrapper);
  routes(app);
  const withoutETags = fw();
  withoutETags.set('etag', false);
  routes(withoutETags);
  app.use('/no-etag', withoutETags);
  const customETags = fw();
  customETags.set('etag', (body: string | Buffer) => `"${Buffer.isBuffer(body) ? 'bytes' : 'text'}-${body.length}"`);
  routes(customETags);
  app.use('/custom-etag', customETags);
  return app;
}

const PATHS = [
  '/ascii',
  '/accents',
  '/json',
  '/jsonp?callback=cb',
  '/medium',
  '/long',
  '/buffer',
  '/nothing',
  '/null',
  '/status',
  '/no-content',
  '/reset',
  '/tagged',
];

describe('res.send through a wrapped res.end', () => {
  it('the wrapper is called with the body and encoding Express gives it, with and without ETags', async () => {
    const requests: RequestSpec[] = [];
    for (const prefix of ['', '/no-etag', '/custom-etag']) {
      for (const path of PATHS) requests.push({ path: prefix + path });
    }
    await assertSameResponses(define, requests);
  });

  it('conditional and HEAD requests reach the wrapper as they reach it on Express', async () => {
    await assertSameResponses(define, [
      { path: '/tagged', headers: { 'If-None-Match': '"v1"' } },
      { path: '/no-etag/tagged', headers: { 'If-None-Match': '"v1"' } },
      { method: 'HEAD', path: '/accents' },
      { method: 'HEAD', path: '/no-etag/ascii' },
    ]);
  });
});
