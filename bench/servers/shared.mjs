// What every benchmark server shares: which workload to serve, the constants the
// workloads are built from, and the one-line handshake with bench/run.mjs
// ("listening <port>" once ready, "unsupported <reason>" when the framework
// cannot serve that workload, so the harness prints n/a instead of failing).
import { createRequire } from 'node:module';
import { join } from 'node:path';

export { GZIP_TEXT, SET_COOKIE, VIEW_LOCALS } from '../lib/workloads.mjs';

/** The workload (bench/lib/scenarios.mjs names them): from argv[2], else BENCH_KIND. */
export const kind = process.argv[2] || process.env.BENCH_KIND || 'hello';

/** How many routes (`routes`) or no-op middlewares (`middleware`): BENCH_COUNT. */
export const COUNT = Number(process.env.BENCH_COUNT || 1000);

/** Number of parameterised routes `/route0/:id` ... `/route<N-1>/:id`; requests hit the last. */
export const ROUTE_COUNT = COUNT;

/** Every body parser gets the same explicit limit, so no default limit decides a result. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
export const BODY_LIMIT = '1mb';

/** Static files live here (written by the harness); URLs are /static/<file>. */
export const staticRoot = process.env.BENCH_STATIC_ROOT || '';
/** The file `sendfile` answers with (the 4 KB static file). */
export const sendFilePath = staticRoot ? join(staticRoot, 'small.txt') : '';

/** The ejs views directory (written by the harness, with page.ejs). */
export const viewsRoot = process.env.BENCH_VIEWS_ROOT || '';

/**
 * The answer to a parsed JSON body: small and the same for every framework, so
 * the measurement is the parse, not the reply. The harness checks the count.
 */
export function summariseBody(body) {
  return { count: body && Array.isArray(body.items) ? body.items.length : -1 };
}

/** The answer to a parsed form: how many fields it has. */
export function summariseForm(form) {
  return { fields: form && typeof form === 'object' ? Object.keys(form).length : -1 };
}

/** The answer to the nested query: one deep value, so only a nesting parser gets it right. */
export function cityOf(query) {
  return String(query?.user?.address?.city ?? 'missing');
}

/**
 * The npm middleware of the `stack` workload (bench/README.md, "A production stack"),
 * before the body parser, made once here so every server runs the same stack:
 * helmet, cors, morgan (into a stream that drops its lines), response-time, cookie-parser.
 */
export function productionMiddleware() {
  const require = createRequire(import.meta.url);
  const { Writable } = require('node:stream');
  const discard = new Writable({ write: (chunk, encoding, done) => done() });
  return [
    require('helmet')(),
    require('cors')(),
    require('morgan')('combined', { stream: discard }),
    require('response-time')(),
    require('cookie-parser')('secret'),
  ];
}

export function routePath(index) {
  return `/route${index}`;
}

export function announce(port) {
  process.stdout.write(`listening ${port}\n`);
}

export function unsupported(reason) {
  process.stdout.write(`unsupported ${reason}\n`);
  process.exit(0);
}

/** Servers are stopped with SIGTERM by the harness; exit without a stack trace. */
process.on('SIGTERM', () => process.exit(0));
