/**
 * The Range request header (RFC 7233), parsed against a resource size as
 * range-parser 1.2 does: lenient about what it cannot use (a part that makes no
 * sense is skipped) and strict only about the header's shape.
 */

export interface ByteRange {
  start: number;
  end: number;
}

/** The ranges that could be satisfied, in header order, with the unit (`bytes`) as `type`. */
export interface Ranges extends Array<ByteRange> {
  type: string;
}

/** No range of the header lies inside the resource. */
export const RANGE_UNSATISFIABLE = -1;
/** The header has no `unit=` prefix. */
export const RANGE_MALFORMED = -2;

export interface RangeOptions {
  /** Merge overlapping and adjacent ranges (the result keeps the order of first appearance). */
  combine?: boolean;
  /**
   * One part that cannot be satisfied makes the whole header unsatisfiable (`-1`),
   * as range-parser 1.0 (Express 3.21's `req.range`, send 0.13) answers, where 1.2 skips it.
   */
  strict?: boolean;
}

/**
 * Parses `header` for a resource of `size` bytes. Returns the satisfiable ranges,
 * `-1` when none is, `-2` when the header is malformed. A suffix range `-N` means
 * the last N bytes; an open range `N-` runs to the end; an end past the resource
 * is clipped to its last byte.
 */
export function parseRange(size: number, header: string, options?: RangeOptions): Ranges | -1 | -2 {
  if (typeof header !== 'string') throw new TypeError('argument str must be a string');
  const equals = header.indexOf('=');
  if (equals === -1) return RANGE_MALFORMED;

  const ranges = [] as unknown as Ranges;
  ranges.type = header.slice(0, equals);
  const last = size - 1;

  for (const spec of header.slice(equals + 1).split(',')) {
    const bounds = spec.split('-');
    // parseInt, not Number: range-parser accepts leading spaces and ignores trailing junk ("5 ", " 3").
    let start = Number.parseInt(bounds[0], 10);
    let end = Number.parseInt(bounds[1], 10);
    if (Number.isNaN(start)) {
      start = size - end;
      end = last;
    } else if (Number.isNaN(end)) {
      end = last;
    }
    if (end > last) end = last;
    if (Number.isNaN(start) || Number.isNaN(end) || start > end || start < 0) {
      if (options?.strict) return RANGE_UNSATISFIABLE;
      continue;
    }
    ranges.push({ start, end });
  }

  if (ranges.length === 0) return RANGE_UNSATISFIABLE;
  return options?.combine ? combineRanges(ranges) : ranges;
}

interface IndexedRange extends ByteRange {
  index: number;
}

/** Merges overlapping and adjacent ranges; each merged range sits where its earliest part was. */
function combineRanges(ranges: Ranges): Ranges {
  const byStart: IndexedRange[] = ranges
    .map((range, index) => ({ start: range.start, end: range.end, index }))
    .sort((a, b) => a.start - b.start);

  const merged: IndexedRange[] = [byStart[0]];
  for (let i = 1; i < byStart.length; i++) {
    const range = byStart[i];
    const current = merged[merged.length - 1];
    if (range.start > current.end + 1) {
      merged.push(range);
    } else if (range.end > current.end) {
      current.end = range.end;
      current.index = Math.min(current.index, range.index);
    }
  }

  const combined = merged
    .sort((a, b) => a.index - b.index)
    .map((range) => ({ start: range.start, end: range.end })) as unknown as Ranges;
  combined.type = ranges.type;
  return combined;
}
