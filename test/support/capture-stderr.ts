/** Runs `fn` with stderr captured and deprecation notices forced on: the lines written, in order. */
export function captureStderr(fn: () => void): string[] {
  const lines: string[] = [];
  const write = process.stderr.write;
  // Another test file's silencing must not leak in (files may share a process).
  const silenced = { flag: process.noDeprecation, env: process.env.NO_DEPRECATION };
  process.noDeprecation = false;
  delete process.env.NO_DEPRECATION;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    fn();
  } finally {
    process.stderr.write = write;
    process.noDeprecation = silenced.flag;
    if (silenced.env !== undefined) process.env.NO_DEPRECATION = silenced.env;
  }
  return lines;
}

/** The message of each "<date> webapp deprecated <message> at <site>" line. */
export function deprecationMessages(lines: string[]): string[] {
  return lines.map((line) => line.replace(/^.*? webapp deprecated /, '').replace(/ at [^ ]*\n$/, ''));
}
