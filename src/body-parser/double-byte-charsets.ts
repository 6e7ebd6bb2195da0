/**
 * The double-byte charsets body-parser's iconv-lite knows, described as what differs
 * from Node's decoder of the same charset (double-byte.ts reads the rest from it).
 * Each was compared with iconv-lite over every byte, every byte pair and generated
 * byte runs on Node 20 to 26 (test/body-parser/hostile.test.ts); what still differs is
 * said with each.
 */
import type { DoubleByteCharset, PairTable } from './double-byte';

/**
 * Shift_JIS as Windows code page 932 (iconv-lite's `shiftjis`, also `cp932`, `sjis`,
 * `windows-31j`). 0x80 alone is U+0080, and the user-defined rows (private use) end
 * at F9 40 in iconv-lite's table, where Node's go on to F9 FC.
 */
export const SHIFT_JIS: DoubleByteCharset = {
  label: 'shift_jis',
  privateUse: true,
  singles: { 0x80: 0x80 },
  extend(table) {
    for (let trail = 0x41; trail <= 0xfc; trail++) table.set(0xf9, trail, 0);
  },
};

/**
 * The 19 pairs GB18030-2022 moved out of private use (to vertical forms, U+1E3F and
 * ideographs U+9FB4 to U+9FBB), with the private-use characters of the 2005 edition,
 * which iconv-lite's GBK has; Node's GB18030 decoder follows 2022 on every line.
 */
const GB18030_2005_PRIVATE_USE: ReadonlyArray<readonly [number, number, number]> = [
  [0xa6, 0xd9, 0xe78d],
  [0xa6, 0xda, 0xe78e],
  [0xa6, 0xdb, 0xe78f],
  [0xa6, 0xdc, 0xe790],
  [0xa6, 0xdd, 0xe791],
  [0xa6, 0xde, 0xe792],
  [0xa6, 0xdf, 0xe793],
  [0xa6, 0xec, 0xe794],
  [0xa6, 0xed, 0xe795],
  [0xa6, 0xf3, 0xe796],
  [0xa8, 0xbc, 0xe7c7],
  [0xfe, 0x59, 0xe81e],
  [0xfe, 0x61, 0xe826],
  [0xfe, 0x66, 0xe82b],
  [0xfe, 0x67, 0xe82c],
  [0xfe, 0x6d, 0xe832],
  [0xfe, 0x7e, 0xe843],
  [0xfe, 0x90, 0xe854],
  [0xfe, 0xa0, 0xe864],
];

/**
 * GBK (iconv-lite's `gbk`, `x-gbk`): code page 936 with the additions of GBK, its
 * user-defined areas as private use among them, and 0x80 alone as the euro sign.
 * Read from Node's GB18030 decoder, whose two-byte part is GBK on every line (Node
 * 20's own GBK decoder lacks 82 of the additions).
 */
export const GBK: DoubleByteCharset = {
  label: 'gb18030',
  privateUse: true,
  singles: { 0x80: 0x20ac },
  pairs: GB18030_2005_PRIVATE_USE,
};

/**
 * Code page 936 (iconv-lite's `cp936`, also `gb2312`, `euc-cn`, `windows-936`): GBK
 * without its user-defined areas and without the private-use pairs above. Still
 * different: 82 other characters iconv-lite has only in GBK (the euro sign at A2 E3,
 * the ideographic space at A3 A0...) decode here, where iconv-lite reads each pair as
 * U+FFFD and another character: a body labelled `gb2312` is nearly always GBK.
 */
export const CP936: DoubleByteCharset = {
  label: 'gb18030',
  privateUse: false,
  singles: { 0x80: 0x20ac },
  pairs: GB18030_2005_PRIVATE_USE.map(([lead, trail]) => [lead, trail, 0] as const),
};

/**
 * Big5 as iconv-lite reads `big5` (its Big5-HKSCS): code page 950 with the control
 * pictures at A3 C0 to A3 E0 and U+FFED at F9 FE. Still different: the 5,058 pairs of
 * the Hong Kong supplement, which Node's decoder does not have (U+FFFD and another
 * character here, as before them).
 */
export const BIG5_HKSCS: DoubleByteCharset = {
  label: 'big5',
  privateUse: false,
  pairs: [...controlPictures(), [0xf9, 0xfe, 0xffed]],
};

/** Code page 950 (iconv-lite's `cp950`, `windows-950`): Node's Big5 decoder has it whole. */
export const CP950: DoubleByteCharset = { label: 'big5', privateUse: false };

function controlPictures(): Array<[number, number, number]> {
  const pairs: Array<[number, number, number]> = [];
  // U+2400 to U+241F (NUL to US), then U+2421 (DEL).
  for (let trail = 0xc0; trail <= 0xdf; trail++) pairs.push([0xa3, trail, 0x2400 + trail - 0xc0]);
  pairs.push([0xa3, 0xe0, 0x2421]);
  return pairs;
}

/**
 * Korean as code page 949 (iconv-lite's `cp949`, also `euc-kr`, `ks_c_5601-1987`):
 * EUC-KR (KS X 1001) plus Microsoft's Unified Hangul Code. Node's EUC-KR decoder is
 * ICU's, without that extension: 8,822 of the 11,172 Hangul syllables (`81 41` is
 * U+AC02) came out as a C1 control and a letter, and the euro and registered signs
 * added to KS X 1001 in 1998 as U+FFFD. Its user-defined rows, which ICU gives as
 * private-use characters, are unassigned in code page 949.
 */
export const CP949: DoubleByteCharset = {
  label: 'euc-kr',
  privateUse: false,
  pairs: [
    [0xa2, 0xe6, 0x20ac], // EURO SIGN
    [0xa2, 0xe7, 0x00ae], // REGISTERED SIGN
  ],
  extend: addUnifiedHangul,
};

const FIRST_SYLLABLE = 0xac00;
const LAST_SYLLABLE = 0xd7a3;

/**
 * The extension, computed as its definition allows: the syllables KS X 1001 lacks, in
 * Unicode order, fill the extension's pairs in order (leads 0x81 to 0xc6; trails
 * 0x41-0x5a, 0x61-0x7a, then 0x81-0xfe under leads to 0xa0 and 0x81-0xa0 under the rest).
 */
function addUnifiedHangul(table: PairTable): void {
  const inKsX1001 = new Uint8Array(LAST_SYLLABLE - FIRST_SYLLABLE + 1);
  for (let lead = 0xa1; lead <= 0xfe; lead++)
    for (let trail = 0xa1; trail <= 0xfe; trail++) {
      const code = table.get(lead, trail);
      if (code >= FIRST_SYLLABLE && code <= LAST_SYLLABLE) inKsX1001[code - FIRST_SYLLABLE] = 1;
    }
  let syllable = FIRST_SYLLABLE;
  for (let lead = 0x81; lead <= 0xc6; lead++)
    for (const trail of extensionTrails(lead)) {
      while (syllable <= LAST_SYLLABLE && inKsX1001[syllable - FIRST_SYLLABLE] === 1) syllable++;
      if (syllable > LAST_SYLLABLE) return;
      table.set(lead, trail, syllable++);
    }
}

function* extensionTrails(lead: number): Generator<number> {
  for (let trail = 0x41; trail <= 0x5a; trail++) yield trail;
  for (let trail = 0x61; trail <= 0x7a; trail++) yield trail;
  const last = lead <= 0xa0 ? 0xfe : 0xa0;
  for (let trail = 0x81; trail <= last; trail++) yield trail;
}
