/** Starts capturing stderr with deprecation notices forced on; the returned function stops it. */
function startCapture(lines: string[]): () => void {
  const write = process.stderr.write;
  // Another test file's silencing must not leak in (files may share a process).
  const silenced = { flag: process.noDeprecation, env: process.env.NO_DEPRECATION };
  process.noDeprecation = false;
  delete process.env.NO_DEPRECATION;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  return () => {
    process.stderr.write = write;
    process.noDeprecation = silenced.flag;
    if (silenced.env !== undefined) process.env.NO_DEPRECATION = silenced.env;
  };
}

/** Runs `fn` with stderr captured and deprecation notices forced on: the lines written, in order. */
export function captureStderr(fn: () => void): string[] {
  const lines: string[] = [];
  const stop = startCapture(lines);
  try {
    fn();
  } finally {
    stop();
  }
  return lines;
}

/** `captureStderr` for work that waits (requests to a server): its result and the lines written meanwhile. */
export async function captureStderrOf<T>(fn: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const stop = startCapture(lines);
  try {
    return { result: await fn(), lines };
  } finally {
    stop();
  }
}

/** The message of each "<date> webapp deprecated <message> at <site>" line. */
export function deprecationMessages(lines: string[]): string[] {
  return lines.map((line) => line.replace(/^.*? webapp deprecated /, '').replace(/ at [^ ]*\n$/, ''));
}
