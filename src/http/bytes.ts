/** Byte sizes as strings (`'100kb'`, `'1.5mb'`) or numbers, with the units and rounding of the bytes package. */
const UNITS: Record<string, number> = {
  b: 1,
  kb: 1 << 10,
  mb: 1 << 20,
  gb: 1 << 30,
  tb: Math.pow(1024, 4),
  pb: Math.pow(1024, 5),
};
const SIZE = /^((-|\+)?(\d+(?:\.\d+)?)) *(kb|mb|gb|tb|pb)$/i;

/** The number of bytes, or null when the value is not a size (so callers can reject it). */
export function parseBytes(value: unknown): number | null {
  const size = parseBytesUnrounded(value);
  // A number is the caller's own, as the bytes package takes it: only a text's size is rounded.
  return size === null || typeof value === 'number' ? size : Math.floor(size);
}

/**
 * As parseBytes, but a fraction of a unit stays a fraction (`'0.7kb'` is 716.8): bytes
 * 2.1, which Connect 2.30's middleware read sizes with, did not round down, and a
 * threshold compared with `<` then takes one byte more than the rounded one. A number is
 * taken as it is by both.
 */
export function parseBytesUnrounded(value: unknown): number | null {
  if (typeof value === 'number' && !isNaN(value)) return value;
  if (typeof value !== 'string') return null;
  const match = SIZE.exec(value);
  let amount: number;
  let unit = 'b';
  if (!match) {
    amount = parseInt(value, 10);
  } else {
    amount = parseFloat(match[1]);
    unit = match[4].toLowerCase();
  }
  if (isNaN(amount)) return null;
  return UNITS[unit] * amount;
}

export interface FormatBytesOptions {
  /** Digits after the point (default 2). */
  decimalPlaces?: number;
  /** Keep trailing zeros of the decimals. */
  fixedDecimals?: boolean;
  /** Grouping separator for the integer part, e.g. ','. */
  thousandsSeparator?: string;
  /** Force a unit (b, kb, mb, ...); otherwise the largest that fits. */
  unit?: string;
  /** Text between the number and the unit. */
  unitSeparator?: string;
}

const UNIT_NAMES = ['PB', 'TB', 'GB', 'MB', 'KB'];

/** `'1.5KB'`-style text for a byte count (units upper-cased), or null for a non-finite value. */
export function formatBytes(value: number, options: FormatBytesOptions = {}): string | null {
  if (!Number.isFinite(value)) return null;
  const places = options.decimalPlaces !== undefined ? options.decimalPlaces : 2;
  let unit = options.unit || '';
  if (!UNITS[unit.toLowerCase()]) {
    const size = Math.abs(value);
    unit = UNIT_NAMES.find((name) => size >= UNITS[name.toLowerCase()]) || 'B';
  }
  let text = (value / UNITS[unit.toLowerCase()]).toFixed(places);
  if (!options.fixedDecimals) {
    // '1.50' -> '1.5', '2.00' -> '2'
    if (text.indexOf('.') !== -1) text = text.replace(/0+$/, '').replace(/\.$/, '');
  }
  if (options.thousandsSeparator) {
    const [whole, fraction] = text.split('.');
    const grouped = whole.replace(/\B(?=(?:\d{3})+$)/g, options.thousandsSeparator);
    text = fraction !== undefined ? grouped + '.' + fraction : grouped;
  }
  return text + (options.unitSeparator || '') + unit;
}
