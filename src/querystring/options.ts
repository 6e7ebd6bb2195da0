/**
 * The qs options webapp's callers use (Express 4's `query parser: extended`,
 * body-parser's extended urlencoded, `webapp.query`), normalised with qs's
 * defaults and type checks so every caller sees the same values qs would.
 */
export interface ExtendedParseOptions {
  allowPrototypes?: boolean;
  arrayLimit?: number;
  depth?: number | false;
  parameterLimit?: number;
  strictDepth?: boolean;
  throwOnLimitExceeded?: boolean;
}

export interface ParseSettings {
  allowPrototypes: boolean;
  arrayLimit: number;
  depth: number;
  parameterLimit: number;
  strictDepth: boolean;
  throwOnLimitExceeded: boolean;
}

/**
 * qs options webapp's parser does not implement, each with the value that leaves qs's
 * result as webapp gives it. Another value is refused when the middleware is made:
 * ignored, it would change what the app receives (`plainObjects` and `parseArrays:
 * false` are even chosen to make the result safer to read).
 */
const UNIMPLEMENTED_OPTIONS: Record<string, unknown> = {
  allowDots: false,
  allowEmptyArrays: false,
  allowSparse: false,
  charset: 'utf-8',
  charsetSentinel: false,
  comma: false,
  decodeDotInKeys: false,
  decoder: undefined,
  delimiter: '&',
  duplicates: 'combine',
  ignoreQueryPrefix: false,
  interpretNumericEntities: false,
  parseArrays: true,
  plainObjects: false,
  strictNullHandling: false,
};

/** Throws for a qs option that would change the result and that webapp's parser does not implement. */
export function assertImplementedOptions(options: object | undefined, caller: string): void {
  if (options == null) return;
  for (const name of Object.keys(UNIMPLEMENTED_OPTIONS)) {
    const value = (options as Record<string, unknown>)[name];
    if (value !== undefined && value !== UNIMPLEMENTED_OPTIONS[name]) {
      throw new TypeError(
        `${caller}: the qs option ${name} (${String(value)}) is not supported; ` +
          'pass a parser function instead, such as (str) => qs.parse(str, options)',
      );
    }
  }
}

export function normaliseOptions(options: ExtendedParseOptions | undefined): ParseSettings {
  const opts = options ?? {};
  if (opts.throwOnLimitExceeded !== undefined && typeof opts.throwOnLimitExceeded !== 'boolean') {
    throw new TypeError('`throwOnLimitExceeded` option must be a boolean');
  }
  return {
    allowPrototypes: typeof opts.allowPrototypes === 'boolean' ? opts.allowPrototypes : false,
    arrayLimit: typeof opts.arrayLimit === 'number' ? opts.arrayLimit : 20,
    // `false` means "no nesting" (+false === 0), as in qs.
    depth: typeof opts.depth === 'number' || opts.depth === false ? +opts.depth : 5,
    parameterLimit: typeof opts.parameterLimit === 'number' ? opts.parameterLimit : 1000,
    strictDepth: typeof opts.strictDepth === 'boolean' ? opts.strictDepth : false,
    throwOnLimitExceeded: opts.throwOnLimitExceeded === true,
  };
}

export function arrayLimitError(arrayLimit: number): RangeError {
  return new RangeError(
    `Array limit exceeded. Only ${arrayLimit} element${arrayLimit === 1 ? '' : 's'} allowed in an array.`,
  );
}
