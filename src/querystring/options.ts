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

export function arrayLimitError(arrayLimit: number): RangeError {
  return new RangeError(
    `Array limit exceeded. Only ${arrayLimit} element${arrayLimit === 1 ? '' : 's'} allowed in an array.`,
  );
}
