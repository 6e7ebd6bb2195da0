/**
 * Durations written as ms-format strings (`'1d'`, `'2 hours'`, `'1.5h'`, `'-100ms'`)
 * turned into milliseconds, as the `ms` package parses them for `maxAge` options.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const YEAR = 365.25 * DAY;

const UNITS: Readonly<Record<string, number>> = {
  years: YEAR,
  year: YEAR,
  yrs: YEAR,
  yr: YEAR,
  y: YEAR,
  weeks: WEEK,
  week: WEEK,
  w: WEEK,
  days: DAY,
  day: DAY,
  d: DAY,
  hours: HOUR,
  hour: HOUR,
  hrs: HOUR,
  hr: HOUR,
  h: HOUR,
  minutes: MINUTE,
  minute: MINUTE,
  mins: MINUTE,
  min: MINUTE,
  m: MINUTE,
  seconds: SECOND,
  second: SECOND,
  secs: SECOND,
  sec: SECOND,
  s: SECOND,
  milliseconds: 1,
  millisecond: 1,
  msecs: 1,
  msec: 1,
  ms: 1,
};

const DURATION = /^(-?(?:\d+)?\.?\d+) *([a-z]+)?$/i;
// `ms` 0.7's number without its nested quantifiers, which backtrack quadratically
// over a long run of digits (the strings here may be 10,000 characters long).
const LEGACY_DURATION = /^(\d*\.\d+|\d+) *([a-z]+)?$/i;

/**
 * Milliseconds for an ms-format string, or `undefined` when it is not one
 * (unknown unit, no number, or longer than 100 characters, a bound that keeps
 * hostile option values cheap). A bare number is milliseconds.
 */
export function parseMs(value: string): number | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 100) return undefined;
  const match = DURATION.exec(value);
  if (!match) return undefined;
  const unit = (match[2] ?? 'ms').toLowerCase();
  if (!Object.prototype.hasOwnProperty.call(UNITS, unit)) return undefined;
  return Number.parseFloat(match[1]) * UNITS[unit];
}

/**
 * The same as `ms` 0.7 parses it, the version Connect 2.30 bundles with its favicon
 * and timeout middleware: no sign, no weeks, and strings up to 10,000 characters.
 */
export function parseMsLegacy(value: string): number | undefined {
  if (typeof value !== 'string' || value.length > 10_000) return undefined;
  const match = LEGACY_DURATION.exec(value);
  if (!match) return undefined;
  const unit = (match[2] ?? 'ms').toLowerCase();
  if (UNITS[unit] === WEEK || !Object.prototype.hasOwnProperty.call(UNITS, unit)) return undefined;
  return Number.parseFloat(match[1]) * UNITS[unit];
}
