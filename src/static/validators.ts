/**
 * The validators a file response carries, made from the file's `stat` as send 0.19
 * makes them: Last-Modified (`mtime.toUTCString()`) and the weak ETag's tag (size and
 * time in milliseconds, in hexadecimal). The texts of a modification time are
 * remembered by its time value: V8 formats a date through the C library's `snprintf`
 * and writes a number beyond the small-integer range (every time in milliseconds) in
 * hexadecimal digit by digit through `fmod`, together about 9,000 instructions on
 * Node 26, 6% of the whole response of a 4 KB file; a server sends the same few files,
 * so the same few times, over and over.
 */
import type { Stats } from 'node:fs';

interface TimeTexts {
  /** `toUTCString()`: an HTTP date. */
  readonly httpDate: string;
  /** The time value in hexadecimal. */
  readonly hex: string;
}

const timeTexts = new Map<number, TimeTexts>();

/**
 * How many times are kept: a site's assets are a few hundred files at most. Past it
 * the map starts again, so a server sending files from a directory of thousands costs
 * what it did without the map, and the memory stays under about 150 KB.
 */
const TIMES_KEPT = 1024;

function textsOf(mtime: Date): TimeTexts {
  // The time value keys the texts exactly; NaN (an invalid date) too, as a Map compares
  // keys by SameValueZero.
  const time = mtime.getTime();
  let texts = timeTexts.get(time);
  if (texts === undefined) {
    texts = { httpDate: mtime.toUTCString(), hex: time.toString(16) };
    if (timeTexts.size >= TIMES_KEPT) timeTexts.clear();
    timeTexts.set(time, texts);
  }
  return texts;
}

/** The Last-Modified value of a file. */
export function lastModifiedOf(stat: Pick<Stats, 'mtime'>): string {
  return textsOf(stat.mtime).httpDate;
}

/** Entity tag of a file from its size and modification time (always used weak by file serving). */
export function statTag(stat: Pick<Stats, 'size' | 'mtime'>): string {
  return `"${stat.size.toString(16)}-${textsOf(stat.mtime).hex}"`;
}
