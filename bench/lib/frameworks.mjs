// The frameworks of a run, in table order: node:http is the ceiling and
// express@4 the reference, so both are always measured first and every ratio
// is relative to them.
export const FRAMEWORKS = [
  { id: 'node-http', label: 'node:http' },
  { id: 'express4', label: 'express@4' },
  { id: 'express5', label: 'express@5' },
  { id: 'fastify', label: 'fastify' },
  { id: 'koa', label: 'koa' },
  { id: 'polka', label: 'polka' },
  { id: 'hono', label: 'hono' },
  { id: 'webapp', label: 'webapp' },
];

export const CEILING = 'node-http';
export const REFERENCE = 'express4';

export function serverFile(framework) {
  return new URL(`../servers/${framework.id}.mjs`, import.meta.url);
}
