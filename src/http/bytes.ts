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
  return Math.floor(UNITS[unit] * amount);
}
