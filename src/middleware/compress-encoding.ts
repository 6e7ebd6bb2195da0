/**
 * Which of the offered content codings a request's Accept-Encoding prefers, as
 * Connect 2.30's compress chose (accepts 1.2 over negotiator 0.5). It differs from
 * the negotiator webapp's 4.x API uses (0.6, `req.acceptsEncodings`) in one rule:
 * among codings of equal quality and specificity, negotiator 0.5 ranked an entry
 * written with parameters by the position of its `q` among those parameters (0 when
 * `q` comes first) instead of the entry's place in the header, so with
 * `identity;q=1, gzip;q=1` Express 3.21 compressed (both ranked first, then the
 * offer's order: gzip) where negotiator 0.6 sends the body as it is.
 */

interface AcceptedCoding {
  coding: string;
  q: number;
  /** The rank that breaks ties: the entry's place, or its `q`'s place among its parameters. */
  order: number;
}

interface Preference {
  /** 1 when the entry named the coding, 0 for `*`. */
  specificity: number;
  q: number;
  order: number;
  /** The coding's place in the offer, the last tie-break. */
  offered: number;
}

const ENTRY = /^\s*(\S+?)\s*(?:;(.*))?$/;

/** The first of `offered` the header accepts best, or false when it accepts none. */
export function preferredEncoding(header: string | undefined, offered: readonly string[]): string | false {
  const accepted = parseAcceptEncoding(header || '');
  let best: Preference | undefined;
  let bestIndex = -1;
  offered.forEach((coding, index) => {
    const preference = preferenceFor(coding, index, accepted);
    if (!(preference.q > 0)) return;
    if (best === undefined || compare(preference, best) < 0) {
      best = preference;
      bestIndex = index;
    }
  });
  return bestIndex === -1 ? false : offered[bestIndex];
}

function parseAcceptEncoding(header: string): AcceptedCoding[] {
  const entries = header.split(',');
  const accepted: AcceptedCoding[] = [];
  let namesIdentity = false;
  let lowestQuality = 1;
  entries.forEach((text, index) => {
    const entry = parseEntry(text.trim(), index);
    if (entry === undefined) return;
    accepted.push(entry);
    namesIdentity ||= entry.coding === '*' || entry.coding.toLowerCase() === 'identity';
    // A q of 0 (or one that is not a number) counts as 1 here, as it did for negotiator.
    lowestQuality = Math.min(lowestQuality, entry.q || 1);
  });
  // `identity` is acceptable unless the header refuses it, at the lowest quality listed.
  if (!namesIdentity) accepted.push({ coding: 'identity', q: lowestQuality, order: entries.length });
  return accepted;
}

function parseEntry(text: string, index: number): AcceptedCoding | undefined {
  const match = ENTRY.exec(text);
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

/** How well `accepted` takes `coding`: its most specific entry, then the highest q, then the later entry. */
function preferenceFor(coding: string, offered: number, accepted: AcceptedCoding[]): Preference {
  let preference: Preference = { specificity: 0, q: 0, order: -1, offered };
  for (const entry of accepted) {
    let specificity: number;
    if (entry.coding.toLowerCase() === coding.toLowerCase()) specificity = 1;
    else if (entry.coding === '*') specificity = 0;
    else continue;
    const candidate = { specificity, q: entry.q, order: entry.order, offered };
    const better =
      preference.specificity - candidate.specificity ||
      preference.q - candidate.q ||
      preference.order - candidate.order;
    if (better < 0) preference = candidate;
  }
  return preference;
}

/** Negative when `a` ranks before `b`. */
function compare(a: Preference, b: Preference): number {
  return b.q - a.q || b.specificity - a.specificity || a.order - b.order || a.offered - b.offered;
}
