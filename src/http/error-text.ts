/**
 * The text an error is logged and shown as: its stack, else its `toString()`.
 * A thrown value with neither (`Object.create(null)`, a `toString` that throws)
 * is named by its type instead: the loggers and error pages run after the app's
 * stack, where a throw would end the process.
 */
export function errorText(err: unknown): string {
  try {
    const error = err as { stack?: string; toString(): string };
    return error.stack || error.toString();
  } catch {
    return typeName(err);
  }
}

/** `[object Error]` and the like; a Proxy whose traps all throw (`Symbol.toStringTag`'s too): `[object Object]`. */
function typeName(err: unknown): string {
  try {
    return Object.prototype.toString.call(err);
  } catch {
    return '[object Object]';
  }
}
