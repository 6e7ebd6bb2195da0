/**
 * A child process whose stdout the test reads as it comes: wait (bounded) for a
 * line to appear, from a given point of the output, and see how the process exited.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface WatchedChild {
  /** Everything printed so far. */
  output(): string;
  /**
   * Resolves with the first match of `pattern` in the output after character `from`;
   * rejects, with what the process printed since `from`, when it exits first or
   * after `limitMs` (default 30 s) without the line.
   */
  printed(pattern: RegExp, from?: number, limitMs?: number): Promise<RegExpExecArray>;
  /** Resolves with [exit code, signal] once the process has exited and its stdout is read to the end. */
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

/** With `stderr`, what the process writes there is read into the same output (it must be piped). */
export function watchChild(child: ChildProcess, { stderr = false } = {}): WatchedChild {
  let output = '';
  const stdout = child.stdout!;
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk: string) => (output += chunk));
  // What a wait for the next line listens to: stdout, and stderr when it is read too.
  const streams = stderr ? [stdout, child.stderr!] : [stdout];
  if (stderr) {
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => (output += chunk));
  }
  const exited = Promise.all([once(child, 'exit'), once(stdout, 'close')]).then(
    ([exit]) => exit as [number | null, NodeJS.Signals | null],
  );
  return {
    output: () => output,
    exited,
    async printed(pattern, from = 0, limitMs = 30000) {
      const deadline = Date.now() + limitMs;
      for (;;) {
        const match = pattern.exec(output.slice(from));
        if (match) return match;
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`the process exited; it printed:\n${output}`);
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(`no line matching ${pattern} within ${limitMs} ms; it printed:\n${output.slice(from)}`);
        // A timer that does not hold the process open: the wait ends with the test either way.
        // The abort removes the listeners the race's losers left on stdout and the child.
        const abort = new AbortController();
        let timer: NodeJS.Timeout | undefined;
        const waited = new Promise((resolve) => (timer = setTimeout(resolve, left).unref()));
        const { signal } = abort;
        await Promise.race([
          ...streams.map((stream) => once(stream, 'data', { signal })),
          once(child, 'exit', { signal }),
          waited,
        ]).finally(() => {
          clearTimeout(timer);
          abort.abort();
        });
      }
    },
  };
}
