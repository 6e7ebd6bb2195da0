/**
 * `req._parsedUrl`, which middleware reads (and parseurl caches): a legacy `Url` of
 * Node's, with its fields in their order, as Express's router leaves it, so that
 * parseurl takes it from the cache instead of parsing again, and an absolute-form
 * target keeps its `host` and `protocol`. Differential against express@4.
 */
import { createRequire } from 'node:module';
import * as nodeUrl from 'node:url';
import { describe, it } from 'node:test';
import type { NextFunction, Request, Response } from 'express';
import { assertSameResponses, type Framework } from '../support/differential';

/** The parseurl express@4's router uses (its dependency), as middleware such as serve-static call it. */
const parseurl = createRequire(require.resolve('express'))('parseurl') as (req: object) => object | undefined;

/** Node's legacy `Url` class, typed by @types/node as an interface only. */
const LegacyUrl = (nodeUrl as unknown as { Url: new () => object }).Url;

type WithParsed = Request & { _parsedUrl?: object };

/** What a layer sees of `req._parsedUrl`: its class, its keys in order, its values, and whether parseurl reuses it. */
function describeParse(req: WithParsed): unknown {
  const parsed = req._parsedUrl;
  return {
    isUrl: parsed instanceof LegacyUrl,
    keys: parsed === undefined ? [] : Object.keys(parsed),
    fields: parsed,
    reusedByParseurl: parsed !== undefined && parseurl(req) === parsed,
  };
}

function define(fw: Framework) {
  const app = fw();
  const seen = (where: string) => (req: WithParsed, res: Response, next: NextFunction) => {
    ((res.locals.seen as unknown[] | undefined) ?? (res.locals.seen = [])).push({
      where,
      ...(describeParse(req) as object),
    });
    next();
  };
  const router = fw.Router();
  router.use(seen('router'));
  router.get('/item', (_req: Request, res: Response) => res.json(res.locals.seen));
  app.use(seen('app'));
  app.use('/mounted', router);
  app.get('*', (_req: Request, res: Response) => res.json(res.locals.seen));
  return app;
}

describe('req._parsedUrl', () => {
  it('is a legacy Url with Express fields, reused by parseurl, for origin- and absolute-form targets', async () => {
    await assertSameResponses(define, [
      { path: '/' },
      { path: '/plain/path' },
      { path: '/with?query=1&b=2' },
      { path: '/empty?' },
      { path: '/mounted/item?x=1' },
      { path: 'http://example.com:8080/abs/path?q=1' },
      { path: 'http://user@example.com/mounted/item' },
      { path: '/hash#fragment' },
    ]);
  });
});
