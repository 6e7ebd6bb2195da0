/**
 * Content negotiation as Express 3.21 did it, for `req.accepts`, `req.accepted*` and
 * `res.format` of the 3.x API. 3.21 used no negotiator: it read Accept-style headers
 * with its own small parser (its `utils.parseParams`), whose answers differ from
 * negotiator's (webapp's 4.x API) on quality ties, `q` values such as `1.0001` or `-1`,
 * parameters, case and wildcards. Everything here keeps that parser's answers.
 */
import { mediaTypeFor3 } from '../http/mime-answers';

export interface AcceptEntry {
  value: string;
  quality: number;
  params: Record<string, string | undefined>;
  originalIndex: number;
  type?: string;
  subtype?: string;
}

/** A type as 3.21 compared it: a media type, and the parameters an Accept entry must carry. */
export interface NormalizedType {
  value: string;
  params: Record<string, string | undefined>;
}

/**
 * `value` cut at each `separator`, the spaces next to a separator dropped: the parts
 * 3.21 got from `split(/ *<separator> *\/)`. Spaces at the very start and end stay
 * (`req.accepts(' html')` offers `' html'`, which mime knows no type for). Written
 * without the regular expression, which backtracks quadratically on long runs of spaces.
 */
export function splitAround(value: string, separator: string): string[] {
  const parts = value.split(separator);
  const last = parts.length - 1;
  for (let i = 0; i <= last; i++) {
    const part = parts[i];
    let start = 0;
    let end = part.length;
    if (i > 0) while (start < end && part.charCodeAt(start) === 0x20) start++;
    if (i < last) while (end > start && part.charCodeAt(end - 1) === 0x20) end--;
    parts[i] = part.slice(start, end);
  }
  return parts;
}

/** One entry (`text/html;level=1;q=0.5`): its value, its `q` as parseFloat reads it, its other parameters. */
function acceptParams(part: string, index: number): AcceptEntry {
  const pieces = splitAround(part, ';');
  const entry: AcceptEntry = { value: pieces[0], quality: 1, params: {}, originalIndex: index };
  for (let i = 1; i < pieces.length; i++) {
    const [name, value] = splitAround(pieces[i], '=');
    if (name === 'q') entry.quality = parseFloat(value);
    else entry.params[name] = value;
  }
  return entry;
}

/** An Accept-style header as 3.x parsed it: entries with a truthy quality, best first, stable. */
export function parseParams(header: string): AcceptEntry[] {
  return splitAround(header, ',')
    .map(acceptParams)
    .filter((entry) => entry.quality)
    .sort((a, b) => (a.quality === b.quality ? a.originalIndex - b.originalIndex : b.quality - a.quality));
}

/** `req.accepted`: the entries of `parseParams` with their `type` and `subtype`. */
export function parseAccept(header: string): AcceptEntry[] {
  return parseParams(header).map((entry) => {
    const [type, subtype] = entry.value.split('/');
    entry.type = type;
    entry.subtype = subtype;
    return entry;
  });
}

/**
 * An offered type as 3.21 read it: with a `/`, a media type whose parameters an Accept
 * entry must repeat; without, an extension looked up whole (`json;x` is no extension
 * mime knows, so `application/octet-stream`). `res.format` sets this value as the
 * Content-Type, and lists it in a 406 error's `types`.
 */
export function normalizeType(offer: string): NormalizedType {
  return offer.includes('/') ? acceptParams(offer, 0) : { value: String(mediaTypeFor3(offer)), params: {} };
}

/**
 * An offer from the app's arguments. 3.21 called string methods on each one, so
 * anything else (a number, or an array inside the array) threw a TypeError, a 500;
 * the message here names the mistake instead of 3.21's internals.
 */
function offerText(offer: unknown): string {
  if (typeof offer === 'string') return offer;
  if (offer instanceof String) return offer.valueOf();
  const got = Array.isArray(offer) ? 'an array' : offer === null ? 'null' : typeof offer;
  throw new TypeError(`req.accepts() takes extensions or media types as strings, not ${got}`);
}

/** Whether the Accept entry `other` takes the offer `type` (3.21's `utils.accept`). */
function takes(type: NormalizedType, other: AcceptEntry): boolean {
  const [main, sub] = type.value.split('/');
  const params = type.params;
  return (
    (main === other.type || other.type === '*') &&
    (sub === other.subtype || other.subtype === '*') &&
    // Loose, as 3.21 compared: an offered parameter without a value matches an entry without it.
    !Object.keys(params).some((name) => params[name] != other.params[name])
  );
}

/**
 * 3.21's `utils.accepts`: the first offer the Accept header takes, in the header's
 * quality order, or undefined. A string is a comma list; anything else is read by
 * index up to its `length`, as 3.21 read it (an array, the arguments; a number offers
 * nothing). Without an Accept header, the first offer.
 */
export function acceptsTypes(types: unknown, header: string | undefined): unknown {
  const list = (typeof types === 'string' ? splitAround(types, ',') : types) as ArrayLike<unknown>;
  if (!header) return list[0];
  const accepted = parseAccept(header);
  const count = list.length;
  const normalized: NormalizedType[] = [];
  for (let j = 0; j < count; j++) normalized.push(normalizeType(offerText(list[j])));
  for (const other of accepted) {
    for (let j = 0; j < count; j++) if (takes(normalized[j], other)) return list[j];
  }
  return undefined;
}
