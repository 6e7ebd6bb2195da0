/**
 * What express-namespace does to `express.application`: it wraps both `del` and
 * `delete`, each wrapper prefixing the path with the namespace. The app `define`
 * builds sees the wrappers; the application object gets its own methods back after.
 */
type Any = any;

export function withNamespacedDelete<T>(framework: Any, define: (framework: Any) => T): T {
  const application = framework.application;
  const original = { del: application.del, delete: application.delete };
  for (const name of ['del', 'delete'] as const) {
    application[name] = function (this: unknown, path: string, ...rest: unknown[]) {
      return original[name].call(this, '/ns' + path, ...rest);
    };
  }
  try {
    return define(framework);
  } finally {
    Object.assign(application, original);
  }
}
