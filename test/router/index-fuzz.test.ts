/**
 * Apps of 2 to 24 layers of every kind (4 to 26 in the router, with `query` and
 * `expressInit`), generated from seeds, on express@4 and on webapp: the layers that run
 * for each request, in order, with the URL and params each sees, must be Express's.
 * From 8 layers webapp's router walks its layer index, below that (and for stacks whose
 * layers have no literal first segment) a plain scan; both must give Express's order,
 * under every combination of strict and case-sensitive routing.
 */
import { describe, it } from 'node:test';
import type http from 'node:http';
import { assertSameResponses, type Framework, type RequestSpec } from '../support/differential';
import { chance, pick, prng, type Random } from '../support/prng';

type Req = http.IncomingMessage & { trail?: string[]; params?: unknown };
type Res = http.ServerResponse & { json(body: unknown): void };
type Next = (err?: unknown) => void;

const SEGMENTS = ['users', 'items', 'api', 'v1', 'a.b', 'x-y'];

/** A path pattern of one of the kinds Express routes on. */
function pattern(random: Random): string | RegExp | Array<string | RegExp> {
  const seg = pick(random, SEGMENTS);
  const other = pick(random, SEGMENTS);
  switch (Math.floor(random() * 11)) {
    case 0:
      return '/';
    case 1:
      return `/${seg}`;
    case 2:
      return `/${seg}/${other}`;
    case 3:
      return `/${seg}/:id`;
    case 4:
      return `/${seg}/:id?`;
    case 5:
      return `/:first/${seg}`;
    case 6:
      return `/${seg}/*`;
    case 7:
      return new RegExp(`^\\/${seg.replace('.', '\\.')}\\/\\d+`, chance(random, 0.5) ? 'i' : '');
    case 8:
      return [`/${seg}`, `/${other}/:id`];
    case 9:
      return `/${seg}/`;
    default:
      return `/${seg.toUpperCase()}/:id`;
  }
}

function defineApp(seed: number) {
  return (framework: Framework): http.RequestListener => {
    const random = prng(seed);
    const app = framework();
    if (chance(random, 0.3)) app.set('strict routing', true);
    if (chance(random, 0.3)) app.set('case sensitive routing', true);
    const layers = 2 + Math.floor(random() * 23);
    const onlyMiddleware = chance(random, 0.2);
    for (let i = 0; i < layers; i++) {
      const label = `L${i}`;
      const record = (req: Req, _res: Res, next: Next) => {
        (req.trail ??= []).push(`${label} ${req.url} ${JSON.stringify(req.params)}`);
        next();
      };
      const path = onlyMiddleware ? '/' : pattern(random);
      const kind = onlyMiddleware ? 0 : Math.floor(random() * 5);
      if (kind === 0 && typeof path !== 'object') app.use(path, record);
      else if (kind === 0 || kind === 1) app.get(path, record);
      else if (kind === 2) app.all(path, record);
      else if (kind === 3) app.post(path, record);
      else app.route(path).get(record).put(record);
    }
    app.use((req: Req, res: Res) => res.json(req.trail ?? []));
    return app as unknown as http.RequestListener;
  };
}

function requests(seed: number): RequestSpec[] {
  const random = prng(seed ^ 0x5eed);
  return Array.from({ length: 20 }, () => {
    let path = '/' + pick(random, SEGMENTS);
    if (chance(random, 0.7)) path += '/' + pick(random, ['42', 'abc', ...SEGMENTS]);
    if (chance(random, 0.2)) path += '/' + pick(random, ['7', 'deep']);
    if (chance(random, 0.2)) path += '/';
    if (chance(random, 0.2)) path = path.toUpperCase();
    if (chance(random, 0.1)) path = '/';
    if (chance(random, 0.2)) path += '?q=1';
    return { method: pick(random, ['GET', 'GET', 'POST', 'PUT']), path };
  });
}

describe('Router: generated routers against express@4 (layer index and plain scan)', () => {
  it('runs the same layers, in the same order, with the same URL and params', async () => {
    for (let seed = 1; seed <= 60; seed++) {
      await assertSameResponses(defineApp(seed), requests(seed));
    }
  });
});
