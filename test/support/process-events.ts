/**
 * The warnings and uncaught exceptions of this process while a test runs: a crash that
 * would end a user's server (an error thrown from an event listener of Node's) is caught
 * here and asserted on, instead of ending the test run.
 */
export interface ProcessEvents {
  /** The message of each `warning` emitted, in order. */
  readonly warnings: string[];
  readonly uncaught: unknown[];
  /** Removes the listeners; call it in a `finally`. */
  stop(): void;
}

export function watchProcessEvents(): ProcessEvents {
  const warnings: string[] = [];
  const uncaught: unknown[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  const onUncaught = (err: unknown) => uncaught.push(err);
  process.on('warning', onWarning);
  process.on('uncaughtException', onUncaught);
  return {
    warnings,
    uncaught,
    stop() {
      process.off('warning', onWarning);
      process.off('uncaughtException', onUncaught);
    },
  };
}
