/**
 * The environment for a child process that runs none of webapp's source (a compiler, npm,
 * a script that loads the built package): without NODE_V8_COVERAGE. Under
 * `npm run coverage` (c8) every child process records coverage, which slows it down (a
 * fifth for tsc) and measures nothing c8 reports: it reports src/, and the built dist/
 * has no source maps back to it.
 *
 * The variable is set empty, not deleted: child_process copies the parent's
 * NODE_V8_COVERAGE into any `env` that does not name it, so that coverage follows
 * programs that spawn with a list of variables. An empty value turns coverage off in the
 * child and, being empty, is not copied on to its own children.
 */
export function withoutCoverage(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const copy = { ...env };
  copy.NODE_V8_COVERAGE = '';
  return copy;
}
