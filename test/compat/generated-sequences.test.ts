/**
 * Sequences of response calls within one handler (seeded, so a failure
 * reproduces): 1 to 6 header, status, cookie, locals and Node-level calls, then
 * one way of ending (or none, then `next()` / `next(err)`), sometimes a second
 * ending that must fail as on express@4. Each case is one request (GET, HEAD or
 * POST; Accept variants; conditional headers made from the oracle's own
 * validators) to the same app on express@4 and on webapp, under generated
 * settings; compared whole: status, every header line in order, body, and what
 * the error handler saw of every error (name, code, message), in order.
 */
import { after, before, describe, it } from 'node:test';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import webapp = require('../../src/index');
import { captureStderrOf } from '../support/capture-stderr';
import { chance, pick, prng, type Random } from '../support/prng';
import {
  answersOf,
  assertNoDifferences,
  brandHidden,
  isDeepStrictEqual,
  type Answer,
} from '../support/generated-answers';
import type { RequestSpec } from '../support/raw-http';

type Framework = typeof express;

interface Step {
  text: string;
  run: (req: Request, res: Response, next: NextFunction) => void;
}

interface Case {
  label: string;
  steps: Step[];
  method: string;
  headers: Record<string, string>;
  query: string;
  /** Send If-None-Match / If-Modified-Since taken from the oracle's answer to a first request. */
  conditional: 'match' | 'miss' | undefined;
}

interface Settings {
  etag: boolean | 'weak' | 'strong';
  spaces: number | string | undefined;
  callbackName: string;
  poweredBy: boolean;
}

/** Date.now fixed while the test runs: cookies with maxAge get the same Expires on both sides. */
const realNow = Date.now;
const NOW = Date.UTC(2025, 5, 15, 12, 0, 0, 500);

const show = (value: unknown): string => inspect(value, { breakLength: Infinity, depth: 3, maxStringLength: 60 });

const HEADER_VALUES: Record<string, readonly unknown[]> = {
  'X-A': ['one', 'two, three', ''],
  'Content-Type': ['text/plain', 'application/json', 'text/html; charset=latin1', 'image/png', 'text/x-foo'],
  'content-type': ['text/plain; charset=utf-8', 'application/javascript'],
  'Content-Length': ['0', '3', '12345'],
  ETag: ['"fixed"', 'W/"weak-one"', '"7-s4Qv0vX3gR2JWXvBdbYxMFKSBBE"'],
  'Last-Modified': ['Wed, 21 Oct 2015 07:28:00 GMT', 'Thu, 01 Jan 2099 00:00:00 GMT'],
  Vary: ['Accept', 'Origin, Accept-Encoding', '*'],
  Link: ['</a>; rel="next"'],
  Location: ['/elsewhere', 'http://x.test/'],
  'Cache-Control': ['no-cache', 'max-age=60'],
  'Content-Disposition': ['inline', 'attachment; filename="x.txt"'],
  'Set-Cookie': ['a=1; Path=/', 'b=2'],
};
const NAMES = Object.keys(HEADER_VALUES);

function headerName(random: Random, lengthAllowed: boolean): string {
  for (;;) {
    const name = pick(random, NAMES);
    if (lengthAllowed || name !== 'Content-Length') return name;
  }
}

const headerValue = (random: Random, name: string): string => pick(random, HEADER_VALUES[name]) as string;

const STATUSES = [200, 201, 202, 204, 206, 301, 302, 304, 400, 404, 410, 500, 503];

/** One call before the ending; `lengthAllowed`: a Content-Length may be set (the ending replaces it). */
function step(random: Random, lengthAllowed: boolean, nodeWrites: boolean): Step {
  const roll = Math.floor(random() * (nodeWrites ? 19 : 17));
  switch (roll) {
    case 0: {
      const code = pick(random, STATUSES);
      return { text: `status(${code})`, run: (_q, res) => res.status(code) };
    }
    case 1: {
      const name = headerName(random, lengthAllowed);
      const value = headerValue(random, name);
      const method = pick(random, ['set', 'header'] as const);
      return { text: `${method}(${show(name)}, ${show(value)})`, run: (_q, res) => res[method](name, value) };
    }
    case 2: {
      const name = pick(random, ['X-A', 'Set-Cookie', 'Vary', 'Link', 'Content-Type', 'ETag']);
      const value = [headerValue(random, name), headerValue(random, name)];
      return { text: `set(${show(name)}, ${show(value)})`, run: (_q, res) => res.set(name, value) };
    }
    case 3: {
      const fields: Record<string, string> = {};
      const count = 1 + Math.floor(random() * 3);
      for (let i = 0; i < count; i++) {
        const name = headerName(random, lengthAllowed);
        fields[name] = headerValue(random, name);
      }
      return { text: `set(${show(fields)})`, run: (_q, res) => res.set(fields) };
    }
    case 4: {
      const name = pick(random, ['X-A', 'Set-Cookie', 'Vary', 'Link', 'Cache-Control', 'Content-Type']);
      const value: string | string[] = chance(random, 0.3)
        ? [headerValue(random, name), headerValue(random, name)]
        : headerValue(random, name);
      return { text: `append(${show(name)}, ${show(value)})`, run: (_q, res) => res.append(name, value) };
    }
    case 5: {
      const name = pick(random, ['Content-Type', 'content-type', 'ETag', 'X-A', 'Set-Cookie', 'Vary', 'Location']);
      return { text: `removeHeader(${show(name)})`, run: (_q, res) => res.removeHeader(name) };
    }
    case 6: {
      const type = pick(random, ['html', 'json', '.txt', 'png', 'text/plain', 'application/xml', 'bin', 'js']);
      const method = pick(random, ['type', 'contentType'] as const);
      return { text: `${method}(${show(type)})`, run: (_q, res) => res[method](type) };
    }
    case 7: {
      const field = pick(random, ['Accept', 'Origin', 'accept', 'Accept, Cookie', '*']);
      return { text: `vary(${show(field)})`, run: (_q, res) => res.vary(field) };
    }
    case 8: {
      const links = pick(random, [{ next: '/p/2' }, { next: '/p/2', last: '/p/9' }, { prev: 'http://x.test/1' }]);
      return { text: `links(${show(links)})`, run: (_q, res) => res.links(links) };
    }
    case 9: {
      const name = pick(random, ['sid', 'a', 'b']);
      const value = pick(random, ['v', 'hello world', { j: 1 }] as unknown[]);
      const options = pick(random, [undefined, { path: '/x' }, { maxAge: 1000, httpOnly: true }, { signed: true }]);
      return {
        text: `cookie(${show(name)}, ${show(value)}, ${show(options)})`,
        run: (_q, res) => res.cookie(name, value, options ?? {}),
      };
    }
    case 10: {
      const name = pick(random, ['sid', 'a']);
      const options = pick(random, [undefined, { path: '/x' }]);
      return { text: `clearCookie(${show(name)}, ${show(options)})`, run: (_q, res) => res.clearCookie(name, options) };
    }
    case 11: {
      const url = pick(random, ['/there', 'back', 'http://x.test/a b', '']);
      return { text: `location(${show(url)})`, run: (_q, res) => res.location(url) };
    }
    case 12: {
      const name = pick(random, [undefined, 'report.pdf', 'a b.json', 'naïve.txt']);
      return { text: `attachment(${show(name)})`, run: (_q, res) => res.attachment(name) };
    }
    case 13: {
      const value = pick(random, ['local', 42, { deep: true }] as unknown[]);
      return {
        text: `locals.name = ${show(value)}`,
        run: (_q, res) => {
          res.locals.name = value;
        },
      };
    }
    case 14: {
      const name = pick(random, ['X-A', 'Content-Type', 'ETag', 'Last-Modified', 'Set-Cookie']);
      const value: string | string[] | number = pick(random, [
        headerValue(random, name),
        [headerValue(random, name)],
        7,
      ] as Array<string | string[] | number>);
      return { text: `setHeader(${show(name)}, ${show(value)})`, run: (_q, res) => res.setHeader(name, value) };
    }
    case 15:
    case 16: {
      const status = pick(random, STATUSES);
      return {
        text: `statusCode = ${status}; locals.n++`,
        run: (_q, res) => {
          res.statusCode = status;
          res.locals.n = ((res.locals.n as number) ?? 0) + 1;
        },
      };
    }
    case 17: {
      const code = pick(random, [200, 201, 404]);
      const headers = pick(random, [undefined, { 'X-Head': 'h' }, { 'Content-Type': 'text/plain' }]);
      return {
        text: `writeHead(${code}, ${show(headers)})`,
        run: (_q, res) => (headers ? res.writeHead(code, headers) : res.writeHead(code)),
      };
    }
    default: {
      const chunk = pick(random, ['chunk ', 'é', '']);
      return { text: `write(${show(chunk)})`, run: (_q, res) => void res.write(chunk) };
    }
  }
}

interface Ending extends Step {
  /** A Content-Length set before it would announce a body it does not send. */
  keepsLength?: boolean;
  /** Sends a file: answers after a stat, not before the handler returns. */
  file?: boolean;
}

/**
 * How a handler ends, given the fixture file. A file sent `late` (after a first
 * ending) always has a callback: its failure (express@4 races an abort against
 * the file's stat, see `lateFileError`) would otherwise be reported or not by chance.
 */
function ending(random: Random, file: string, late = false): Ending {
  const roll = Math.floor(random() * 16);
  switch (roll) {
    case 0:
    case 1: {
      const body = pick(random, ['hello', 'héllo ☃', '', Buffer.from('bytes'), { a: 1 }, [1, 2], null, undefined, 42]);
      return { text: `send(${show(body)})`, run: (_q, res) => res.send(body) };
    }
    case 2: {
      const body = pick(random, [{ a: 1 }, 'str', null, [1], 0] as unknown[]);
      return { text: `json(${show(body)})`, run: (_q, res) => res.json(body) };
    }
    case 3: {
      const body = pick(random, [{ a: 1 }, 'str', null, 7] as unknown[]);
      return { text: `jsonp(${show(body)})`, run: (_q, res) => res.jsonp(body) };
    }
    case 4: {
      const code = pick(random, [200, 201, 204, 304, 404, 500, 299]);
      return { text: `sendStatus(${code})`, run: (_q, res) => res.sendStatus(code) };
    }
    case 5: {
      const args = pick(random, [['/to'], [301, '/to'], ['back'], [307, 'http://x.test/a b']] as unknown[][]);
      return {
        text: `redirect(${args.map(show).join(', ')})`,
        run: (_q, res) => (res.redirect as (...a: unknown[]) => void)(...args),
      };
    }
    case 6: {
      const chunk = pick(random, [undefined, 'ended', Buffer.from('buf')]);
      return {
        text: `end(${show(chunk)})`,
        keepsLength: true,
        run: (_q, res) => (chunk === undefined ? res.end() : res.end(chunk)),
      };
    }
    case 7: {
      const withDefault = chance(random, 0.4);
      return {
        text: `format({text, html, json${withDefault ? ', default' : ''}})`,
        run: (_q, res) => {
          const handlers: Record<string, () => void> = {
            'text/plain': () => res.send('plain'),
            'text/html': () => res.send('<p>html</p>'),
            json: () => res.json({ format: 1 }),
          };
          if (withDefault) handlers.default = () => res.status(406).send('none acceptable');
          res.format(handlers);
        },
      };
    }
    case 8: {
      const view = pick(random, ['page', 'page', 'missing']);
      const options = pick(random, [undefined, { name: 'opt' }]);
      return { text: `render(${show(view)}, ${show(options)})`, run: (_q, res) => res.render(view, options) };
    }
    case 9: {
      const options = pick(random, [undefined, { headers: { 'X-File': 'yes' } }, { lastModified: false, etag: false }]);
      return {
        file: true,
        text: `sendFile(<file>, ${show(options)})`,
        run: (_q, res, next) => res.sendFile(file, options ?? {}, (err) => err && next(err)),
      };
    }
    case 10: {
      const name = pick(random, [undefined, 'other.txt']);
      if (late)
        return {
          file: true,
          text: `download(<file>, ${show(name)}, callback)`,
          run: (_q, res, next) => res.download(file, name ?? 'data.txt', (err) => err && next(err)),
        };
      return {
        file: true,
        text: `download(<file>, ${show(name)})`,
        run: (_q, res) => (name === undefined ? res.download(file) : res.download(file, name)),
      };
    }
    case 11:
      return { text: 'next()', keepsLength: true, run: (_q, _r, next) => next() };
    case 12: {
      const status = pick(random, [undefined, 400, 418]);
      return {
        text: `next(err ${String(status)})`,
        run: (_q, _r, next) => next(Object.assign(new Error('boom'), status ? { status } : {})),
      };
    }
    case 13:
      return { text: 'send("x", 201)', run: (_q, res) => (res.send as (...a: unknown[]) => void)('x', 201) };
    case 14:
      return { text: 'status(404).json({ e: 1 })', run: (_q, res) => res.status(404).json({ e: 1 }) };
    default:
      return { text: 'sendStatus(404)', run: (_q, res) => res.sendStatus(404) };
  }
}

const ACCEPTS: ReadonlyArray<string | undefined> = [
  undefined,
  'text/html',
  'application/json',
  'text/plain',
  'image/png',
  '*/*',
  'text/*;q=0.5, application/json',
];

function cases(count: number, seed: number, file: string): Case[] {
  const random = prng(seed);
  return Array.from({ length: count }, (): Case => {
    const end = ending(random, file);
    let second = chance(random, 0.2) ? ending(random, file, true) : undefined;
    // Two files sent at once race on express@4 too (which one's stat comes back first
    // decides the headers' order and which callback hears ECONNABORTED): not compared.
    if (end.file && second?.file) second = undefined;
    const nodeWrites = chance(random, 0.25);
    // next() on a response already written to is left in flight by both (finalhandler
    // ignores a 404 once the head is out): the client would wait for good, so it is ended.
    if (nodeWrites && end.text === 'next()' && !second) second = { text: 'end()', run: (_q, res) => void res.end() };
    // A Content-Length the ending keeps would leave the client waiting for bytes that never come.
    const lengthAllowed = !end.keepsLength && !second?.keepsLength && !nodeWrites;
    const steps = Array.from({ length: 1 + Math.floor(random() * 6) }, () => step(random, lengthAllowed, nodeWrites));
    const endings = second ? [end, second] : [end];
    const method = pick(random, ['GET', 'GET', 'GET', 'HEAD', 'POST']);
    const headers: Record<string, string> = {};
    const accept = pick(random, ACCEPTS);
    if (accept) headers.Accept = accept;
    if (chance(random, 0.2)) headers.Referer = 'http://ref.test/from';
    const query = pick(random, ['', '', '?callback=cb', '?cb=fn.x', '?callback=a%20b']);
    const conditional =
      method !== 'POST' && chance(random, 0.35) ? pick(random, ['match', 'match', 'miss'] as const) : undefined;
    const all = [...steps, ...endings];
    return {
      label: `${method}${query} ${all.map((s) => s.text).join('.')}${conditional ? ` [${conditional}]` : ''}`,
      steps: all,
      method,
      headers,
      query,
      conditional,
    };
  });
}

function drawSettings(random: Random): Settings {
  return {
    etag: pick(random, [true, 'weak', 'strong', false] as const),
    spaces: pick(random, [undefined, 2, '\t']),
    callbackName: pick(random, ['callback', 'cb']),
    poweredBy: chance(random, 0.5),
  };
}

interface Seen {
  index: number;
  headersSent: boolean;
  name?: unknown;
  code?: unknown;
  message?: unknown;
  status?: unknown;
}

/**
 * A file sent after the response ended fails, on express@4, with whichever comes
 * first: the abort its on-finished listener reports two setImmediate turns later
 * (ECONNABORTED), or send's check of the head once the file's stat is back
 * ("Can't set headers after they are sent."). Either is that failure.
 */
function lateFileError(seen: Seen): Seen {
  if (!seen.headersSent) return seen;
  if (seen.code === 'ECONNABORTED' || seen.message === "Can't set headers after they are sent.")
    return { index: seen.index, headersSent: true, message: '<file sent after the end>' };
  return seen;
}

/** The app of one settings group: route `/c/<n>` runs case n; every error is recorded in `seen`. */
function sequenceApp(
  framework: Framework,
  list: readonly Case[],
  settings: Settings,
  views: string,
  seen: Seen[],
): http.RequestListener {
  const app = framework();
  app.set('env', 'production');
  app.set('etag', settings.etag);
  if (settings.spaces !== undefined) app.set('json spaces', settings.spaces);
  app.set('jsonp callback name', settings.callbackName);
  if (!settings.poweredBy) app.disable('x-powered-by');
  app.set('views', views);
  app.set('view engine', 'tpl');
  app.engine('tpl', (_path: string, options: object, done: (err: unknown, html?: string) => void) => {
    const { name, n } = options as { name?: unknown; n?: unknown };
    done(null, `view name=${String(name)} n=${String(n)}`);
  });
  app.all('/c/:n', (req, res, next) => {
    const index = Number(req.params.n);
    // A chunk given to res.end after the end is an 'error' event of the response.
    res.on('error', (err: Error & { code?: unknown }) =>
      seen.push({ index, headersSent: res.headersSent, name: err.name, code: err.code, message: err.message }),
    );
    (req as { secret?: string }).secret = 'keyboard cat';
    for (const s of list[Number(req.params.n)].steps) s.run(req, res, next);
  });
  app.use((err: Error & { code?: unknown; status?: unknown }, req: Request, res: Response, _next: NextFunction) => {
    seen.push(
      lateFileError({
        index: Number(/\/c\/(\d+)/.exec(req.originalUrl)?.[1]),
        headersSent: res.headersSent,
        name: err?.name,
        code: err?.code,
        message: err?.message,
        status: err?.status,
      }),
    );
    if (res.headersSent) {
      res.end();
      return;
    }
    res.statusCode = 500;
    res.removeHeader('Content-Length');
    res.end(`error ${String(err?.message)}`);
  });
  return app as unknown as http.RequestListener;
}

/** X-Powered-By is compared for its presence only (its value is the brand). */
function normalize(answer: Answer): Answer {
  return { ...answer, headers: brandHidden(answer.headers) };
}

const header = (answer: Answer, name: string): string | undefined => answer.headers.find(([n]) => n === name)?.[1];

/** What the final handler logged: each error's first line (not deprecation notices, not stack frames). */
const logged = (lines: string[]): string[] =>
  lines
    .join('')
    .split('\n')
    .filter((line) => line !== '' && !/^\s+at /.test(line) && !/ deprecated /.test(line))
    // The race of a file sent after the end (lateFileError): whether the final handler
    // hears of it at all depends on the same race, on express@4 too.
    .filter((line) => line !== "Error: Can't set headers after they are sent." && line !== 'Error: Request aborted');

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

async function compareGroup(settings: Settings, list: Case[], views: string): Promise<string[]> {
  // A connection each: what a case leaves behind (a late write, a cut) must not reach the next.
  const requestOf = (item: Case, index: number): RequestSpec => ({
    path: `/c/${index}${item.query}`,
    method: item.method,
    headers: { ...item.headers, Connection: 'close' },
  });
  // Validators come from the oracle's answer to a first request; the second request sends them.
  const first = await answersOf(sequenceApp(express, list, settings, views, []), list.map(requestOf), { raw: true });
  const requests = list.map((item, index): RequestSpec => {
    const spec = requestOf(item, index);
    if (!item.conditional) return spec;
    const headers = { ...spec.headers };
    const etag = header(first[index], 'etag');
    const modified = header(first[index], 'last-modified');
    if (item.conditional === 'match') {
      if (etag) headers['If-None-Match'] = etag;
      if (modified) headers['If-Modified-Since'] = modified;
    } else {
      headers['If-None-Match'] = '"other"';
      headers['If-Modified-Since'] = 'Thu, 01 Jan 1970 00:00:00 GMT';
    }
    return { ...spec, headers };
  });
  const side = async (fw: Framework) => {
    const seen: Seen[] = [];
    const { result: answers, lines } = await captureStderrOf(async () => {
      const result = await answersOf(sequenceApp(fw, list, settings, views, seen), requests, {
        raw: true,
        parallel: 1,
      });
      await settle();
      return result;
    });
    return { answers, seen, logged: logged(lines) };
  };
  const want = await side(express);
  const got = await side(webapp as unknown as Framework);
  const differences: string[] = [];
  if (!isDeepStrictEqual(got.logged, want.logged))
    differences.push(
      `logged on stderr ${show(settings)}\n  express: ${show(want.logged)}\n  webapp:  ${show(got.logged)}`,
    );
  for (let i = 0; i < list.length; i++) {
    const expected = { answer: normalize(want.answers[i]), errors: want.seen.filter((s) => s.index === i) };
    const actual = { answer: normalize(got.answers[i]), errors: got.seen.filter((s) => s.index === i) };
    if (!isDeepStrictEqual(actual, expected))
      differences.push(
        `#${i} ${show(settings)} ${list[i].label} ${show(requests[i].headers)}\n` +
          `  express: ${inspect(expected, { breakLength: Infinity, depth: 4, maxStringLength: 300 })}\n` +
          `  webapp:  ${inspect(actual, { breakLength: Infinity, depth: 4, maxStringLength: 300 })}`,
      );
  }
  return differences;
}

describe('generated sequences of response calls compared with express@4', () => {
  const deprecations = process.noDeprecation;
  let dir = '';
  let file = '';
  before(() => {
    Date.now = () => NOW;
    process.noDeprecation = true;
    dir = mkdtempSync(join(tmpdir(), 'webapp-sequences-'));
    file = join(dir, 'data.txt');
    writeFileSync(file, 'file body\n');
    utimesSync(file, new Date(1e12), new Date(1e12));
    writeFileSync(join(dir, 'page.tpl'), 'unused: the engine makes the page');
  });
  after(() => {
    Date.now = realNow;
    process.noDeprecation = deprecations;
    rmSync(dir, { recursive: true, force: true });
  });

  it('1 to 6 calls, then an ending (or two), under generated settings and requests', { timeout: 60_000 }, async () => {
    const random = prng(0x5e9);
    const groups = 8;
    const perGroup = 50;
    const differences: string[] = [];
    for (let g = 0; g < groups; g++) {
      const settings = drawSettings(random);
      differences.push(...(await compareGroup(settings, cases(perGroup, 0x5e90 + g, file), dir)));
    }
    assertNoDifferences(differences, groups * perGroup, 'generated sequences differ from express@4', 12);
  });
});
