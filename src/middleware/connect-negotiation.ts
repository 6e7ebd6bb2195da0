/**
 * Content negotiation as Connect 2.30's middleware did it (accepts 1.2 over
 * negotiator 0.5): the coding `compress()` uses and the listing `directory()` sends.
 * The negotiator of webapp's 4.x API (0.6, as Express 4.22's `req.accepts*`) parts
 * from it in two rules, both of which Express 3.21 apps observed:
 *
 * - Ties. Among entries of equal quality and specificity, negotiator 0.5 ranked an
 *   Accept-Encoding entry written with parameters by the position of its `q` among
 *   them (0 when `q` comes first), not by its place in the header: with
 *   `identity;q=1, gzip;q=1` Express 3.21 compressed (both rank first, then the
 *   offer's order: gzip), where 0.6 sends the body as it is.
 * - Parameters after `q` in Accept. 0.6 reads them as extensions and ignores them;
 *   0.5 read every parameter but `q` as one the offered type must have, so
 *   `text/html;q=0.9;level=1` matches no listing type there (a 406 when nothing else
 *   in the header matched).
 *
 * Each entry a header names is ranked for each offer: its most specific matching
 * entry, then the highest quality, then the later entry; offers are then sorted by
 * quality, specificity, entry rank and their own order, and those of quality 0 left out.
 */

/** How one offer fares against the header. */
interface Preference {
  /** Which parts of the offer the entry named (more is more specific). */
  specificity: number;
  q: number;
  /** The matched entry's rank (see above). */
  order: number;
  /** The offer's own place, the last tie-break. */
  offered: number;
}

interface Entry {
  q: number;
  order: number;
}

/**
 * The best of `offers`, or false when the header accepts none. `specificity(entry, offer)`
 * is -1 when the entry does not match the offer.
 */
function preferred<E extends Entry>(
  entries: E[],
  offers: readonly string[],
  specificity: (entry: E, offer: string) => number,
): string | false {
  let best: Preference | undefined;
  offers.forEach((offer, offered) => {
    // Where no entry matches, quality 0: the offer is left out.
    let preference: Preference = { specificity: 0, q: 0, order: -1, offered };
    for (const entry of entries) {
      const s = specificity(entry, offer);
      if (s === -1) continue;
      const candidate = { specificity: s, q: entry.q, order: entry.order, offered };
      // A q that is not a number compares as no difference: the next rule decides.
      const better =
        preference.specificity - candidate.specificity ||
        preference.q - candidate.q ||
        preference.order - candidate.order;
      if (better < 0) preference = candidate;
    }
    if (!(preference.q > 0)) return;
    if (best === undefined || compare(preference, best) < 0) best = preference;
  });
  return best === undefined ? false : offers[best.offered];
}

/** Negative when `a` ranks before `b`. */
function compare(a: Preference, b: Preference): number {
  return b.q - a.q || b.specificity - a.specificity || a.order - b.order || a.offered - b.offered;
}

// --- Accept-Encoding ---------------------------------------------------------------

interface CodingEntry extends Entry {
  coding: string;
}

const CODING_ENTRY = /^\s*(\S+?)\s*(?:;(.*))?$/;

/** The coding of `offers` (e.g. gzip, deflate, identity) Accept-Encoding prefers, or false. */
export function preferredEncoding(header: string | undefined, offers: readonly string[]): string | false {
  return preferred(parseAcceptEncoding(header || ''), offers, (entry, offer) => {
    if (entry.coding.toLowerCase() === offer.toLowerCase()) return 1;
    return entry.coding === '*' ? 0 : -1;
  });
}

function parseAcceptEncoding(header: string): CodingEntry[] {
  const parts = header.split(',');
  const entries: CodingEntry[] = [];
  let namesIdentity = false;
  let lowestQuality = 1;
  parts.forEach((text, index) => {
    const entry = parseCoding(text.trim(), index);
    if (entry === undefined) return;
    entries.push(entry);
    namesIdentity ||= entry.coding === '*' || entry.coding.toLowerCase() === 'identity';
    // A q of 0 (or one that is not a number) counts as 1 here, as it did for negotiator.
    lowestQuality = Math.min(lowestQuality, entry.q || 1);
  });
  // `identity` is acceptable unless the header refuses it, at the lowest quality listed.
  if (!namesIdentity) entries.push({ coding: 'identity', q: lowestQuality, order: parts.length });
  return entries;
}

function parseCoding(text: string, index: number): CodingEntry | undefined {
  const match = CODING_ENTRY.exec(text);
  if (match === null) return undefined;
  if (!match[2]) return { coding: match[1], q: 1, order: index };
  const parameters = match[2].split(';');
  let q = 1;
  let order = 0;
  for (; order < parameters.length; order++) {
    const [name, value] = parameters[order].trim().split('=');
    if (name === 'q') {
      q = parseFloat(value);
      break;
    }
  }
  return { coding: match[1], q, order };
}

// --- Accept --------------------------------------------------------------------------

interface MediaEntry extends Entry {
  type: string;
  subtype: string;
  /** Every parameter but `q`, names lower-cased, values unquoted; a value may be missing. */
  parameters: Map<string, string | undefined>;
}

/** One character of what a regular expression's `\s` matches. */
const SPACE = /\s/;

/**
 * The first `type/subtype` anywhere in an Accept entry, as negotiator 0.5's unanchored
 * `/\s*(\S+?)\/([^;\s]+)\s*(?:;(.*))?/` finds it, and the parameters after it: a run of
 * non-space characters holding a `/` that has a character other than `;` or a space after
 * it; the type up to the first such `/`, the subtype to the next `;` or space, the
 * parameters after a `;` that follows (spaces between). Scanned once: that expression,
 * unanchored, was tried from every position of a run without such a `/` (16 KB of `a` in
 * Accept cost 150 ms of one request's time, and grew with the square of the length).
 */
function mediaRangeParts(text: string): { type: string; subtype: string; parameters?: string } | undefined {
  const end = text.length;
  let at = 0;
  while (at < end) {
    while (at < end && SPACE.test(text[at])) at++;
    const runStart = at;
    let slash = -1;
    for (; at < end && !SPACE.test(text[at]); at++) {
      if (slash === -1 && at > runStart && text[at] === '/' && at + 1 < end) {
        const next = text[at + 1];
        if (next !== ';' && !SPACE.test(next)) slash = at;
      }
    }
    if (slash === -1) continue;
    let subtypeEnd = slash + 1;
    while (subtypeEnd < end && text[subtypeEnd] !== ';' && !SPACE.test(text[subtypeEnd])) subtypeEnd++;
    let after = subtypeEnd;
    while (after < end && SPACE.test(text[after])) after++;
    const parts = { type: text.slice(runStart, slash), subtype: text.slice(slash + 1, subtypeEnd) };
    // `.*` stops at a line break (none reaches a header value, which Node refuses them in).
    return text[after] === ';' ? { ...parts, parameters: text.slice(after + 1).split(/[\n\r\u2028\u2029]/)[0] } : parts;
  }
  return undefined;
}

/**
 * The type of `offers` (full types without parameters, e.g. text/html) Accept prefers,
 * or false. Without Accept, or with an empty one, the first offer.
 */
export function preferredMediaType(header: string | undefined, offers: readonly string[]): string | false {
  if (!header) return offers.length > 0 ? offers[0] : false;
  const entries = splitMediaRanges(header)
    .map((text, index) => parseMediaRange(text.trim(), index))
    .filter((entry): entry is MediaEntry => entry !== undefined);
  return preferred(entries, offers, (entry, offer) => {
    const slash = offer.indexOf('/');
    const type = offer.slice(0, slash);
    const subtype = offer.slice(slash + 1);
    let s = 0;
    if (entry.type.toLowerCase() === type.toLowerCase()) s |= 4;
    else if (entry.type !== '*') return -1;
    if (entry.subtype.toLowerCase() === subtype.toLowerCase()) s |= 2;
    else if (entry.subtype !== '*') return -1;
    if (entry.parameters.size === 0) return s;
    // An offer here has no parameters: the entry's must each be `*` or empty.
    for (const value of entry.parameters.values()) if (value !== '*' && (value || '') !== '') return -1;
    return s | 1;
  });
}

/**
 * Accept split at commas, except inside a quoted parameter value: a range with an odd
 * number of `"` takes the next piece. The count is kept as pieces join, not made again
 * over the whole range at each (an open `"` before 8,000 commas was quadratic).
 */
function splitMediaRanges(header: string): string[] {
  const ranges: string[] = [];
  let open = false;
  for (const piece of header.split(',')) {
    if (open) ranges[ranges.length - 1] += ',' + piece;
    else ranges.push(piece);
    if (quotes(piece) % 2 === 1) open = !open;
  }
  return ranges;
}

function quotes(text: string): number {
  let count = 0;
  for (let at = text.indexOf('"'); at !== -1; at = text.indexOf('"', at + 1)) count++;
  return count;
}

function parseMediaRange(text: string, index: number): MediaEntry | undefined {
  const parts = mediaRangeParts(text);
  if (parts === undefined) return undefined;
  const parameters = new Map<string, string | undefined>();
  let q = 1;
  if (parts.parameters) {
    for (const parameter of parts.parameters.split(';')) {
      const [rawName, rawValue] = parameter.trim().split('=');
      const name = rawName.toLowerCase();
      // negotiator 0.5 kept parameters in a plain object, where this name set nothing.
      if (name === '__proto__') continue;
      const value =
        rawValue !== undefined && rawValue[0] === '"' && rawValue[rawValue.length - 1] === '"'
          ? rawValue.slice(1, -1)
          : rawValue;
      parameters.set(name, value);
    }
    const quality = parameters.get('q');
    if (quality !== undefined) {
      q = parseFloat(quality);
      parameters.delete('q');
    }
  }
  return { type: parts.type, subtype: parts.subtype, parameters, q, order: index };
}
