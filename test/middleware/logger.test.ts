import assert from 'node:assert/strict';
import type http from 'node:http';
import net from 'node:net';
import { describe, it, mock } from 'node:test';
import { logger } from '../../src/middleware/logger';
import { basic, connectApp, chain, rawRequest, withServer, type Handler, type RequestSpec } from './support';
import { itWithLiveOracle } from '../support/oracle-recording';

// The comparison is of the lines Connect's logger writes, not of its answers: live only.
const LOG_LINES = 'the log lines Connect 2.30 writes';

const connect = require('connect');

/** A stream that collects lines, resolving once `count` lines arrived. */
function collector() {
  const lines: string[] = [];
  let waiters: Array<() => void> = [];
  return {
    lines,
    write(line: string) {
      lines.push(line);
      for (const wake of waiters) wake();
      waiters = [];
    },
    async wait(count: number) {
      while (lines.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}

/** Mocks setTimeout alone: `enable({ apis })` from Node 20.11 on, `enable(apis)` before. */
function mockSetTimeout(): void {
  try {
    mock.timers.enable({ apis: ['setTimeout'] });
  } catch {
    (mock.timers.enable as unknown as (apis: string[]) => void)(['setTimeout']);
  }
}

const reply: Handler = (req, res) => {
  if (req.url.startsWith('/missing')) res.statusCode = 404;
  if (req.url === '/boom') res.statusCode = 500;
  if (req.url === '/moved') res.statusCode = 302;
  res.setHeader('Content-Type', 'text/plain');
  res.end('hello');
};

const requests: RequestSpec[] = [
  { path: '/' },
  { path: '/missing?x=1', headers: { referer: 'http://example.test/', 'user-agent': 'agent/1.0' } },
  { path: '/boom', method: 'POST', headers: { authorization: basic('tobi', 'secret'), 'x-multi': 'a' } },
  { path: '/moved', headers: { authorization: 'Basic !!!', referrer: 'http://other.test/' } },
];

/** The three date forms `:date[...]` prints; each must match its whole shape to be normalised. */
const ISO_DATE = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g;
const WEB_DATE = /[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT/g;
const CLF_DATE = /\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000/g;

/**
 * Clock-dependent fields: dates and durations. Dates are replaced whole (not
 * digit by digit), before durations, so two runs a second (or a minute) apart
 * compare equal; `datesWithin` checks the values themselves.
 */
function normalize(line: string): string {
  return line
    .replace(ISO_DATE, 'ISO')
    .replace(WEB_DATE, 'WEB')
    .replace(CLF_DATE, 'CLF')
    .replace(/\d+\.\d{3}/g, 'N.NNN');
}

/** CLF's `24/Nov/2026:03:20:44 +0000` as a time. */
function parseClf(text: string): number {
  const [, day, month, year, time] = /^(\d{2})\/(\w{3})\/(\d{4}):(\S+) \+0000$/.exec(text) ?? [];
  return Date.parse(`${day} ${month} ${year} ${time} GMT`);
}

/** Every date the line prints, in each form, is the time of the request: between `from` and `to` (whole seconds). */
function assertDatesWithin(line: string, from: number, to: number): void {
  const found = [
    ...(line.match(ISO_DATE) ?? []).map((d) => Date.parse(d)),
    ...(line.match(WEB_DATE) ?? []).map((d) => Date.parse(d)),
    ...(line.match(CLF_DATE) ?? []).map(parseClf),
  ];
  assert.equal(found.length, 3, line);
  for (const time of found)
    assert.ok(time >= Math.floor(from / 1000) * 1000 && time <= to, `${line}: ${new Date(time).toISOString()}`);
}

async function compare(
  make: (lib: any, stream: ReturnType<typeof collector>) => Handler,
  expectedLines = requests.length,
): Promise<string[]> {
  const theirs = collector();
  const ours = collector();
  await withServer(connectApp([make(connect.logger, theirs), reply]), async (port) => {
    for (const spec of requests) await rawRequest(port, spec);
    await theirs.wait(expectedLines);
  });
  await withServer(chain([make(logger, ours), reply]), async (port) => {
    for (const spec of requests) await rawRequest(port, spec);
    await ours.wait(expectedLines);
  });
  assert.deepEqual(ours.lines.map(normalize), theirs.lines.map(normalize));
  return ours.lines;
}

describe('logger', () => {
  for (const format of ['default', 'combined', 'common', 'short', 'tiny', 'dev']) {
    itWithLiveOracle(`format ${format} matches Connect 2.30`, LOG_LINES, async () => {
      const lines = await compare((lib, stream) => lib({ format, stream }));
      assert.equal(lines.length, requests.length);
    });
  }

  itWithLiveOracle('custom format strings, request/response headers and dates', LOG_LINES, async () => {
    const fmt =
      ':method ":url" :req[x-multi] :res[content-type] :res[x-none] ' +
      ':date[iso] :date[web] :date[clf] :date[bogus] :http-version :remote-user "quoted"';
    const from = Date.now();
    const lines = await compare((lib, stream) => lib({ format: fmt, stream }));
    const to = Date.now();
    for (const line of lines) assertDatesWithin(line, from, to);
  });

  itWithLiveOracle('custom tokens and named formats', LOG_LINES, async () => {
    connect.logger.token('flavour', (req: any) => (req.headers['user-agent'] ? 'agent' : 'none'));
    logger.token('flavour', (req) => (req.headers['user-agent'] ? 'agent' : 'none'));
    connect.logger.format('mine', ':flavour :status');
    logger.format('mine', ':flavour :status');
    const lines = await compare((lib, stream) => lib({ format: 'mine', stream }));
    assert.deepEqual(
      lines.map((l) => l.split(' ')[1]),
      ['200\n', '404\n', '500\n', '302\n'],
    );
  });

  itWithLiveOracle('a format function, and a line of null skips', LOG_LINES, async () => {
    const fn = (tokens: any, req: any, res: any) =>
      req.url === '/' ? null : tokens.method(req, res) + '!' + tokens.url(req, res);
    const lines = await compare((lib, stream) => lib({ format: fn, stream }), 3);
    assert.equal(lines.length, 3);
  });

  itWithLiveOracle('immediate logs on arrival without status', LOG_LINES, async () => {
    const lines = await compare((lib, stream) => lib({ format: 'tiny', immediate: true, stream }));
    assert.equal(lines[0], 'GET / - - - - ms\n');
  });

  it('a user name with control characters is logged escaped: one request, one line (3.x logged them raw)', async () => {
    const sink = collector();
    // No colon: the name ends at the first one.
    const forged = 'tobi\n127.0.0.1 - admin "GET /admin HTTP/1.1" 200\r\t\x7f';
    await withServer(chain([logger({ format: ':remote-user :status', stream: sink }), reply]), async (port) => {
      await rawRequest(port, { path: '/', headers: { authorization: basic(forged, 'pw') } });
      await rawRequest(port, { path: '/', headers: { authorization: basic('tobi ferret', 'pw') } });
      await sink.wait(2);
    });
    assert.deepEqual(sink.lines, [
      'tobi\\x0a127.0.0.1 - admin "GET /admin HTTP/1.1" 200\\x0d\\x09\\x7f 200\n',
      'tobi ferret 200\n',
    ]);
  });

  it('writes no line for a pipelined request whose client left before its answer was written', async () => {
    // `/fast` is answered at once but waits behind `/slow` on the connection; the client
    // closes before `/slow` answers: `/fast`'s status never reached it.
    const sink = collector();
    let fastAnswered!: () => void;
    const answered = new Promise<void>((resolve) => (fastAnswered = resolve));
    const handler: Handler = (req, res) => {
      if (req.url === '/slow') return;
      res.end('fast');
      if (req.url === '/fast') fastAnswered();
    };
    const app = chain([logger({ format: ':url :status', stream: sink }), handler]);
    await withServer(app, async (port) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /fast HTTP/1.1\r\nHost: x\r\n\r\n');
      await answered;
      socket.end();
      await sink.wait(1);
      // A later request's line comes after any line the closed connection's requests would write.
      await rawRequest(port, { path: '/after' });
      await sink.wait(2);
    });
    assert.deepEqual(sink.lines, ['/slow -\n', '/after 200\n']);
  });

  it('immediate: a line for every pipelined request as it arrives, queued or not', async () => {
    const sink = collector();
    const app = chain([logger({ format: ':method :url', stream: sink, immediate: true }), reply]);
    await withServer(app, async (port) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.resume();
      socket.write(['/a', '/b', '/c'].map((path) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''));
      // Bounded: a line that never comes fails the comparison below rather than hanging.
      await Promise.race([sink.wait(3), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
      socket.destroy();
    });
    assert.deepEqual(sink.lines, ['GET /a\n', 'GET /b\n', 'GET /c\n']);
  });

  it('an unknown token logs - (3.x threw while logging)', async () => {
    const sink = collector();
    await withServer(chain([logger({ format: ':nope-token :status', stream: sink }), reply]), async (port) => {
      await rawRequest(port, { path: '/' });
      await sink.wait(1);
    });
    assert.deepEqual(sink.lines, ['- 200\n']);
  });

  it('skip', async () => {
    const sink = collector();
    const mw = logger({ format: 'tiny', stream: sink, skip: (_req, res) => res.statusCode < 400 });
    await withServer(chain([mw, reply]), async (port) => {
      for (const spec of requests) await rawRequest(port, spec);
      await sink.wait(2);
    });
    assert.deepEqual(sink.lines.map(normalize), [
      'GET /missing?x=1 404 - - N.NNN ms\n',
      'POST /boom 500 - - N.NNN ms\n',
    ]);
  });

  itWithLiveOracle('a format string as the only argument writes to stdout, as in Connect 2.30', LOG_LINES, async () => {
    // The marker tells these lines from the test runner's own output, which passes through.
    const format = 'logger-stdout-test :method :url :status';
    const captured: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = function (this: unknown, chunk: any, ...rest: any[]) {
      if (String(chunk).startsWith('logger-stdout-test ')) {
        captured.push(String(chunk));
        return true;
      }
      return (write as any).call(process.stdout, chunk, ...rest);
    } as typeof process.stdout.write;
    const until = async (count: number) => {
      while (captured.length < count) await new Promise((resolve) => setImmediate(resolve));
    };
    try {
      await withServer(connectApp([connect.logger(format), reply]), async (port) => {
        for (const spec of requests) await rawRequest(port, spec);
        await until(requests.length);
      });
      await withServer(chain([logger(format), reply]), async (port) => {
        for (const spec of requests) await rawRequest(port, spec);
        await until(2 * requests.length);
      });
    } finally {
      process.stdout.write = write;
    }
    assert.deepEqual(captured.slice(requests.length), captured.slice(0, requests.length));
    assert.equal(captured[requests.length], 'logger-stdout-test GET / 200\n');
  });

  itWithLiveOracle(
    'buffer holds lines for the interval, then writes them at once, as in Connect 2.30',
    LOG_LINES,
    async () => {
      // Only setTimeout is mocked: the buffer's timer, not the sockets'.
      mockSetTimeout();
      try {
        const run = async (app: (stream: ReturnType<typeof collector>) => http.RequestListener) => {
          const sink = collector();
          await withServer(app(sink), async (port) => {
            for (const spec of requests) await rawRequest(port, spec);
            // Every response has finished (and been logged) before its client saw the end.
            await new Promise((resolve) => setImmediate(resolve));
            assert.deepEqual(sink.lines, [], 'nothing written before the interval');
            mock.timers.tick(249);
            assert.deepEqual(sink.lines, [], 'nothing written before the interval');
            mock.timers.tick(1);
            await sink.wait(1);
          });
          return sink.lines;
        };
        const theirs = await run((stream) =>
          connectApp([connect.logger({ format: 'tiny', stream, buffer: 250 }), reply]),
        );
        const ours = await run((stream) => chain([logger({ format: 'tiny', stream, buffer: 250 }), reply]));
        assert.deepEqual(ours.map(normalize), theirs.map(normalize));
        assert.equal(ours.length, 1);
        assert.equal(ours[0].split('\n').length, requests.length + 1);
      } finally {
        mock.timers.reset();
      }
    },
  );

  it('compile turns a format string into a line', () => {
    const line = logger.compile(':method ":url" \\ :missing-token')(
      { method: (req: any) => req.method, url: (req: any) => req.url } as any,
      { method: 'GET', url: '/x' } as any,
      {} as any,
    );
    // `\ ` is a space, as 3.x read the text between tokens as a JavaScript string's.
    assert.equal(line, 'GET "/x"  -');
    assert.throws(() => logger.compile(42 as any), /argument format must be a string/);
  });
});

describe("logger's members", () => {
  it('the built-in tokens and formats are members of logger, as on Connect 2.30 (.dev, .url)', () => {
    const members = (fn: Record<string, unknown>) =>
      Object.fromEntries(
        Object.keys(fn)
          .sort()
          .map((name) => [name, typeof fn[name] === 'string' ? fn[name] : typeof fn[name]]),
      );
    assert.deepEqual(members(logger as never), members(connect.logger));
  });
});
