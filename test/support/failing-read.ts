/** A file read that fails after its first chunk, for the paths that send files. */
import fs from 'node:fs';
import { Readable } from 'node:stream';

/**
 * Makes the next `fs.createReadStream` give 1 KB of `b`, then fail with EIO; the ones
 * after it read files as usual. Returns the function that puts Node's back.
 */
export function failNextRead(): () => void {
  const original = fs.createReadStream;
  let failing = true;
  (fs as { createReadStream: unknown }).createReadStream = function (this: unknown, ...args: unknown[]) {
    if (!failing) return (original as (...a: unknown[]) => fs.ReadStream).apply(this, args);
    failing = false;
    let sent = false;
    return new Readable({
      read() {
        if (sent) this.destroy(Object.assign(new Error('read failed'), { code: 'EIO' }));
        else this.push(Buffer.alloc(1024, 0x62));
        sent = true;
      },
    });
  };
  return () => {
    fs.createReadStream = original;
  };
}
