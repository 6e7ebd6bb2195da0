/**
 * Raw keep-alive exchanges for the body-parser tests: several requests written
 * piece by piece on one socket, each answer read (by its Content-Length) before
 * the next request is sent, so "the next request on the same connection works"
 * is checked directly.
 */
import net from 'node:net';

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** One request as the pieces to write (each written on its own turn of the event loop). */
export type Pieces = Array<string | Buffer>;

export function request(headers: Record<string, string>, body: string | Buffer = ''): Pieces {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const lines = Object.entries({ 'Content-Length': String(bytes.length), ...headers })
    .filter(([, value]) => value !== '')
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return [`POST / HTTP/1.1\r\nHost: localhost\r\n${lines}\r\n`, bytes];
}

/** The body sent with Transfer-Encoding: chunked, one HTTP chunk per `size` bytes. */
export function chunked(headers: Record<string, string>, body: string | Buffer, size: number): Pieces {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const pieces: Pieces = [
    `POST / HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n${Object.entries(headers)
      .map(([n, v]) => `${n}: ${v}\r\n`)
      .join('')}\r\n`,
  ];
  for (let i = 0; i < bytes.length; i += size) {
    const part = bytes.subarray(i, i + size);
    pieces.push(Buffer.concat([Buffer.from(part.length.toString(16) + '\r\n'), part, Buffer.from('\r\n')]));
  }
  pieces.push('0\r\n\r\n');
  return pieces;
}

/** Splits a request's body into `size`-byte writes (the head stays one write). */
export function split(pieces: Pieces, size: number): Pieces {
  const [head, ...rest] = pieces;
  const body = Buffer.concat(rest.map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(p))));
  const out: Pieces = [head];
  for (let i = 0; i < body.length; i += size) out.push(body.subarray(i, i + size));
  return out;
}

function parseAnswer(buffer: Buffer): { answer: Answer; rest: Buffer } | undefined {
  const headEnd = buffer.indexOf('\r\n\r\n');
  if (headEnd === -1) return undefined;
  const head = buffer.subarray(0, headEnd).toString('latin1');
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
  if (buffer.length < headEnd + 4 + length) return undefined;
  const body = buffer.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
  return {
    answer: { status: Number(head.split(' ')[1]), body: body ? JSON.parse(body) : {} },
    rest: buffer.subarray(headEnd + 4 + length),
  };
}

/** Sends the requests one after another on one connection; resolves with every answer. */
export function exchange(port: number, requests: Pieces[]): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    // Without Nagle's algorithm: a body written after its head would otherwise wait for
    // the server's delayed ACK of the head (40 ms on Linux), for every request.
    const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
    const answers: Answer[] = [];
    let buffer: Buffer = Buffer.alloc(0);
    let waiting: (() => void) | undefined;
    socket.on('data', (data: Buffer) => {
      buffer = Buffer.concat([buffer, data]);
      for (let parsed = parseAnswer(buffer); parsed; parsed = parseAnswer(buffer)) {
        answers.push(parsed.answer);
        buffer = parsed.rest;
        waiting?.();
      }
    });
    socket.on('error', reject);
    socket.on('close', () => {
      if (answers.length < requests.length)
        reject(new Error(`connection closed after ${answers.length} of ${requests.length} answers`));
    });
    (async () => {
      for (let i = 0; i < requests.length; i++) {
        for (const piece of requests[i]) {
          if (socket.destroyed) return;
          socket.write(piece);
          await new Promise((r) => setImmediate(r));
        }
        if (answers.length <= i) await new Promise<void>((r) => (waiting = r));
      }
      socket.end();
      resolve(answers);
    })().catch(reject);
  });
}
