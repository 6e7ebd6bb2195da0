/** One HTTP/2 request from Node's own client to a TLS server on 127.0.0.1 (self-signed certificates accepted). */
import http2 from 'node:http2';

export interface H2Response {
  status: number;
  body: string;
}

/** A client session to the server on 127.0.0.1:`port`, for several requests (close it after). */
export function h2connect(port: number): http2.ClientHttp2Session {
  return http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false });
}

/**
 * Sends `headers` (pseudo-headers included) and, when given, `body` in `frames`
 * DATA frames; without a body the HEADERS frame ends the stream. Given a port,
 * the request has a connection of its own; given a session, it shares that one.
 */
export function h2request(
  target: number | http2.ClientHttp2Session,
  headers: http2.OutgoingHttpHeaders,
  body?: Buffer,
  frames = 1,
): Promise<H2Response> {
  return new Promise((resolve, reject) => {
    const own = typeof target === 'number';
    const client = own ? h2connect(target) : target;
    if (own) client.on('error', reject);
    const stream = client.request(headers, { endStream: body === undefined });
    let status = 0;
    let text = '';
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => (text += chunk));
    stream.on('end', () => {
      if (own) client.close();
      resolve({ status, body: text });
    });
    stream.on('error', reject);
    if (body !== undefined) {
      const size = Math.max(1, Math.ceil(body.length / frames));
      for (let i = 0; i < body.length; i += size) stream.write(body.subarray(i, i + size));
      stream.end();
    }
  });
}

export interface H2Exchange {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: string;
  /** The stream's RST_STREAM code: 0 (NO_ERROR) for a response that ended normally. */
  rstCode: number;
}

/**
 * One request on `session`, settled when its stream closes however it closed: the
 * answer's headers and body as far as they came, and how the stream ended.
 */
export function h2exchange(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders): Promise<H2Exchange> {
  return new Promise((resolve) => {
    const stream = session.request(headers);
    let received: http2.IncomingHttpHeaders = {};
    let body = '';
    stream.on('response', (h) => (received = h));
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (body += chunk));
    // A reset with an error code also emits 'error'; 'close' reports it as rstCode.
    stream.on('error', () => {});
    stream.on('close', () =>
      resolve({ status: Number(received[':status']), headers: received, body, rstCode: stream.rstCode ?? 0 }),
    );
  });
}

/** The header names webapp's warnings say it left out of HTTP/2 responses, sorted. */
export function droppedHeaderNames(warnings: string[]): string[] {
  return warnings
    .filter((message) => message.startsWith('HTTP/2 responses cannot carry'))
    .map((message) => /"([^"]+)"/.exec(message)![1]!)
    .sort();
}
