// What every benchmark server shares: which workload to serve, the constants the
// workloads are built from, and the one-line handshake with bench/run.mjs
// ("listening <port>" once ready, "unsupported <reason>" when the framework
// cannot serve that workload, so the harness prints n/a instead of failing).

/** hello | json | routes | body | static: from argv[2], else BENCH_KIND. */
export const kind = process.argv[2] || process.env.BENCH_KIND || 'hello';

/** Number of parameterised routes `/route0/:id` ... `/route999/:id`; requests hit the last. */
export const ROUTE_COUNT = 1000;

/** Every JSON parser gets the same explicit limit, so no default limit decides a result. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
export const BODY_LIMIT = '1mb';

/** Static files live here (written by the harness); URLs are /static/<file>. */
export const staticRoot = process.env.BENCH_STATIC_ROOT || '';

/**
 * The answer to a parsed JSON body: small and the same for every framework, so
 * the measurement is the parse, not the reply. The harness checks the count.
 */
export function summariseBody(body) {
  return { count: body && Array.isArray(body.items) ? body.items.length : -1 };
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
