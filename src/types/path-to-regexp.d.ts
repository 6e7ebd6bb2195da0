// path-to-regexp 0.1.x (Express 4's path syntax) ships no type declarations.
declare module 'path-to-regexp' {
  namespace pathToRegexp {
    interface Key {
      name: string | number;
      optional: boolean;
      offset: number;
    }
    interface Options {
      sensitive?: boolean;
      strict?: boolean;
      end?: boolean;
    }
  }
  function pathToRegexp(
    path: string | RegExp | ReadonlyArray<string | RegExp>,
    keys?: pathToRegexp.Key[],
    options?: pathToRegexp.Options,
  ): RegExp;
  export = pathToRegexp;
}
