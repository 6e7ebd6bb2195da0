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

/**
 * The arrayLimit under which webapp's parser answers as qs 4 (Connect 2.30's, so
 * Express 3.21's `req.query`) did with its default of 20: qs 4 still made an array
 * of `a[20]=` (indexes up to the limit included), webapp's parser stops before it.
 */
export const QS4_ARRAY_LIMIT = 21;

export function arrayLimitError(arrayLimit: number): RangeError {
  return new RangeError(
    `Array limit exceeded. Only ${arrayLimit} element${arrayLimit === 1 ? '' : 's'} allowed in an array.`,
  );
}
