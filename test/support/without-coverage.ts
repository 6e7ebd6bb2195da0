/**
 * The environment for a child process that runs none of webapp's source (a compiler, npm,
 * a script that loads the built package): without NODE_V8_COVERAGE. Under
 * `npm run coverage` (c8) every child process records coverage, which slows it down (a
 * fifth for tsc) and measures nothing c8 reports: it reports src/, and the built dist/
 * has no source maps back to it.
 */
export function withoutCoverage(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const copy = { ...env };
  delete copy.NODE_V8_COVERAGE;
  return copy;
}
