/**
 * Answers that stay open, read as they come, with every wait bounded: for streamed
 * bodies and server-sent events, where a test must see a part before the rest is sent.
 */
import http from 'node:http';
import { createGunzip } from 'node:zlib';

/** Rejects after `ms` with `what` in the message: every wait of a flow is bounded. */
export function within<T>(promise: Promise<T>, what: string, ms = 3_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Resolves once `check()` holds (polled), or rejects after a bounded wait. */
export function until(check: () => boolean, what: string): Promise<void> {
  return within(
    new Promise<void>((resolve) => {
      const poll = (): unknown => (check() ? resolve() : setTimeout(poll, 5));
      poll();
    }),
    what,
  );
}

/**
 * A GET whose answer stays open (a stream, server-sent events): its head as soon as it
 * arrives (without the clock's and the brand's headers), the text so far, bounded waits
 * for more and for the end. A gzipped answer is read as it comes.
 */
export function openStream(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  headers: http.IncomingHttpHeaders;
  text: () => string;
  waitFor: (needle: string) => Promise<void>;
  ended: () => Promise<void>;
  close: () => void;
}> {
  return within(
    new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
        let text = '';
        let done = false;
        // A gzipped stream is read as it comes: each flush of the compressor yields the events so far.
        const body = res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip()) : res;
        body.setEncoding('utf8');
        body.on('data', (chunk: string) => (text += chunk));
        body.on('end', () => (done = true));
        body.on('error', () => {});
        res.on('error', () => {});
        const head = { ...res.headers };
        delete head.date;
        delete head['x-powered-by'];
        resolve({
          status: res.statusCode ?? 0,
          headers: head,
          text: () => text,
          waitFor: (needle) => until(() => text.includes(needle), JSON.stringify(needle)),
          ended: () => until(() => done, 'the end of the answer'),
          close: () => req.destroy(),
        });
      });
      req.on('error', reject);
    }),
    `the head of GET ${path}`,
  );
}
