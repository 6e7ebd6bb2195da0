/**
 * East Asian double-byte charsets (Shift_JIS, GBK, Big5, EUC-KR) as body-parser's
 * iconv-lite reads them. Node's `TextDecoder` knows nearly the same characters (what
 * differs is in double-byte-charsets.ts, with each charset), but reads bytes that are
 * not text differently: after a lead byte whose pair stands for nothing it drops the
 * second byte unless it is ASCII, where iconv-lite gives U+FFFD for the lead byte
 * alone and reads the next byte again, and it decodes some lone bytes to C1 controls
 * or private-use characters where iconv-lite has U+FFFD (or the reverse). A client
 * choosing the charset chooses the bytes, so body-parser's reading is kept, byte for
 * byte.
 *
 * Each table is made from Node's own decoder at the first body in its charset, so
 * no table ships: every byte pair, each followed by a line feed, decoded in one call,
 * with what the charset description adds or takes away.
 */
import { Buffer } from 'node:buffer';
import { TextDecoder } from 'node:util';
import type { BodyDecoder } from './charset';

const FIRST_LEAD = 0x81;
const FIRST_TRAIL = 0x40;
/** Trail bytes 0x40-0xfe: one row of the pair table per lead byte 0x81-0xfe. */
const ROW = 0xfe - FIRST_TRAIL + 1;
/** A pair or byte that stands for nothing (U+0000 is never one's character). */
const UNASSIGNED = 0;
const REPLACEMENT = 0xfffd;

export interface DoubleByteCharset {
  /** The WHATWG label of Node's decoder the tables are read from. */
  label: string;
  /** Whether Node's private-use characters are the charset's (Shift_JIS's user rows) or ICU's stand-ins for nothing. */
  privateUse: boolean;
  /** Lone bytes 0x80-0xff iconv-lite reads otherwise than Node (byte to code unit, U+FFFD for none). */
  singles?: Readonly<Record<number, number>>;
  /** Pairs iconv-lite reads otherwise than Node: [lead, trail, code unit, or UNASSIGNED]. */
  pairs?: ReadonlyArray<readonly [number, number, number]>;
  /** Fills what the charset has beyond Node's decoder, given the pairs read from it. */
  extend?: (table: PairTable) => void;
}

export interface PairTable {
  get(lead: number, trail: number): number;
  set(lead: number, trail: number, code: number): void;
}

const slot = (lead: number, trail: number): number => (lead - FIRST_LEAD) * ROW + trail - FIRST_TRAIL;
const isPrivateUse = (code: number): boolean => code >= 0xe000 && code <= 0xf8ff;

/** What Node's decoder makes of each of `sequences`, in one call: each is followed by a line feed. */
function decodeEach(decoder: TextDecoder, sequences: number[][]): string[] {
  const bytes = Buffer.alloc(sequences.reduce((sum, sequence) => sum + sequence.length + 1, 0));
  let at = 0;
  for (const sequence of sequences) {
    bytes.set(sequence, at);
    at += sequence.length;
    bytes[at++] = 0x0a;
  }
  return decoder.decode(bytes).split('\n');
}

/** The one code unit Node gives, or UNASSIGNED for none, U+FFFD, or a private-use stand-in. */
function unitOf(text: string, privateUse: boolean): number {
  if (text.length !== 1) return UNASSIGNED;
  const code = text.charCodeAt(0);
  if (code === REPLACEMENT || (!privateUse && isPrivateUse(code))) return UNASSIGNED;
  return code;
}

interface Tables {
  singles: Uint16Array;
  pairs: Uint16Array;
}

function buildTables(charset: DoubleByteCharset): Tables | undefined {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset.label);
  } catch {
    return undefined;
  }
  const singles = new Uint16Array(0x80);
  const lone: number[][] = [];
  for (let byte = 0x80; byte <= 0xff; byte++) lone.push([byte]);
  decodeEach(decoder, lone).forEach((text, i) => {
    const code = unitOf(text, charset.privateUse);
    // A C1 control is Node's reading of a byte that is no text: not the charset's.
    singles[i] = code >= 0x80 && code <= 0x9f ? UNASSIGNED : code;
  });
  for (const [byte, code] of Object.entries(charset.singles ?? {})) singles[Number(byte) - 0x80] = code;

  const pairs = new Uint16Array((0xfe - FIRST_LEAD + 1) * ROW);
  const sequences: number[][] = [];
  for (let lead = FIRST_LEAD; lead <= 0xfe; lead++)
    for (let trail = FIRST_TRAIL; trail <= 0xfe; trail++) sequences.push([lead, trail]);
  decodeEach(decoder, sequences).forEach((text, i) => {
    if (i < sequences.length) pairs[i] = unitOf(text, charset.privateUse);
  });
  // A pair Node reads as two characters (its first byte alone, then the second) is no
  // pair of the charset: only a code Node gave to the two bytes as one counts (unitOf).
  const table: PairTable = {
    get: (lead, trail) => pairs[slot(lead, trail)],
    set: (lead, trail, code) => {
      pairs[slot(lead, trail)] = code;
    },
  };
  for (const [lead, trail, code] of charset.pairs ?? []) table.set(lead, trail, code);
  charset.extend?.(table);
  return { singles, pairs };
}

/**
 * Decodes as iconv-lite does: ASCII below 0x80; a byte 0x81-0xfe and the byte after
 * it as a pair when the pair stands for a character; else the byte alone, as its own
 * character or U+FFFD, and decoding goes on from the next byte (so the second byte of
 * a pair that stands for nothing is read again, as ASCII or as a lead byte).
 */
function decodeWith(tables: Tables, bytes: Buffer): string {
  let i = 0;
  while (i < bytes.length && bytes[i] < 0x80) i++;
  if (i === bytes.length) return bytes.toString('latin1');
  // One code unit at most per byte: ASCII is one for one, a pair one for two.
  const units = new Uint16Array(bytes.length);
  let length = 0;
  for (let j = 0; j < i; j++) units[length++] = bytes[j];
  const { singles, pairs } = tables;
  while (i < bytes.length) {
    const byte = bytes[i];
    if (byte < 0x80) {
      units[length++] = byte;
      i++;
      continue;
    }
    const trail = i + 1 < bytes.length ? bytes[i + 1] : 0;
    const pair =
      byte >= FIRST_LEAD && byte <= 0xfe && trail >= FIRST_TRAIL && trail <= 0xfe
        ? pairs[slot(byte, trail)]
        : UNASSIGNED;
    if (pair !== UNASSIGNED) {
      units[length++] = pair;
      i += 2;
    } else {
      const single = singles[byte - 0x80];
      units[length++] = single === UNASSIGNED ? REPLACEMENT : single;
      i++;
    }
  }
  return Buffer.from(units.buffer, 0, length * 2).toString('utf16le');
}

/** The charset's decoder, or undefined on a Node without it (the parsers answer 415). */
export function doubleByte(charset: DoubleByteCharset): BodyDecoder | undefined {
  const tables = buildTables(charset);
  if (tables === undefined) return undefined;
  return { decode: (bytes) => decodeWith(tables, bytes) };
}
