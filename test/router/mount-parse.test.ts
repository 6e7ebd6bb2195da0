/**
 * A router strips its mount path from `req.url`, and the router or app mounted there
 * parses the new URL (src/http/parse-url.ts, cached as `req._parsedUrl` as parseurl
 * caches it). What a request sees must be what express@4 gives: `req._parsedUrl`,
 * `req.path` and `req.query` inside nested routers, after leaving them (the URL put
 * back), where a layer rewrote `req.url` in between, and in a middleware mounted at a
 * path, which parses nothing (the parse it sees is of the URL before the strip).
 */
import { describe, it } from 'node:test';
import type { NextFunction, Request, Response } from 'express';
import type { ParsedUrl } from '../../src/http/parse-url';
import { assertSameResponses, type Framework, type RequestSpec } from '../support/differential';

const FIELDS = ['pathname', 'search', 'query', 'path', 'href'] as const;

/** The fields Express's parse (a legacy `Url`) and webapp's have in common. */
function fieldsOf(parsed: Partial<ParsedUrl> | undefined): Record<string, unknown> {
  if (parsed === undefined) return { parsed: 'none' };
  return Object.fromEntries(FIELDS.map((field) => [field, parsed[field] ?? null]));
}

/** Parses `req.url` as the router does (Express's parseurl, webapp's parseUrl), then reports it. */
function snapshot(req: Request, where: string) {
  const parsed = (req as unknown as { _parsedUrl?: ParsedUrl })._parsedUrl;
  return { where, url: req.url, baseUrl: req.baseUrl, path: req.path, parsed: fieldsOf(parsed) };
}

type Snapshot = ReturnType<typeof snapshot>;

/** Records what each layer saw on `res.locals.seen`; the last answers with all of it. */
function see(where: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    ((res.locals.seen as Snapshot[] | undefined) ?? (res.locals.seen = [])).push(snapshot(req, where));
    next();
  };
}

function reply(where: string) {
  return (req: Request, res: Response) => {
    const seen = (res.locals.seen as Snapshot[] | undefined) ?? [];
    res.json({ seen: [...seen, snapshot(req, where)], query: req.query });
  };
}

/** `/api` → `/v1` → `/users`, each router recording what it sees, with fall-through to the app after them. */
function nestedApp(fw: Framework) {
  const app = fw();
  const api = fw.Router();
  const v1 = fw.Router();
  const users = fw.Router();
  users.use(see('users'));
  users.get('/:id', reply('users /:id'));
  users.get('/', reply('users /'));
  v1.use(see('v1'));
  v1.use('/users', users);
  v1.use('/rewrite', (req: Request, _res: Response, next: NextFunction) => {
    // A layer that changes the URL the parse was made of: no parse may be put back for it.
    req.url = '/elsewhere' + req.url;
    next();
  });
  api.use(see('api'));
  api.use('/v1', v1);
  // A mount whose path ends in a dot-separated name: the rest starts with `.` and gets a `/`.
  api.use('/file', reply('file'));
  app.use('/api', api);
  // Layers after the routers see the URL, and its parse, put back.
  app.use(see('after routers'));
  app.use('/api/v1/rewrite', reply('rewritten, matched again'));
  app.use(reply('app'));
  return app;
}

const requests: RequestSpec[] = [
  '/api/v1/users/42',
  '/api/v1/users/42/',
  '/api/v1/users/42?sort=name&page=2',
  '/api/v1/users/',
  '/api/v1/users',
  '/API/V1/Users/7?x=1',
  '/api/v1/users?only=query',
  '/api/v1/users/42/missing?q=1',
  '/api/v1/nothing?q=1',
  '/api/v1/rewrite/x?y=2',
  '/api/file.json?download=1',
  '/api//v1/users/1',
  '/api/v1/users/a%20b?c=%2F',
  // Characters the legacy parser handles (Node's client sends no space or tab, nor would its server take them).
  '/api/v1/users/a#frag?x',
  '/api/v1/users/a\u00a0b?c=d',
  '/api/v1/users/a\u00a0b/x?c=d',
  '/api/v1/users/caf\u00e9',
  '/api/v1/users/x\\y?z',
  '/api/v1/users/%E2%82%AC?q[a]=1&q[b]=2',
].map((path) => ({ path }));

describe('a mounted router parses its stripped URL as Express does', () => {
  it('inside nested routers, after them, and after a rewrite', async () => {
    await assertSameResponses(nestedApp, requests);
  });

  it('an absolute-form request-target keeps its scheme and host in front of the stripped path', async () => {
    await assertSameResponses(nestedApp, [
      { path: 'http://example.com/api/v1/users/42?a=1' },
      { path: 'http://example.com/api/v1/nothing' },
    ]);
  });
});
