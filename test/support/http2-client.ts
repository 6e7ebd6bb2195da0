/** One HTTP/2 request from Node's own client to a TLS server on 127.0.0.1 (self-signed certificates accepted). */
import http2 from 'node:http2';

export interface H2Response {
  status: number;
  body: string;
}

/**
 * Sends `headers` (pseudo-headers included) and, when given, `body` in `frames`
 * DATA frames; without a body the HEADERS frame ends the stream.
 */
export function h2request(port: number, headers: http2.OutgoingHttpHeaders, body?: Buffer, frames = 1): Promise<H2Response> {
  return new Promise((resolve, reject) => {
    const client = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false });
    client.on('error', reject);
    const stream = client.request(headers, { endStream: body === undefined });
    let status = 0;
    let text = '';
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => (text += chunk));
    stream.on('end', () => {
      client.close();
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
