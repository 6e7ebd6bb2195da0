/**
 * Raw client connections for the shutdown tests: what a server does to a
 * keep-alive socket (Connection header, when it closes) is only visible below
 * node:http's client, which pools and hides both.
 */
import net from 'node:net';
import tls from 'node:tls';

export interface Connection {
  socket: net.Socket;
  /** Every byte the server sent, once it has closed the connection. */
  received: Promise<Buffer>;
}

/** A TCP connection, or with `secure` a TLS one (ALPN http/1.1). */
export async function connect(port: number, secure?: tls.ConnectionOptions): Promise<Connection> {
  const socket = secure
    ? tls.connect({ port, host: '127.0.0.1', servername: 'localhost', ALPNProtocols: ['http/1.1'], ...secure })
    : net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const received = new Promise<Buffer>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
  received.catch(() => {}); // read by the test; never an unhandled rejection in between
  await new Promise<void>((resolve, reject) =>
    socket.once(secure ? 'secureConnect' : 'connect', resolve).once('error', reject),
  );
  return { socket, received };
}

/** Resolves once a new connection to the port is refused. */
export function refused(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      reject(new Error('a new connection was accepted'));
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

export interface ParsedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Splits a byte stream into Content-Length-framed responses; throws when one is cut short. */
export function parseResponses(bytes: Buffer): ParsedResponse[] {
  const responses: ParsedResponse[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const headEnd = bytes.indexOf('\r\n\r\n', offset);
    if (headEnd < 0)
      throw new Error(`incomplete response head: ${bytes.subarray(offset, offset + 80).toString('latin1')}`);
    const [statusLine, ...lines] = bytes.subarray(offset, headEnd).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length']);
    if (!Number.isInteger(length)) throw new Error('response without Content-Length');
    const body = bytes.subarray(headEnd + 4, headEnd + 4 + length);
    if (body.length !== length) throw new Error(`body cut short: ${body.length} of ${length} bytes`);
    responses.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
    offset = headEnd + 4 + length;
  }
  return responses;
}

/** A promise with its resolve function, for handlers that wait on the test. */
export function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
