/**
 * onFinished / isFinished (src/http/on-finished.ts): the callback every file
 * transfer relies on to close its descriptor.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { describe, it } from 'node:test';
import { isFinished, onFinished } from '../../src/http/on-finished';
import { close, eventually, listen } from './support';

async function withServer(handler: http.RequestListener, fn: (port: number) => Promise<void>): Promise<void> {
  const server = http.createServer(handler);
  const port = await listen(server);
  try {
    await fn(port);
  } finally {
    await close(server);
  }
}

function get(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

/** GET requests for `paths`, written as one pipelined run. */
function pipelined(paths: string[]): string {
  return paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`).join('');
}

/** `/first` and then `/1` to `/count`: a request left unanswered and those queued behind it. */
function queuedBehindFirst(count: number): string {
  return pipelined(['/first', ...Array.from({ length: count }, (_, i) => `/${i + 1}`)]);
}

/** Sends `requests` on a connection of its own; resolves once what came back ends with `last`. */
function answeredUntil(port: number, requests: string, last: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (received.endsWith(last)) {
        socket.end();
        resolve();
      }
    });
    socket.on('error', reject);
    socket.write(requests);
  });
}

describe('onFinished', () => {
  it('calls back once when the response finished, with no error', async () => {
    const calls: unknown[] = [];
    await withServer(
      (_req, res) => {
        assert.equal(isFinished(res), false);
        onFinished(res, (err, msg) => calls.push([err ?? null, msg === res]));
        onFinished(res, () => calls.push('second'));
        res.end('done');
        assert.equal(isFinished(res), true);
      },
      async (port) => {
        assert.equal(await get(port), 'done');
        assert.equal(await eventually(() => calls.length === 2), true);
      },
    );
    assert.deepEqual(calls, [[null, true], 'second']);
  });

  it('calls back on the next turn for a response already finished', async () => {
    let called = 0;
    await withServer(
      (_req, res) => {
        res.end('x');
        onFinished(res, () => called++);
        assert.equal(called, 0, 'not synchronously');
      },
      async (port) => {
        await get(port);
        assert.equal(await eventually(() => called === 1), true);
      },
    );
  });

  it('calls back when the client goes away before the response ends', async () => {
    let called = 0;
    let serverRes: http.ServerResponse | undefined;
    await withServer(
      (_req, res) => {
        serverRes = res;
        res.write('partial');
        onFinished(res, () => called++);
      },
      async (port) => {
        await new Promise<void>((resolve) => {
          const req = http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
            res.once('data', () => {
              req.destroy();
              resolve();
            });
          });
          req.on('error', () => resolve());
        });
        assert.equal(await eventually(() => called === 1), true);
        assert.equal(serverRes?.writableEnded, false);
      },
    );
    assert.equal(called, 1);
  });

  it('waits for the socket of a pipelined response that is queued behind another', async () => {
    // Node gives the second of two pipelined responses its socket only once the first is done.
    const events: string[] = [];
    let releaseFirst: () => void = () => {};
    await withServer(
      (req, res) => {
        if (req.url === '/first') {
          releaseFirst = () => res.end('first');
          return;
        }
        events.push(`second queued without socket: ${res.socket === null}`);
        onFinished(res, (err) => events.push(`second finished: ${err ?? null}`));
        res.end('second');
        releaseFirst();
      },
      (port) => answeredUntil(port, pipelined(['/first', '/second']), 'second'),
    );
    assert.equal(await eventually(() => events.length === 2), true);
    assert.deepEqual(events, ['second queued without socket: true', 'second finished: null']);
  });

  it('calls back for a queued pipelined response when the client leaves before it gets its socket', async () => {
    // Node 20 gives such a response neither a socket nor `close`: only its connection ends.
    const events: string[] = [];
    await withServer(
      (req, res) => {
        if (req.url === '/first') return; // never answered: the second stays queued
        events.push(`second queued without socket: ${res.socket === null}`);
        onFinished(res, (err) => events.push(`second finished: ${err?.message ?? null}`));
        setTimeout(() => req.socket.destroy(), 20);
      },
      async (port) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.on('error', () => {});
        socket.write(pipelined(['/first', '/second']));
        assert.equal(await eventually(() => events.length === 2), true, events.join('; '));
        socket.destroy();
      },
    );
    assert.equal(events[0], 'second queued without socket: true');
    assert.match(events[1], /^second finished: /);
  });

  it('calls back at once for a queued response whose connection is already gone', async () => {
    const events: string[] = [];
    await withServer(
      (req, res) => {
        if (req.url === '/first') return;
        req.socket.destroy();
        setImmediate(() => {
          events.push(`destroyed, without socket: ${res.socket === null}`);
          onFinished(res, () => events.push('finished'));
        });
      },
      async (port) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.on('error', () => {});
        socket.write(pipelined(['/first', '/second']));
        assert.equal(await eventually(() => events.length === 2), true, events.join('; '));
      },
    );
    assert.deepEqual(events, ['destroyed, without socket: true', 'finished']);
  });

  it('keeps one pair of listeners on a connection, however many pipelined responses queue on it', async () => {
    // One `close` and one `error` listener per queued response made Node warn past ten,
    // and every removal scan them all: a client pipelines as many requests as it likes.
    const QUEUED = 60;
    const finished: string[] = [];
    const counts: number[] = [];
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    let releaseFirst: () => void = () => {};
    try {
      await withServer(
        (req, res) => {
          if (req.url === '/first') {
            releaseFirst = () => res.end('first;');
            return;
          }
          onFinished(res, (err) => finished.push(`${req.url} ${err ?? null}`));
          const socket = req.socket;
          counts.push(socket.listenerCount('close'), socket.listenerCount('error'));
          res.end(`${req.url};`);
          if (req.url === `/${QUEUED}`) releaseFirst();
        },
        (port) => answeredUntil(port, queuedBehindFirst(QUEUED), `/${QUEUED};`),
      );
      assert.equal(await eventually(() => finished.length === QUEUED), true);
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(
      finished,
      Array.from({ length: QUEUED }, (_, i) => `/${i + 1} null`),
    );
    // Node's own listeners and at most one pair of webapp's, not one per queued response.
    assert.ok(Math.max(...counts) <= 4, `listeners on the connection: ${Math.max(...counts)}`);
    assert.deepEqual(warnings, []);
  });

  it('a connection closed under many queued responses calls back for each of them, once', async () => {
    const finished = new Map<string, number>();
    await withServer(
      (req, res) => {
        if (req.url === '/first') return;
        onFinished(res, () => finished.set(req.url!, (finished.get(req.url!) ?? 0) + 1));
        if (req.url === '/30') setTimeout(() => req.socket.destroy(), 20);
      },
      async (port) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.on('error', () => {});
        socket.write(queuedBehindFirst(30));
        assert.equal(await eventually(() => finished.size === 30), true, `${finished.size} called back`);
        socket.destroy();
      },
    );
    assert.deepEqual([...new Set(finished.values())], [1]);
  });

  it('knows when a request was fully read', async () => {
    await withServer(
      (req, res) => {
        assert.equal(isFinished(req), false);
        onFinished(req, () => {
          assert.equal(isFinished(req), true);
          res.end('read');
        });
        req.resume();
      },
      async (port) => {
        assert.equal(await get(port), 'read');
      },
    );
  });

  it('is undefined for objects that are not HTTP messages', () => {
    assert.equal(isFinished({} as http.ServerResponse), undefined);
  });
});
