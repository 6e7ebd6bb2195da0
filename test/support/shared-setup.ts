/**
 * A setup the suites of one file share, run once, by whichever suite's `before` comes
 * first: each suite awaits it in a hook of its own, because Node 22.0 to 22.2 run a
 * file's tests without waiting for an async hook at the file's top level.
 */
export function sharedSetup(setup: () => Promise<void>): () => Promise<void> {
  let started: Promise<void> | undefined;
  return () => (started ??= setup());
}
