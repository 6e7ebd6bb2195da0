/**
 * Body decoding by charset name. TextDecoder does the work, but body-parser
 * decodes with iconv-lite, whose names and tables differ from the WHATWG ones in
 * ways clients notice: WHATWG folds latin1 and us-ascii into windows-1252 (and
 * Node's decoder then maps 0x80-0x9f to C1 controls, not the euro sign), knows no
 * 'binary', 'ucs2', 'base64' or 'hex', and reads 'utf-16' as little-endian even
 * after a big-endian BOM. Those names are handled here as iconv-lite does.
 */
import { Buffer } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { BIG5_HKSCS, CP936, CP949, CP950, GBK, SHIFT_JIS } from './double-byte-charsets';
import { doubleByte } from './double-byte';
import { lazy } from '../http/lazy';

export interface BodyDecoder {
  /**
   * `chunks`: the body as it was read, when body-parser would have decoded it a chunk
   * at a time (it does unless there is a `verify`). iconv-lite's streaming decoder of
   * unlabelled UTF-16 guesses the byte order from the first chunks only; the others
   * read a body the same either way (but for a character iconv-lite 0.4 loses in a
   * double-byte charset, which webapp keeps: docs/migrating-from-express-4.md), and
   * ignore them.
   */
  decode(bytes: Buffer, chunks?: readonly Buffer[]): string;
}

/** windows-1252's 0x80-0x9f; the five bytes it leaves undefined decode to U+FFFD, as in iconv-lite. */
const WINDOWS_1252_HIGH =
  '\u20ac\ufffd\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\ufffd\u017d\ufffd' +
  '\ufffd\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\ufffd\u017e\u0178';

const latin1: BodyDecoder = { decode: (bytes) => bytes.toString('latin1') };

/**
 * A single-byte charset that is latin1 below `from`: those bytes are the text as
 * they are, and a body with none above them decodes in one native call. The others
 * go through a 256-entry table into UTF-16 code units, in one pass. (A regular
 * expression replace with a function per byte cost 10 to 20 times iconv-lite's time
 * on a body of such bytes: a client picks the charset.)
 */
function singleByte(from: number, high: (byte: number) => number): BodyDecoder {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) table[byte] = byte < from ? byte : high(byte);
  return {
    decode(bytes) {
      let i = 0;
      while (i < bytes.length && bytes[i] < from) i++;
      if (i === bytes.length) return bytes.toString('latin1');
      const units = new Uint16Array(bytes.length);
      for (let j = 0; j < bytes.length; j++) units[j] = table[bytes[j]];
      return Buffer.from(units.buffer, 0, units.byteLength).toString('utf16le');
    },
  };
}

// Bytes over 0x7f are not ASCII: the replacement character, as iconv-lite gives.
const ascii = singleByte(0x80, () => 0xfffd);

const windows1252 = singleByte(0x80, (byte) => (byte <= 0x9f ? WINDOWS_1252_HIGH.charCodeAt(byte - 0x80) : byte));

/**
 * Three ASCII control bytes that some of ICU's converters put in each other's place,
 * as IBM's code pages order them (IBM866 on Node 20, and Shift_JIS on Node 20 to 26,
 * which double-byte.ts now reads itself: `1a 1c 7f` decodes to U+001C U+007F U+001A).
 * iconv-lite reads them as ASCII, and so does the WHATWG standard.
 */
const CONTROLS = '\x1a\x1c\x7f';
const CONTROL_BYTES = Buffer.from(CONTROLS, 'latin1');

function textDecoder(label: string): BodyDecoder | undefined {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    return undefined;
  }
  // Asked once per charset (decoderFor caches): a decoder that moves the controls
  // gets them put back; no multi-byte sequence of these charsets ends in one of them.
  const probe = decoder.decode(CONTROL_BYTES);
  if (probe === CONTROLS || [...probe].sort().join('') !== CONTROLS)
    return { decode: (bytes) => decoder.decode(bytes) };
  const original = new Uint16Array(0x80);
  for (let code = 0; code < 0x80; code++) original[code] = code;
  for (let i = 0; i < CONTROLS.length; i++) original[probe.charCodeAt(i)] = CONTROLS.charCodeAt(i);
  return { decode: (bytes) => restoreControls(decoder.decode(bytes), original) };
}

/**
 * `text` with the controls a decoder moved put back (`original` maps each ASCII code
 * to the one it stands for), in one pass over the code units, not a function per match.
 */
function restoreControls(text: string, original: Uint16Array): string {
  if (text.indexOf('\x1a') === -1 && text.indexOf('\x1c') === -1 && text.indexOf('\x7f') === -1) return text;
  const units = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    units[i] = code < 0x80 ? original[code] : code;
  }
  return Buffer.from(units.buffer, 0, units.byteLength).toString('utf16le');
}

/**
 * UTF-16 as iconv-lite reads it: a trailing odd byte is dropped, lone surrogates
 * are kept (TextDecoder would add U+FFFD for both) and a leading BOM is removed.
 */
function decodeUtf16(bytes: Buffer, bigEndian: boolean): string {
  let units = bytes.subarray(0, bytes.length & ~1);
  if (bigEndian) units = Buffer.from(units).swap16();
  const text = units.toString('utf16le');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

const utf16le: BodyDecoder = { decode: (bytes) => decodeUtf16(bytes, false) };
const utf16be: BodyDecoder = { decode: (bytes) => decodeUtf16(bytes, true) };

/**
 * Byte order of unlabelled UTF-16: the BOM when there is one, else whichever
 * order makes more of the first 32 code units look like ASCII (text mostly is);
 * little-endian on a tie.
 */
function looksBigEndian(bytes: Buffer): boolean {
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return true;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return false;
  let big = 0;
  let little = 0;
  const end = Math.min(bytes.length & ~1, 64);
  for (let i = 0; i < end; i += 2) {
    if (bytes[i] === 0 && bytes[i + 1] !== 0) big++;
    else if (bytes[i] !== 0 && bytes[i + 1] === 0) little++;
  }
  return big > little;
}

/**
 * What iconv-lite's guess of the byte order looks at: the body, when decoded whole;
 * read in chunks, the first chunks only, as soon as they hold 16 bytes (so a body sent
 * in chunks of 16 is guessed from its first 8 code units, not 32).
 */
function guessedFrom(bytes: Buffer, chunks: readonly Buffer[] | undefined): Buffer {
  if (chunks === undefined) return bytes;
  let seen = 0;
  for (let i = 0; i < chunks.length && seen < 16; i++) seen += chunks[i].length;
  return bytes.subarray(0, seen);
}

const utf16: BodyDecoder = {
  decode: (bytes, chunks) => decodeUtf16(bytes, looksBigEndian(guessedFrom(bytes, chunks))),
};

/**
 * The high half (0x80-0xff) of a single-byte charset as the running Node's TextDecoder
 * reads it for a WHATWG `label`, or undefined where it has no such decoder.
 */
function whatwgHighHalf(label: string): string | undefined {
  try {
    const high = Uint8Array.from({ length: 0x80 }, (_, i) => 0x80 + i);
    const text = new TextDecoder(label).decode(high);
    // Bytes a page leaves undefined that WHATWG maps into the private use area (windows-874's
    // 0xdb-0xde, 0xfc-0xff): U+FFFD in iconv-lite.
    return text.length === 0x80 ? text.replace(/[\ue000-\uf8ff]/g, '\ufffd') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A Windows code page as iconv-lite reads it: WHATWG fills the bytes a page leaves
 * undefined with the C1 control of the same number, iconv-lite with U+FFFD.
 */
function windowsCodePage(page: number): BodyDecoder | undefined {
  const high = whatwgHighHalf(`windows-${page}`);
  if (high === undefined) return undefined;
  const differences = TABLE_DIFFERENCES[page];
  return singleByte(0x80, (byte) => {
    const code = high.charCodeAt(byte - 0x80);
    return differences?.[byte] ?? (code === byte && byte <= 0x9f ? 0xfffd : code);
  });
}

/**
 * The two bytes of Windows pages where iconv-lite's tables and WHATWG's disagree on more
 * than undefined bytes: windows-1253's 0xaa (U+00AA in WHATWG, undefined in iconv-lite) and
 * windows-1255's 0xca (U+05BA in iconv-lite, undefined in WHATWG).
 */
const TABLE_DIFFERENCES: Partial<Record<number, Record<number, number>>> = {
  1253: { 0xaa: 0xfffd },
  1255: { 0xca: 0x05ba },
};

/**
 * An ISO-8859 charset that WHATWG reads as the Windows page extending it (iso-8859-9
 * as windows-1254, iso-8859-11 as windows-874), as iconv-lite reads it: 0x80-0x9f are
 * the C1 controls (the Windows page puts curly quotes and the euro sign there), the
 * rest is the page's. TIS-620 is iso-8859-11 without 0xa0, and leaves 0x80-0xa0
 * undefined (U+FFFD).
 */
function isoOverWindowsPage(label: string, undefinedUpTo = 0x7f): BodyDecoder | undefined {
  const high = whatwgHighHalf(label);
  if (high === undefined) return undefined;
  return singleByte(0x80, (byte) => {
    if (byte <= undefinedUpTo) return 0xfffd;
    return byte <= 0x9f ? byte : high.charCodeAt(byte - 0x80);
  });
}

/**
 * Mac OS Roman as iconv-lite reads it: its table is the one from before the euro (0xdb is
 * the currency sign, U+00A4) and has the ohm sign at 0xbd (U+2126), where WHATWG's has
 * U+20AC and U+03A9; the Apple logo (0xf0, private use) is U+FFFD there, as whatwgHighHalf
 * gives it.
 */
function macRoman(): BodyDecoder | undefined {
  const high = whatwgHighHalf('macintosh');
  if (high === undefined) return undefined;
  return singleByte(0x80, (byte) => MAC_ROMAN_DIFFERENCES[byte] ?? high.charCodeAt(byte - 0x80));
}

const MAC_ROMAN_DIFFERENCES: Partial<Record<number, number>> = { 0xdb: 0x00a4, 0xbd: 0x2126 };

/**
 * KOI8-U or KOI8-RU as iconv-lite reads them, on every Node line. The WHATWG table
 * changed: Node 24 on reads 0xae and 0xbe as U+045E and U+040E (the Belarusian short u)
 * under both names, earlier lines as the box-drawing characters U+255D and U+256C.
 * iconv-lite's KOI8-U has the box-drawing characters there, its KOI8-RU the letters.
 */
function koi8(at0xae: number, at0xbe: number): BodyDecoder | undefined {
  const high = whatwgHighHalf('koi8-u');
  if (high === undefined) return undefined;
  return singleByte(0x80, (byte) => (byte === 0xae ? at0xae : byte === 0xbe ? at0xbe : high.charCodeAt(byte - 0x80)));
}

const base64: BodyDecoder = { decode: (bytes) => bytes.toString('base64') };
const hex: BodyDecoder = { decode: (bytes) => bytes.toString('hex') };

type MakeDecoder = () => BodyDecoder | undefined;

/**
 * Every name iconv-lite knows a decoder by, punctuation removed, as entries of BY_NAME,
 * sharing one decoder made at most once. Why once: decoderFor's cache is keyed by the
 * label as sent, and a client can spell one charset in endless ways (`shift_jis-`,
 * `shift_jis--`...); each new spelling made the decoder again, and a double-byte one
 * builds its tables (5 to 7 ms) for a body of two bytes. iconv-lite keeps its codecs too.
 */
function aliases(make: MakeDecoder, names: string[]): Array<[string, MakeDecoder]> {
  const once = lazy(make);
  return names.map((name): [string, MakeDecoder] => [name, once]);
}

const WINDOWS_PAGES = [1250, 1251, 1253, 1254, 1255, 1256, 1257, 1258, 874];
/** iconv-lite's names of Windows pages beyond `windows1250`, `win1250`, `cp1250` and `1250`. */
const WINDOWS_PAGE_NAMES: Partial<Record<number, string[]>> = {
  1250: ['msee'],
  1251: ['mscyrl'],
  1253: ['msgreek'],
  1254: ['msturk'],
  1255: ['mshebr'],
  1256: ['msarab'],
  1257: ['winbaltrim'],
};

/**
 * iconv-lite's own names, compared with punctuation removed ('ISO-8859-1' is
 * 'iso88591'), and how to make each one's decoder: made when a body first names it
 * (and kept, see aliases), as most apps never see one of these charsets.
 */
const BY_NAME: Record<string, MakeDecoder> = Object.assign(
  Object.create(null) as Record<string, MakeDecoder>,
  Object.fromEntries([
    ...aliases(() => latin1, ['latin1', 'iso88591', 'binary', 'l1', 'cp819', 'ibm819', 'csisolatin1', 'isoir100']),
    ...aliases(() => latin1, ['28591', 'cp28591']),
    ...aliases(() => ascii, ['ascii', 'usascii', 'ascii8bit', 'ansix34', 'ansix341968', 'ansix341986', 'csascii']),
    ...aliases(() => ascii, ['cp367', 'ibm367', 'isoir6', 'iso646us', 'iso646irv', 'us']),
    ...aliases(() => windows1252, ['windows1252', 'cp1252', 'win1252', '1252', 'msansi']),
    ...WINDOWS_PAGES.flatMap((page) =>
      aliases(
        () => windowsCodePage(page),
        [`windows${page}`, `win${page}`, `cp${page}`, `${page}`, ...(WINDOWS_PAGE_NAMES[page] ?? [])],
      ),
    ),
    ...aliases(() => isoOverWindowsPage('windows-1254'), ['iso88599', 'latin5', 'l5', 'csisolatin5', 'isoir148']),
    ...aliases(() => isoOverWindowsPage('windows-1254'), ['turkish', 'turkish8', '28599', 'cp28599']),
    ...aliases(() => isoOverWindowsPage('windows-874'), ['iso885911', 'thai', 'thai8', '28601', 'cp28601']),
    ...aliases(
      () => isoOverWindowsPage('windows-874', 0xa0),
      ['tis620', 'tis6200', 'tis62025291', 'tis62025330', 'isoir166'],
    ),
    ...aliases(macRoman, ['macintosh', 'mac', 'csmacintosh', 'macroman']),
    ...aliases(() => koi8(0x255d, 0x256c), ['koi8u', '21866', 'cp21866', 'ibm1168']),
    ...aliases(() => koi8(0x045e, 0x040e), ['koi8ru']),
    ...aliases(() => doubleByte(SHIFT_JIS), ['shiftjis', 'csshiftjis', 'mskanji', 'sjis', 'windows31j', 'ms31j']),
    ...aliases(() => doubleByte(SHIFT_JIS), ['xsjis', 'windows932', 'ms932', '932', 'cp932']),
    ...aliases(() => doubleByte(GBK), ['gbk', 'xgbk', 'isoir58']),
    ...aliases(() => doubleByte(CP936), ['cp936', 'windows936', 'ms936', '936', 'gb2312', 'gb231280', 'gb23121980']),
    ...aliases(() => doubleByte(CP936), ['csgb2312', 'csiso58gb231280', 'euccn']),
    ...aliases(() => doubleByte(BIG5_HKSCS), ['big5', 'big5hkscs', 'cnbig5', 'csbig5', 'xxbig5']),
    ...aliases(() => doubleByte(CP950), ['cp950', 'windows950', 'ms950', '950']),
    ...aliases(() => doubleByte(CP949), ['cp949', 'windows949', 'ms949', '949', 'euckr', 'cseuckr', 'korean']),
    ...aliases(() => doubleByte(CP949), ['isoir149', 'ksc5601', 'ksc56011987', 'ksc56011989', 'csksc56011987']),
    ...aliases(() => utf16, ['utf16']),
    ...aliases(() => utf16le, ['utf16le', 'ucs2']),
    ...aliases(() => utf16be, ['utf16be']),
    ...aliases(() => base64, ['base64']),
    ...aliases(() => hex, ['hex']),
  ]),
);

/**
 * WHATWG labels that TextDecoder accepts (some only on newer Node lines, such as
 * x-user-defined on Node 26) but iconv-lite does not know. body-parser documents
 * 415 "unsupported charset" for any charset iconv-lite cannot decode, so these
 * answer 415 on every Node line rather than whatever the running Node decodes.
 * Compared in the punctuation-free form iconv-lite looks names up by.
 */
const UNKNOWN_TO_ICONV = new Set([
  'unicode20utf8',
  'xunicode20utf8',
  'csiso88596e',
  'csiso88596i',
  'iso88596e',
  'iso88596i',
  'suneugreek',
  'csiso88598e',
  'iso88598e',
  'visual',
  'csiso88598i',
  'iso88598i',
  'logical',
  'csisolatin9',
  'koi',
  'koi8',
  'xmacroman',
  'dos874',
  'xcp1250',
  'xcp1251',
  'xcp1252',
  'xcp1253',
  'xcp1254',
  'xcp1255',
  'xcp1256',
  'xcp1257',
  'xcp1258',
  'xmaccyrillic',
  'xmacukrainian',
  'cseucpkdfmtjapanese',
  'xeucjp',
  'csiso2022jp',
  'iso2022jp',
  'unicodefffe',
  'csunicode',
  'iso10646ucs2',
  'unicode',
  'unicodefeff',
  'xuserdefined',
]);

/**
 * The charsets TextDecoder decodes for iconv-lite, by every name iconv-lite 0.4 knows
 * each one by (punctuation-free), as the WHATWG label to ask TextDecoder for: iconv-lite
 * finds `koi8r`, `latin9`, `isoir101` or `28592` where TextDecoder needs a WHATWG label
 * (`koi8-r`, `iso-8859-15`, `iso-8859-2`), and reads some WHATWG labels as another charset
 * than WHATWG does (`chinese` is GB18030 to iconv-lite, GBK to WHATWG; Node 20's GBK
 * decoder drops bytes GB18030 decodes). Looked up before the label as sent. The Windows
 * pages and KOI8-U are BY_NAME's.
 */
const ICONV_NAMES_BY_WHATWG_LABEL: Record<string, string[]> = {
  'utf-8': ['utf8', 'unicode11utf8'],
  ibm866: ['866', 'cp866', 'ibm866', 'csibm866'],
  'iso-8859-2': ['iso88592', 'latin2', 'l2', 'csisolatin2', 'isoir101', '28592', 'cp28592'],
  'iso-8859-3': ['iso88593', 'latin3', 'l3', 'csisolatin3', 'isoir109', '28593', 'cp28593'],
  'iso-8859-4': ['iso88594', 'latin4', 'l4', 'csisolatin4', 'isoir110', '28594', 'cp28594'],
  'iso-8859-5': ['iso88595', 'cyrillic', 'csisolatincyrillic', 'isoir144', '28595', 'cp28595'],
  'iso-8859-6': [
    'iso88596',
    'arabic',
    'arabic8',
    'csisolatinarabic',
    'isoir127',
    'ecma114',
    'asmo708',
    '28596',
    'cp28596',
  ],
  'iso-8859-7': [
    'iso88597',
    'greek',
    'greek8',
    'csisolatingreek',
    'isoir126',
    'ecma118',
    'elot928',
    '28597',
    'cp28597',
  ],
  'iso-8859-8': ['iso88598', 'hebrew', 'hebrew8', 'csisolatinhebrew', 'isoir138', '28598', 'cp28598'],
  'iso-8859-10': ['iso885910', 'latin6', 'l6', 'csisolatin6', 'isoir157', '28600', 'cp28600'],
  'iso-8859-13': ['iso885913', 'latin7', 'l7', 'isoir179', '28603', 'cp28603'],
  'iso-8859-14': ['iso885914', 'latin8', 'l8', 'isoir199', 'celtic', 'celtic8', 'isoceltic', '28604', 'cp28604'],
  'iso-8859-15': ['iso885915', 'latin9', 'l9', 'isoir203', '28605', 'cp28605'],
  'iso-8859-16': ['iso885916', 'latin10', 'l10', 'isoir226', '28606', 'cp28606'],
  'koi8-r': ['koi8r', 'cskoi8r', '20866', 'cp20866', 'ibm878'],
  gb18030: ['gb18030', 'chinese'],
  'euc-jp': ['eucjp'],
};

const WHATWG_BY_ICONV_NAME = new Map<string, string>(
  Object.entries(ICONV_NAMES_BY_WHATWG_LABEL).flatMap(([label, names]) =>
    names.map((name): [string, string] => [name, label]),
  ),
);

function lookUp(charset: string): BodyDecoder | undefined {
  // As iconv-lite names it: a year after a colon dropped (`ISO_8859-1:1987`, IANA's own
  // name for latin1, which WHATWG, and so TextDecoder, reads as windows-1252).
  const name = charset.toLowerCase().replace(/:\d{4}$|[^0-9a-z]/g, '');
  if (name in BY_NAME) return BY_NAME[name]();
  if (UNKNOWN_TO_ICONV.has(name)) return undefined;
  const whatwg = WHATWG_BY_ICONV_NAME.get(name);
  return whatwg === undefined ? textDecoder(charset) : textDecoder(whatwg);
}

/**
 * Why a cache: nearly every body names the same charset or none ('utf-8'), and
 * the look-up made a TextDecoder per request (a decoder keeps no state between
 * whole-body `decode` calls, so one per label serves every request). Bounded,
 * so hostile labels cannot grow it.
 */
const decoders = new Map<string, BodyDecoder | null>();
const DECODER_CACHE_SIZE = 64;

/** A decoder for the charset, or undefined when none is known (the parsers answer 415). */
export function decoderFor(charset: string): BodyDecoder | undefined {
  const cached = decoders.get(charset);
  if (cached !== undefined) return cached ?? undefined;
  const decoder = lookUp(charset);
  if (decoders.size >= DECODER_CACHE_SIZE) decoders.clear();
  decoders.set(charset, decoder ?? null);
  return decoder;
}
