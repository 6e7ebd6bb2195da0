/**
 * logger against Connect 2.30's (morgan 1.6) over generated configurations and
 * requests: every predefined format, format strings composed of every token with
 * odd arguments and backslash escapes, format functions, `immediate`, `skip`,
 * `buffer`, tokens and formats registered on `logger`; requests with odd methods,
 * long, encoded and non-ASCII URLs, header values with tabs and latin1, Basic
 * credentials, HTTP/1.0, HEAD, error statuses and clients that left before an
 * answer. Each request goes out on a connection of its own, and the lines each
 * side writes while it is served are compared, with only dates and response
 * times masked.
 *
 * Where 2.30 throws while formatting (an unknown token, `:req` without a header
 * name), its process ended: here the line is written with `-` for that token,
 * which the comparison checks by running 2.30's compiled format with such tokens
 * answering nothing.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { describe, mock } from 'node:test';
import { inspect } from 'node:util';
import { logger } from '../../src/middleware/logger';
import { basic, chain, connectApp, type Handler } from './support';
import { between, chance, HEADER_TEXT, pick, prng, repeat, type Random } from './generated-support';
import { assertNoDifferences, isDeepStrictEqual } from '../support/generated-answers';
import { itWithLiveOracle } from '../support/oracle-recording';
import { close, listen } from '../support/raw-http';

const connect = require('connect');

const LIVE = 'the log lines Connect 2.30 writes for generated requests';

/** One request as bytes on the wire, and how the app answers it. */
interface Exchange {
  method: string;
  url: string;
  version: '1.0' | '1.1';
  headers: Array<[string, string]>;
  answer: Answer;
}

interface Answer {
  /** No answer: the client leaves once the request arrived. */
  hang?: boolean;
  status: number;
  headers: Array<[string, string | string[]]>;
  body: string;
  writeHead?: boolean;
}

type Side = 'connect' | 'webapp';

/** A logger configuration: built for each side (options may differ only by the side's own functions). */
interface Config {
  name: string;
  make: (side: Side, stream: { write(line: string): unknown }) => Handler;
  /** Timers mocked: the buffer's interval is ticked once every request is served. */
  buffer?: number;
}

/** What 2.30 wrote, or, where it threw while formatting, the line with `-` for each token that threw. */
const THREW = 'threw while formatting: ';
const THREW_MARKS = new RegExp(`(^|\n)${THREW}`, 'g');

// ---- masking --------------------------------------------------------------------------

const ISO_DATE = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g;
const WEB_DATE = /[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT/g;
const CLF_DATE = /\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000/g;

function mask(line: string): string {
  return line
    .replace(ISO_DATE, '<iso>')
    .replace(WEB_DATE, '<web>')
    .replace(CLF_DATE, '<clf>')
    .replace(/\d+\.\d{3}/g, '<ms>');
}

// ---- the wire -------------------------------------------------------------------------

function wire(exchange: Exchange): Buffer {
  let head = `${exchange.method} ${exchange.url} HTTP/${exchange.version}\r\n`;
  for (const [name, value] of exchange.headers) head += `${name}: ${value}\r\n`;
  head += 'Connection: close\r\n\r\n';
  return Buffer.from(head, 'latin1');
}

/** The handler after the logger: answers as the exchange (found by its X-Case header) says. */
function answering(exchanges: readonly Exchange[], arrived: (index: number) => void): Handler {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const index = Number(req.headers['x-case']);
    const answer = exchanges[index]?.answer;
    arrived(index);
    if (!answer || answer.hang) return;
    if (answer.writeHead) {
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
    } else {
      res.statusCode = answer.status;
      for (const [name, value] of answer.headers) res.setHeader(name, value);
    }
    res.end(answer.body);
  };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Serves every exchange, one connection each and one at a time, on a server for
 * `config` on `side`; returns, per exchange, the lines written while it was served
 * (and, buffered, everything written once the interval passed, as one last entry).
 */
async function linesOf(side: Side, config: Config, exchanges: readonly Exchange[]): Promise<string[][]> {
  const written: string[] = [];
  const stream = { write: (line: string) => void written.push(line) };
  let handler: Handler;
  try {
    handler = config.make(side, stream);
  } catch (error) {
    // 2.30 compiles a format when the middleware is made: a format it cannot compile throws there.
    return [[`construction threw ${(error as Error).name}`]];
  }
  let arrival: { index: number; closed: Promise<void> } | null = null;
  let arrivedNow: (() => void) | null = null;
  const app = side === 'connect' ? connectApp([handler, answering(exchanges, () => arrivedNow?.())]) : null;
  const ours = side === 'webapp' ? chain([handler, answering(exchanges, () => arrivedNow?.())]) : null;
  const server = http.createServer((req, res) => {
    const closed = new Promise<void>((resolve) => res.on('close', resolve));
    arrival = { index: Number(req.headers['x-case']), closed };
    (app ?? ours)!(req, res);
  });
  const port = await listen(server);
  const perExchange: string[][] = [];
  try {
    for (const exchange of exchanges) {
      arrival = null;
      const before = written.length;
      const arrived = new Promise<void>((resolve) => (arrivedNow = resolve));
      await new Promise<void>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.write(wire(exchange)));
        socket.on('error', () => {});
        socket.on('close', () => resolve());
        socket.resume();
        // The client leaves once the app has the request (and will never answer).
        if (exchange.answer.hang) void arrived.then(() => socket.destroy());
      });
      if (arrival) await (arrival as { closed: Promise<void> }).closed;
      await turn();
      await turn();
      perExchange.push(written.slice(before));
    }
  } finally {
    await close(server);
  }
  if (config.buffer !== undefined) {
    const before = written.length;
    mock.timers.tick(config.buffer);
    await turn();
    perExchange.push([written.slice(before).join('')]);
  }
  return perExchange;
}

async function assertSameLines(configs: readonly Config[], exchanges: readonly Exchange[]): Promise<void> {
  const differences: string[] = [];
  let compared = 0;
  let written = 0;
  for (const config of configs) {
    const theirs = await linesOf('connect', config, exchanges);
    const ours = await linesOf('webapp', config, exchanges);
    for (let i = 0; i < Math.max(theirs.length, ours.length); i++) {
      compared++;
      written += (theirs[i] ?? []).join('').split('\n').length - 1;
      // Where 2.30 threw, webapp writes the line with `-` for the tokens that threw (a
      // buffered write joins several lines, each marked).
      const want = (theirs[i] ?? []).map((line) => mask(line.replace(THREW_MARKS, '$1')));
      const got = (ours[i] ?? []).map(mask);
      if (!isDeepStrictEqual(want, got)) {
        const show = (value: unknown) => inspect(value, { breakLength: Infinity, depth: 4 });
        differences.push(
          `${config.name}\n  request: ${show(exchanges[i] ?? 'after the buffer interval')}\n` +
            `  connect: ${show(want)}\n  webapp:  ${show(got)}`,
        );
      }
    }
  }
  assertNoDifferences(differences, compared, 'generated requests log differently from Connect 2.30', 6);
  // Many requests are answered and logged, so the comparison is not of empty logs (the
  // rest: refused by Node's parser, skipped, null lines: under half with some seeds).
  assert.ok(written > compared / 4, `only ${written} lines for ${compared} requests`);
}

// ---- generated requests ---------------------------------------------------------------

const METHODS = [
  'GET',
  'GET',
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'OPTIONS',
  'PATCH',
  'PROPFIND',
  'M-SEARCH',
  'PURGE',
];

function url(random: Random): string {
  const roll = random();
  if (roll < 0.1) return '/';
  if (roll < 0.2) return '/' + 'x'.repeat(between(random, 500, 4000));
  if (roll < 0.3) return '/caf\xc3\xa9/\xe2\x82\xac?q=\xff'; // UTF-8 and latin1 bytes, sent raw
  if (roll < 0.4) return '/%E2%82%AC/%zz/%00/%0A?a=%22&b=%5C';
  if (roll < 0.5) return 'http://example.test:8080/abs?x=1';
  return (
    repeat(
      between(random, 1, 4),
      () => '/' + pick(random, ['a', 'b.c', '..', '', '%20', '~u', ';p=1', '"q"', "'", '\\']),
    ) +
    (chance(random, 0.4) ? '?' + pick(random, ['x=1', 'a[b]=c', '', '%', 'u=' + 'y'.repeat(300)]) : '') +
    (chance(random, 0.1) ? '#frag' : '')
  );
}

/** Header values: HEADER_TEXT plus what Node's parser lets through (tabs, latin1, DEL). */
const VALUES = [
  ...HEADER_TEXT,
  '\ta\t',
  'a\tb',
  '\x7f',
  'caf\xc3\xa9',
  '\xff\xfe',
  'x, y',
  'Mozilla/5.0 (X11; Linux) "q"',
];

const PASSWORDS = ['pw', '', 'a:b', 'line\nbreak', 'cr\rx', '\u2028', 'caf\u00e9'];
const USERS = ['tobi', '', 'tobi ferret', 'caf\u00e9', '\u2603', 'x'.repeat(100)];

function authorization(random: Random): string {
  const roll = random();
  if (roll < 0.6) return basic(pick(random, USERS), pick(random, PASSWORDS));
  if (roll < 0.7) return 'Basic ' + Buffer.from(pick(random, USERS)).toString('base64');
  if (roll < 0.8)
    return (
      pick(random, ['basic', 'BASIC', 'Bearer', ' Basic', 'Basic  ']) + ' ' + Buffer.from('u:p').toString('base64')
    );
  return pick(random, ['Basic', 'Basic !!!', 'Basic ====', 'Basic dTpw=', '']);
}

const HEADER_NAMES = ['x-odd', 'X-Odd', 'x-multi', 'cookie', 'undefined', 'x_under', 'x.dot', 'content-type', 'accept'];

function headers(random: Random, index: number): Array<[string, string]> {
  const out: Array<[string, string]> = [['Host', pick(random, ['x', 'example.test', '127.0.0.1:1'])]];
  out.push(['X-Case', String(index)]);
  if (chance(random, 0.4)) out.push([pick(random, ['Referer', 'referer', 'Referrer']), pick(random, VALUES)]);
  if (chance(random, 0.2)) out.push(['Referrer', pick(random, VALUES)]);
  if (chance(random, 0.5)) out.push(['User-Agent', pick(random, VALUES)]);
  if (chance(random, 0.5)) out.push(['Authorization', authorization(random)]);
  if (chance(random, 0.3))
    out.push(['X-Forwarded-For', pick(random, ['10.0.0.1', '10.0.0.1, 10.0.0.2', '', 'nonsense'])]);
  for (let n = between(random, 0, 3); n > 0; n--) out.push([pick(random, HEADER_NAMES), pick(random, VALUES)]);
  return out;
}

const STATUSES = [200, 200, 200, 201, 204, 301, 302, 304, 400, 401, 404, 418, 500, 503, 599];

function answer(random: Random): Answer {
  if (chance(random, 0.08)) return { hang: true, status: 0, headers: [], body: '' };
  const out: Array<[string, string | string[]]> = [];
  if (chance(random, 0.6)) out.push(['Content-Type', pick(random, ['text/plain', 'text/html; charset=utf-8'])]);
  if (chance(random, 0.3)) out.push(['X-Odd', pick(random, ['', ' ', 'v', 'caf\xe9', 'a\tb'])]);
  if (chance(random, 0.2)) out.push(['Set-Cookie', ['a=1', 'b=2']]);
  if (chance(random, 0.1)) out.push(['X-Multi', ['1', '2']]);
  return {
    status: pick(random, STATUSES),
    headers: out,
    body: pick(random, ['', 'hello', 'x'.repeat(1000), 'caf\u00e9']),
    writeHead: chance(random, 0.3),
  };
}

function exchanges(random: Random, count: number): Exchange[] {
  return Array.from({ length: count }, (_, index) => ({
    method: pick(random, METHODS),
    url: url(random),
    version: chance(random, 0.15) ? '1.0' : '1.1',
    headers: headers(random, index),
    answer: answer(random),
  }));
}

// ---- generated formats ----------------------------------------------------------------

const BUILT_IN_TOKENS = [
  'url',
  'method',
  'status',
  'referrer',
  'remote-addr',
  'remote-user',
  'http-version',
  'user-agent',
  'response-time',
];
const ARGUMENTS = [
  'x-odd',
  'X-Odd',
  'x-multi',
  'undefined',
  'content-type',
  'Content-Length',
  'set-cookie',
  'x_under',
  'x.dot',
  'cookie',
  'nope',
  ' ',
  'a b',
  '"',
  'a"b',
  '\\',
  '[',
  ':status',
  'clf',
  'iso',
  'web',
  'Web',
  '\u00e9',
];

function token(random: Random): string {
  const roll = random();
  if (roll < 0.45) return ':' + pick(random, BUILT_IN_TOKENS);
  if (roll < 0.75) return ':' + pick(random, ['req', 'res']) + '[' + pick(random, ARGUMENTS) + ']';
  if (roll < 0.85) return ':date' + pick(random, ['', '[clf]', '[iso]', '[web]', '[bogus]', '[]', '[CLF]']);
  if (roll < 0.9) return ':' + pick(random, ['req', 'res', 'status', 'url']) + pick(random, ['[]', '[', ']', '[x]]']);
  if (roll < 0.95) return ':' + pick(random, ['referer', 'nope', 'x', 'remote_addr']); // no such tokens
  return pick(random, [':', '::', ':a', ':-', ':status:status', ':1status']);
}

/** Literal text, backslash escapes included (2.30 reads the format as a JavaScript string's text). */
function literal(random: Random): string {
  const roll = random();
  if (roll < 0.5)
    return pick(random, [' ', ' - ', '"', ' "', '" ', '[', '] ', '\t', '', ' ms ', "'", '`', '${x}', '\u00e9']);
  if (roll < 0.8)
    return pick(random, [
      '\\n',
      '\\t',
      '\\\\',
      '\\x41',
      '\\u00e9',
      '\\u{1F600}',
      '\\0',
      '\\08',
      '\\101',
      '\\8',
      '\\q',
      '\\ ',
      '\\\u2028',
      '\\r\\n',
      '\\b\\f\\v',
      '\\\\"',
      '\\\\\\\\',
      '\\u2028',
      '\u2029',
    ]);
  // 2.30 cannot compile these: a line break, an escape cut short, a quote or line end escaped.
  return pick(random, ['\n', '\r', '\\x4', '\\u12', '\\u{110000}', '\\"', '\\', '\\"; ', '\\\u2028"']);
}

function formatString(random: Random): string {
  let out = chance(random, 0.5) ? literal(random) : '';
  for (let n = between(random, 1, 5); n > 0; n--) out += token(random) + (chance(random, 0.8) ? literal(random) : '');
  return out;
}

/** 2.30's morgan: the object its format functions get as `tokens`. */
const morgan = require(require.resolve('morgan', { paths: [require.resolve('connect')] }));

/**
 * 2.30's compiled format for `fmt`, where a token that throws (or is missing) gives the
 * line with `-` in its place, prefixed to tell it from a line 2.30 wrote.
 */
function connectFormat(fmt: string) {
  const compiled = connect.logger.compile(fmt);
  return (tokens: any, req: any, res: any) => {
    try {
      return compiled(tokens, req, res);
    } catch {
      const quiet = new Proxy(tokens, {
        get(table, name) {
          const fn = table[name];
          if (typeof fn !== 'function' || !Object.hasOwn(table, name)) return () => undefined;
          return (...args: unknown[]) => {
            try {
              return fn(...args);
            } catch {
              return undefined;
            }
          };
        },
      });
      return THREW + compiled(quiet, req, res);
    }
  };
}

function stringConfig(random: Random, fmt: string): Config {
  const immediate = chance(random, 0.2);
  return {
    name: `format ${inspect(fmt)}${immediate ? ', immediate' : ''}`,
    make: (side, stream) =>
      side === 'connect'
        ? connect.logger({ format: connectFormat(fmt), stream, immediate })
        : logger({ format: fmt, stream, immediate }),
  };
}

describe('logger: generated formats and requests against Connect 2.30', () => {
  itWithLiveOracle('every predefined format, by name and as the only argument', LIVE, async () => {
    const random = prng(0x10ca1);
    const configs: Config[] = [];
    for (const format of ['default', 'combined', 'common', 'short', 'tiny', 'dev', '', undefined]) {
      configs.push({
        name: `options.format ${inspect(format)}`,
        make: (side, stream) => (side === 'connect' ? connect.logger : logger)({ format, stream } as never),
      });
      configs.push({
        name: `options.format ${inspect(format)}, immediate`,
        make: (side, stream) =>
          (side === 'connect' ? connect.logger : logger)({ format, stream, immediate: true } as never),
      });
    }
    await assertSameLines(configs, exchanges(random, 40));
  });

  itWithLiveOracle('format strings of every token, odd arguments and escapes', LIVE, async () => {
    const random = prng(0xf0a7);
    const configs = Array.from({ length: 120 }, () => stringConfig(random, formatString(random)));
    await assertSameLines(configs, exchanges(random, 12));
  });
});

/** Format functions: what they return is written as given (null and undefined write nothing). */
const FORMAT_FUNCTIONS: Array<[string, (tokens: any, req: any, res: any) => unknown]> = [
  ['method status', (t, req, res) => t.method(req, res) + ' ' + t.status(req, res)],
  ['null for errors', (t, req, res) => (res.statusCode >= 400 ? null : t.url(req, res))],
  ['undefined for HEAD', (t, req, res) => (req.method === 'HEAD' ? undefined : t['remote-addr'](req, res))],
  ['empty string', () => ''],
  ['zero', () => 0],
  ['false', () => false],
  ['an object', () => ({ a: 1 })],
  ['headers', (t, req, res) => [t.req(req, res, 'x-odd'), t.res(req, res, 'x-odd'), t.referrer(req, res)].join('|')],
  ['date iso', (t, req, res) => t.date(req, res, 'iso') + ' ' + t.date(req, res, 'clf') + ' ' + t.date(req, res)],
  ['timing', (t, req, res) => String(t['response-time'](req, res))],
  ['user', (t, req, res) => t['remote-user'](req, res) + ' ' + t['http-version'](req, res)],
];

const SKIPS: Array<[string, ((req: any, res: any) => boolean) | undefined]> = [
  ['no skip', undefined],
  ['skip errors', (_req, res) => res.statusCode >= 400],
  ['skip HEAD', (req) => req.method === 'HEAD'],
];

describe('logger: format functions, options, registrations', () => {
  itWithLiveOracle('format functions, with and without skip and immediate', LIVE, async () => {
    const random = prng(0xfeed);
    const configs: Config[] = [];
    for (const [name, fn] of FORMAT_FUNCTIONS)
      for (const [skipName, skip] of SKIPS) {
        const immediate = chance(random, 0.3);
        configs.push({
          name: `function ${name}, ${skipName}${immediate ? ', immediate' : ''}`,
          make: (side, stream) =>
            (side === 'connect' ? connect.logger : logger)({ format: fn, stream, skip, immediate }),
        });
      }
    for (const format of ['tiny', 'dev', 'short'])
      for (const [skipName, skip] of SKIPS)
        configs.push({
          name: `${format}, ${skipName}`,
          make: (side, stream) => (side === 'connect' ? connect.logger : logger)({ format, stream, skip }),
        });
    await assertSameLines(configs, exchanges(random, 16));
  });

  itWithLiveOracle('buffer: every line written once the interval passed', LIVE, async () => {
    // Only setTimeout is mocked: the buffer's timer, not the sockets'.
    try {
      mock.timers.enable({ apis: ['setTimeout'] });
    } catch {
      (mock.timers.enable as unknown as (apis: string[]) => void)(['setTimeout']);
    }
    try {
      const random = prng(0xb0f);
      const configs: Config[] = [];
      for (const [buffer, interval] of [
        [true, 1000],
        [40, 40],
        [1, 1],
      ] as const)
        for (const format of ['combined', 'tiny', formatString(random)])
          configs.push({
            name: `format ${inspect(format)}, buffer ${buffer}`,
            buffer: interval,
            make: (side, stream) =>
              side === 'connect'
                ? connect.logger({
                    format: format === 'combined' || format === 'tiny' ? format : connectFormat(format),
                    stream,
                    buffer,
                  })
                : logger({ format, stream, buffer }),
          });
      await assertSameLines(configs, exchanges(random, 10));
    } finally {
      mock.timers.reset();
    }
  });

  itWithLiveOracle('tokens and formats registered on logger share one namespace', LIVE, async () => {
    const random = prng(0x7e9);
    const builtIn = ['url', 'status', 'short', 'tiny', 'method'];
    const saved = Object.fromEntries(builtIn.map((name) => [name, morgan[name]]));
    const ourSaved = Object.fromEntries(builtIn.map((name) => [name, (logger as any)[name]]));
    // Called as a format (tokens, req, res) or as a token (req, res, arg).
    const either = (a: any, b: any, c: any) =>
      typeof b?.method === 'string' ? 'as format ' + b.method : 'as token ' + String(c) + ' ' + typeof a?.method;
    const registrations: Array<[kind: 'token' | 'format', name: string, value: unknown]> = [
      ['token', 'gen-agent', (req: any) => (req.headers['user-agent'] ? 'agent' : undefined)],
      ['token', 'short', either],
      ['format', 'url', ':method'],
      ['token', 'status', either],
      ['format', 'gen-empty', ''],
      ['format', 'gen-fn', (t: any, req: any, res: any) => 'fn ' + t.status(req, res) + ' ' + t['gen-agent'](req, res)],
      ['format', 'gen-str', ':gen-agent :status[x] :url :short[a] :tiny'],
    ];
    try {
      for (const [kind, name, value] of registrations) {
        assert.equal(connect.logger[kind](name, value), connect.logger);
        assert.equal((logger as any)[kind](name, value), logger);
      }
      const configs: Config[] = [];
      for (const format of ['short', 'tiny', 'gen-empty', 'gen-fn', 'gen-str', 'combined', ':short :gen-agent :url[x]'])
        configs.push({
          name: `after registrations, format ${format}`,
          make: (side, stream) => {
            if (side === 'webapp') return logger({ format, stream });
            // 2.30's lookup of a name (morgan's getFormatFunction), with its format strings run
            // through connectFormat: \`:url\` is now a string, which 2.30 threw on while logging.
            const found = morgan[format] || format;
            return connect.logger({ format: typeof found === 'function' ? found : connectFormat(found), stream });
          },
        });
      await assertSameLines(configs, exchanges(random, 10));
      // Registered names are not members of either logger (their members are the built-ins, copied).
      for (const [, name] of registrations)
        assert.equal(typeof (logger as any)[name], typeof connect.logger[name], name);
    } finally {
      for (const name of builtIn) {
        morgan[name] = saved[name];
        (logger as any).token(name, ourSaved[name]);
      }
    }
  });

  itWithLiveOracle('a user name with control characters: 2.30 wrote it raw, webapp as \\xHH', LIVE, async () => {
    const names = ['a\tb', 'tobi\nforged 200', 'x\x7fy', '\x1b[31mred', 'cr\r'];
    const exchangesWithNames: Exchange[] = names.map((name, i) => ({
      method: 'GET',
      url: '/',
      version: '1.1',
      headers: [
        ['Host', 'x'],
        ['X-Case', String(i)],
        ['Authorization', basic(name, 'pw')],
      ],
      answer: { status: 200, headers: [], body: 'ok' },
    }));
    const config: Config = {
      name: 'remote-user',
      make: (side, stream) => (side === 'connect' ? connect.logger : logger)({ format: ':remote-user', stream }),
    };
    const theirs = await linesOf('connect', config, exchangesWithNames);
    const ours = await linesOf('webapp', config, exchangesWithNames);
    const escaped = (text: string) =>
      text.replace(/[\x00-\x1f\x7f]/g, (c) => '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0'));
    assert.deepEqual(
      theirs,
      names.map((name) => [name + '\n']),
    );
    assert.deepEqual(
      ours,
      names.map((name) => [escaped(name) + '\n']),
    );
  });
});
