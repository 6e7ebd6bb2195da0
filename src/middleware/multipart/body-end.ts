/**
 * Where a multipart body stopped. busboy wants the closing delimiter (`--B--`)
 * and calls any body without it "Unexpected end of form"; multiparty 3.3 (what
 * Connect 2.30 and Express 3.21 read uploads with) also accepted a body that
 * stopped just after a boundary, whether the boundary line was finished or not:
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
 */
import { Buffer } from 'node:buffer';
import { parseMediaType } from '../../http/content-type';

export class BodyEnd {
  /** `--` and the boundary, as it appears in the body (latin1), or '' when unknown. */
  private readonly delimiter: string;
  /** How many of the body's last bytes tell where it stopped. */
  private readonly keep: number;
  private tail: Buffer = Buffer.alloc(0);
  private length = 0;

  constructor(contentType: string | undefined) {
    this.delimiter = delimiterOf(contentType);
    this.keep = this.delimiter.length + 4;
  }

  /** Called with every chunk of the body, in order. */
  add(chunk: Buffer): void {
    this.length += chunk.length;
    if (this.delimiter === '') return;
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
}

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
