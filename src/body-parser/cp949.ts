/**
 * Korean bodies (`euc-kr`, `cp949`, `ks_c_5601-1987` and their other names) as
 * body-parser's iconv-lite reads them: code page 949, which is EUC-KR (KS X 1001)
 * plus Microsoft's Unified Hangul Code. Node's `TextDecoder('euc-kr')` is ICU's
 * EUC-KR without that extension: 8,822 of the 11,172 Hangul syllables (`81 41` is
 * U+AC02) came out as a C1 control and a letter, and the euro and registered signs
 * added to KS X 1001 in 1998 (`A2 E6`, `A2 E7`) as U+FFFD.
 *
 * The table is made at the first Korean body, without shipping one: KS X 1001 comes
 * from Node's own decoder (its user-defined rows, which ICU gives as private-use
 * characters, are unassigned in code page 949), and the extension is computed, as
 * its definition allows: the syllables KS X 1001 lacks, in Unicode order, fill the
 * extension's byte pairs in order.
 */
import { Buffer } from 'node:buffer';
import { TextDecoder } from 'node:util';
import type { BodyDecoder } from './charset';

const FIRST_LEAD = 0x81;
const FIRST_TRAIL = 0x41;
/** Trail bytes 0x41-0xfe: the table has a row of this many per lead byte 0x81-0xfe. */
const ROW = 0xfe - FIRST_TRAIL + 1;
/** A table entry for a pair that stands for nothing (U+0000 is never a pair's character). */
const UNASSIGNED = 0;
const REPLACEMENT = 0xfffd;

const FIRST_SYLLABLE = 0xac00;
const LAST_SYLLABLE = 0xd7a3;

/** Pairs of code page 949 that KS X 1001 as ICU has it lacks, other than the extension. */
const ADDED_IN_1998: ReadonlyArray<[number, number, number]> = [
  [0xa2, 0xe6, 0x20ac], // EURO SIGN
  [0xa2, 0xe7, 0x00ae], // REGISTERED SIGN
];

const slot = (lead: number, trail: number): number => (lead - FIRST_LEAD) * ROW + trail - FIRST_TRAIL;

const isPrivateUse = (code: number): boolean => code >= 0xe000 && code <= 0xf8ff;

/** The extension's trail bytes: 0x41-0x5a, 0x61-0x7a, then 0x81-0xfe under leads to 0xa0, 0x81-0xa0 under the rest. */
function* extensionTrails(lead: number): Generator<number> {
  for (let trail = 0x41; trail <= 0x5a; trail++) yield trail;
  for (let trail = 0x61; trail <= 0x7a; trail++) yield trail;
  const last = lead <= 0xa0 ? 0xfe : 0xa0;
  for (let trail = 0x81; trail <= last; trail++) yield trail;
}

/** Code page 949's pairs, by `slot`; undefined where this Node has no EUC-KR decoder. */
function buildTable(): Uint16Array | undefined {
  let eucKr: TextDecoder;
  try {
    eucKr = new TextDecoder('euc-kr');
  } catch {
    return undefined;
  }
  const table = new Uint16Array((0xfe - FIRST_LEAD + 1) * ROW);
  const hasSyllable = new Uint8Array(LAST_SYLLABLE - FIRST_SYLLABLE + 1);
  // KS X 1001's 94 x 94 pairs, decoded in one call: each pair, then a line feed.
  const pairs = Buffer.alloc(94 * 94 * 3);
  let at = 0;
  for (let lead = 0xa1; lead <= 0xfe; lead++)
    for (let trail = 0xa1; trail <= 0xfe; trail++) {
      pairs[at++] = lead;
      pairs[at++] = trail;
      pairs[at++] = 0x0a;
    }
  const decoded = eucKr.decode(pairs).split('\n');
  let index = 0;
  for (let lead = 0xa1; lead <= 0xfe; lead++)
    for (let trail = 0xa1; trail <= 0xfe; trail++) {
      const text = decoded[index++];
      if (text.length !== 1) continue;
      const code = text.charCodeAt(0);
      if (code === REPLACEMENT || isPrivateUse(code)) continue;
      table[slot(lead, trail)] = code;
      if (code >= FIRST_SYLLABLE && code <= LAST_SYLLABLE) hasSyllable[code - FIRST_SYLLABLE] = 1;
    }
  for (const [lead, trail, code] of ADDED_IN_1998) table[slot(lead, trail)] = code;
  let syllable = FIRST_SYLLABLE;
  for (let lead = 0x81; lead <= 0xc6; lead++)
    for (const trail of extensionTrails(lead)) {
      while (syllable <= LAST_SYLLABLE && hasSyllable[syllable - FIRST_SYLLABLE] === 1) syllable++;
      if (syllable > LAST_SYLLABLE) return table;
      table[slot(lead, trail)] = syllable++;
    }
  return table;
}

/**
 * Decodes as iconv-lite does: ASCII below 0x80; a lead byte 0x81-0xfe and the byte
 * after it as the pair's character; where the pair stands for nothing (or the body
 * ends after the lead byte), U+FFFD for the lead byte alone, and decoding goes on
 * from the byte after it (so an ASCII byte after a bad lead byte is kept).
 */
function decodeWith(table: Uint16Array, bytes: Buffer): string {
  let i = 0;
  while (i < bytes.length && bytes[i] < 0x80) i++;
  if (i === bytes.length) return bytes.toString('latin1');
  // One code unit at most per byte: ASCII is one for one, a pair one for two.
  const units = new Uint16Array(bytes.length);
  let length = 0;
  for (let j = 0; j < i; j++) units[length++] = bytes[j];
  while (i < bytes.length) {
    const byte = bytes[i];
    if (byte < 0x80) {
      units[length++] = byte;
      i++;
      continue;
    }
    const trail = i + 1 < bytes.length ? bytes[i + 1] : 0;
    const code =
      byte >= FIRST_LEAD && byte <= 0xfe && trail >= FIRST_TRAIL && trail <= 0xfe
        ? table[slot(byte, trail)]
        : UNASSIGNED;
    if (code === UNASSIGNED) {
      units[length++] = REPLACEMENT;
      i++;
    } else {
      units[length++] = code;
      i += 2;
    }
  }
  return Buffer.from(units.buffer, 0, length * 2).toString('utf16le');
}

/** The code page 949 decoder, or undefined on a Node without ICU's EUC-KR (the parsers answer 415). */
export function cp949(): BodyDecoder | undefined {
  const table = buildTable();
  if (table === undefined) return undefined;
  return { decode: (bytes) => decodeWith(table, bytes) };
}
