/**
 * The two edges of a multipart body where busboy and multiparty 3.3 (what Connect
 * 2.30 and Express 3.21 read uploads with) part, watched so the form answers as
 * multiparty did.
 *
 * The end. busboy wants the closing delimiter (`--B--`) and calls any body without
 * it "Unexpected end of form"; multiparty also accepted a body that stopped just
 * after a boundary, whether the boundary line was finished or not:
 *
 *     ...value\r\n--B          the last part ended; nothing followed
 *     ...value\r\n--B\r\n      a next part began and stopped before its headers
 *     --B\r\n                  (the whole body) one part begun, none sent
 *
 * Some clients and hand-written tests send such bodies, and 3.x apps got their
 * fields from them. Every part before that boundary is whole: busboy has handed
 * it out by the time it reports the missing end. (One body multiparty refused
 * passes too: a boundary in the middle of a part's headers, then nothing. The
 * cut part is dropped, as busboy never announced it.)
 *
 * The start. The body's first delimiter (at its start, or after a preamble and CRLF)
 * must go on with CRLF (a part) or `--` (no parts); multiparty answered anything else
 * with a 400 (`--B \r\n...`: "Expected CR Received 32"), where busboy reads it as more
 * preamble and skips every part up to the next well-formed boundary: a 200 with
 * those fields silently gone.
 */
import { Buffer } from 'node:buffer';
import { parseMediaType } from '../../http/content-type';

export class BodyEdges {
  /** `--` and the boundary, as it appears in the body (latin1), or '' when unknown. */
  private readonly delimiter: string;
  /** How many of the body's last bytes tell where it stopped. */
  private readonly keep: number;
  private tail: Buffer = Buffer.alloc(0);
  private length = 0;
  /**
   * The body so far (latin1) from where its first delimiter may begin, until that
   * delimiter and the two bytes after it came; null from then on. It starts with
   * CRLF, as busboy's search does, so a delimiter at the very start is found as one
   * after a line break.
   */
  private opening: string | null = '\r\n';

  constructor(contentType: string | undefined) {
    this.delimiter = delimiterOf(contentType);
    this.keep = this.delimiter.length + 4;
  }

  /** Called with every chunk of the body, in order. */
  add(chunk: Buffer): void {
    this.length += chunk.length;
    if (this.delimiter === '') return;
    if (this.opening !== null) this.opening += chunk.toString('latin1');
    if (chunk.length >= this.keep) {
      this.tail = Buffer.from(chunk.subarray(chunk.length - this.keep));
    } else {
      const joined = Buffer.concat([this.tail, chunk]);
      this.tail = joined.subarray(Math.max(0, joined.length - this.keep));
    }
  }

  /** True when the body, now over, stopped just after a boundary as listed above. */
  stoppedAfterBoundary(): boolean {
    if (this.delimiter === '') return false;
    const tail = this.tail.toString('latin1');
    const boundaryLine = this.delimiter + '\r\n';
    return (
      tail.endsWith('\r\n' + this.delimiter) ||
      tail.endsWith('\r\n' + boundaryLine) ||
      (this.length === boundaryLine.length && tail === boundaryLine)
    );
  }

  /**
   * multiparty's words for a body whose first delimiter goes on with something other
   * than CRLF or `--`, once enough of it came; undefined otherwise (and from then on).
   */
  badOpening(): string | undefined {
    const text = this.opening;
    if (text === null || this.delimiter === '') return undefined;
    const found = text.indexOf('\r\n' + this.delimiter);
    if (found === -1) {
      // Keep what could be the start of a delimiter cut by the chunk's end.
      this.opening = text.slice(-(this.delimiter.length + 1));
      return undefined;
    }
    const at = found + 2 + this.delimiter.length;
    if (text.length < at + 2) {
      this.opening = text.slice(found);
      return undefined;
    }
    this.opening = null;
    const next = text.charCodeAt(at);
    const after = text.charCodeAt(at + 1);
    if (next === HYPHEN) return after === HYPHEN ? undefined : `Expected HYPHEN Received ${after}`;
    if (next !== CR) return `Expected CR Received ${next}`;
    return after === LF ? undefined : `Expected LF Received ${after}`;
  }
}

const CR = 0x0d;
const LF = 0x0a;
const HYPHEN = 0x2d;

function delimiterOf(contentType: string | undefined): string {
  if (!contentType) return '';
  try {
    const boundary = parseMediaType(contentType).parameters.boundary;
    // The body is bytes; a boundary outside latin1 cannot be compared to it this way.
    return boundary && !/[^\x20-\x7e]/.test(boundary) ? '--' + boundary : '';
  } catch {
    // A Content-Type busboy took but the strict parser refuses: busboy's verdict stands.
    return '';
  }
}
