/**
 * Generated async-handler cases (seeded; WEBAPP_TEST_SEED draws others): async
 * middleware, route handlers, param callbacks and error handlers that resolve, reject
 * (with an Error or with a string, undefined, null, 0, '', an object without a
 * prototype, a frozen error), call `next` and reject, answer and reject, reject after
 * `res.end`, after a partial write or after the client left; wrapped by
 * express-async-handler, in express-async-router's routers, returning thenables or
 * promises of another realm; in mounted apps and nested routers; GET and HEAD.
 *
 * Each framework serves every case from a child process of its own (a crash, an
 * unhandled rejection or a warning must be seen, and express-async-errors patches the
 * Layer of the framework it is loaded for): express@4 with express-async-errors (the
 * oracle), webapp alone, and webapp with express-async-errors. For each case the
 * client's answer (status, body, or the error that cut it), which functions ran and
 * with what error, how many response heads went out on the socket, what was written to
 * stderr or emitted as a warning, and whether the process still answers must match.
 * Webapp alone differs where the migration guide says it does: a rejection without a
 * reason (undefined, null, 0, '') is `Error('Rejected promise')` instead of `next()`,
 * and a rejected thenable that is not a native promise is left alone; those cases
 * are held to the invariants only (alive, silent, one response at most).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Module from 'node:module';
import { join } from 'node:path';
import { inspect } from 'node:util';
import vm from 'node:vm';
import { pick, prng, type Random } from '../support/prng';

type Any = any;

const WHERE = [
  'app',
  'route',
  'route2',
  'param',
  'router',
  'nested',
  'subapp',
  'errorHandler',
  'routerParam',
  'asyncRouterUse',
  'asyncRouterRoute',
] as const;
const WRAP = ['async', 'asyncHandler', 'vm', 'thenable'] as const;
const ACT = [
  'resolveSend',
  'resolveNext',
  'reject',
  'reject',
  'nextThenReject',
  'nextErrThenRejectSame',
  'nextErrThenRejectOther',
  'sendThenReject',
  'endThenRejectLater',
  'writeThenReject',
  'clientGoneThenReject',
  'nextRoute',
  'nextRouter',
  'nextRouteThenReject',
] as const;
const REASON = [
  'error',
  'status',
  'string',
  'undefined',
  'null',
  'zero',
  'empty',
  'nullProto',
  'frozen',
  'routeString',
] as const;
const TIMING = ['sync', 'await', 'immediate'] as const;
const HANDLER = ['guarded', 'naive', 'asyncGuarded'] as const;

interface Case {
  where: (typeof WHERE)[number];
  wrap: (typeof WRAP)[number];
  act: (typeof ACT)[number];
  reason: (typeof REASON)[number];
  timing: (typeof TIMING)[number];
  method: 'GET' | 'HEAD';
  handler: (typeof HANDLER)[number];
}

const CASES = 360;

function generate(random: Random): Case[] {
  const cases: Case[] = [];
  while (cases.length < CASES) {
    const where = pick(random, WHERE);
    let wrap = pick(random, WRAP);
    // express-async-handler's wrapper declares no parameters (not an error handler) and
    // calls the last argument (a param callback's is the parameter's name): not for those.
    if (wrap === 'asyncHandler' && (where === 'errorHandler' || where === 'param' || where === 'routerParam'))
      wrap = 'async';
    if (where.startsWith('asyncRouter')) wrap = 'async';
    cases.push({
      where,
      wrap,
      act: pick(random, ACT),
      reason: pick(random, REASON),
      timing: pick(random, TIMING),
      method: random() < 0.2 ? 'HEAD' : 'GET',
      handler: pick(random, HANDLER),
    });
  }
  return cases;
}

function rejects(c: Case): boolean {
  return c.act !== 'resolveSend' && c.act !== 'resolveNext' && c.act !== 'nextRoute' && c.act !== 'nextRouter';
}

/** What the migration guide says webapp alone does differently from Express with express-async-errors. */
function documentedForWebappAlone(c: Case): boolean {
  if (!rejects(c)) return false;
  if (c.wrap === 'thenable') return true;
  // next(err) then rejecting with a falsy reason: only the thrown value is falsy.
  return c.reason === 'undefined' || c.reason === 'null' || c.reason === 'zero' || c.reason === 'empty';
}

// ---------------------------------------------------------------------------
// The child: serves every case, one app per case, at /c/<n>/...

interface CaseRecord {
  trail: string[];
  heads: number;
  stderr: string[];
}

function reasonOf(kind: Case['reason']): unknown {
  switch (kind) {
    case 'error':
      return new Error('boom');
    case 'status':
      return Object.assign(new Error('teapot'), { status: 418 });
    case 'string':
      return 'a string';
    case 'undefined':
      return undefined;
    case 'null':
      return null;
    case 'zero':
      return 0;
    case 'empty':
      return '';
    case 'nullProto':
      return Object.assign(Object.create(null), { message: 'no prototype', status: 409 });
    case 'frozen':
      return Object.freeze(Object.assign(new Error('frozen'), { status: 422 }));
    case 'routeString':
      return 'route';
  }
}

function describeError(err: Any): string {
  if (err !== null && typeof err === 'object') {
    return `${typeof err.message === 'string' ? err.message : '?'}/${String(err.status ?? err.code ?? '-')}`;
  }
  return `${typeof err}:${String(err)}`;
}

const tick = (timing: Case['timing']): Promise<void> | undefined =>
  timing === 'await' ? Promise.resolve() : timing === 'immediate' ? new Promise((r) => setImmediate(r)) : undefined;

/** The body of the function under test: what it does, as an async function (req, res, next). */
function body(c: Case, rec: CaseRecord) {
  return async (req: Any, res: Any, next: Any): Promise<unknown> => {
    rec.trail.push('F');
    const wait = tick(c.timing);
    if (wait) await wait;
    const reason = reasonOf(c.reason);
    switch (c.act) {
      case 'resolveSend':
        res.send('F answered');
        return undefined;
      case 'resolveNext':
        next();
        return undefined;
      case 'reject':
        throw reason;
      case 'nextThenReject':
        next();
        throw reason;
      case 'nextErrThenRejectSame': {
        const err = new Error('passed and thrown');
        next(err);
        throw err;
      }
      case 'nextErrThenRejectOther':
        next(new Error('passed'));
        throw reason;
      case 'sendThenReject':
        res.send('sent first');
        throw reason;
      case 'endThenRejectLater':
        res.end('ended');
        await new Promise((r) => setImmediate(r));
        throw reason;
      case 'writeThenReject':
        res.setHeader('Content-Type', 'text/plain');
        res.write('part of it');
        await new Promise((r) => setImmediate(r));
        throw reason;
      case 'clientGoneThenReject':
        await new Promise((r) => res.once('close', r));
        throw reason;
      case 'nextRoute':
        next('route');
        return undefined;
      case 'nextRouter':
        next('router');
        return undefined;
      case 'nextRouteThenReject':
        next('route');
        throw reason;
    }
  };
}

/** Realm-crossing helper: an async function of another realm that awaits what it is given. */
const otherRealm = vm.runInNewContext('(f) => (async () => f())()') as (f: () => unknown) => Promise<unknown>;

/** The function under test, wrapped as the case says, with the parameter count of its place. */
function underTest(c: Case, rec: CaseRecord, asyncHandler: Any): Any {
  const run = body(c, rec);
  const wrapped = (...args: Any[]): unknown => {
    // Request-shaped arguments (req, res, next) from every place.
    let req: Any, res: Any, next: Any;
    if (c.where === 'errorHandler') [, req, res, next] = args;
    else [req, res, next] = args;
    if (c.wrap === 'vm') return otherRealm(() => run(req, res, next));
    if (c.wrap === 'thenable') {
      const promise = run(req, res, next);
      return {
        then: (ok: Any, fail: Any) => promise.then(ok, fail),
        catch: (fail: Any) => promise.then(undefined, fail),
      };
    }
    return run(req, res, next);
  };
  if (c.wrap === 'asyncHandler') return asyncHandler((req: Any, res: Any, next: Any) => wrapped(req, res, next));
  if (c.where === 'errorHandler') return (err: Any, req: Any, res: Any, next: Any) => wrapped(err, req, res, next);
  if (c.where === 'param' || c.where === 'routerParam')
    return (req: Any, res: Any, next: Any, _value: Any) => wrapped(req, res, next);
  return (req: Any, res: Any, next: Any) => wrapped(req, res, next);
}

const answer =
  (rec: CaseRecord, name: string) =>
  (_req: Any, res: Any): void => {
    rec.trail.push(name);
    res.send(name);
  };
const pass =
  (rec: CaseRecord, name: string) =>
  (_req: Any, _res: Any, next: Any): void => {
    rec.trail.push(name);
    next();
  };

function errorHandler(c: Case, rec: CaseRecord, name: string): Any {
  const respond = (err: Any, res: Any): void => {
    res.status(typeof err?.status === 'number' ? err.status : 500).send(`${name}: ${describeError(err)}`);
  };
  if (c.handler === 'naive')
    return (err: Any, _req: Any, res: Any, _next: Any) => {
      rec.trail.push(`${name}(${describeError(err)})`);
      respond(err, res);
    };
  if (c.handler === 'guarded')
    return (err: Any, _req: Any, res: Any, next: Any) => {
      rec.trail.push(`${name}(${describeError(err)})`);
      if (res.headersSent) return next(err);
      respond(err, res);
    };
  return async (err: Any, _req: Any, res: Any, next: Any) => {
    rec.trail.push(`${name}(${describeError(err)})`);
    await null;
    if (res.headersSent) return next(err);
    respond(err, res);
  };
}

interface Libraries {
  asyncHandler: Any;
  AsyncRouter: Any;
}

/** The app of one case (pathOf gives the path to request). */
function buildCase(fw: Any, libs: Libraries, c: Case, rec: CaseRecord): Any {
  const app = fw();
  const F = underTest(c, rec, libs.asyncHandler);
  switch (c.where) {
    case 'app':
      app.use(F);
      app.get('/x', answer(rec, 'route'));
      break;
    case 'route':
      app.get('/x', F, answer(rec, 'second handler'));
      app.get('/x', answer(rec, 'next route'));
      break;
    case 'route2':
      app.get('/x', pass(rec, 'first handler'), F);
      app.get('/x', answer(rec, 'next route'));
      break;
    case 'param':
      app.param('id', F);
      app.get('/:id', answer(rec, 'route'));
      app.get('/:id', answer(rec, 'next route'));
      break;
    case 'router': {
      const router = fw.Router();
      router.use(F);
      router.get('/x', answer(rec, 'router route'));
      router.use(errorHandler(c, rec, 'router handler'));
      app.use('/r', router);
      app.get('/r/x', answer(rec, 'after router'));
      break;
    }
    case 'nested': {
      const outer = fw.Router();
      const inner = fw.Router({ mergeParams: true });
      inner.get('/:id', F, answer(rec, 'second handler'));
      inner.get('/:id', answer(rec, 'next route'));
      outer.use('/in', inner);
      outer.use(answer(rec, 'after inner'));
      app.use('/r', outer);
      break;
    }
    case 'subapp': {
      const sub = fw();
      sub.use(pass(rec, 'sub middleware'));
      sub.get('/x', F);
      sub.get('/x', answer(rec, 'sub next route'));
      sub.use(errorHandler(c, rec, 'sub handler'));
      app.use('/s', sub);
      app.get('/s/x', answer(rec, 'after sub-app'));
      break;
    }
    case 'errorHandler':
      app.get('/x', (_req: Any, _res: Any, next: Any) => {
        rec.trail.push('route');
        next(Object.assign(new Error('first'), { status: 400 }));
      });
      app.use(F);
      app.get('/x', answer(rec, 'next route'));
      break;
    case 'routerParam': {
      const router = fw.Router();
      router.param('id', F);
      router.get('/:id', answer(rec, 'router route'));
      app.use('/r', router);
      app.get('/r/:id', answer(rec, 'after router'));
      break;
    }
    case 'asyncRouterUse': {
      const router = libs.AsyncRouter();
      router.use(F);
      router.get('/x', async () => {
        rec.trail.push('async router route');
        return 'async router route';
      });
      app.use('/r', router);
      app.get('/r/x', answer(rec, 'after router'));
      break;
    }
    case 'asyncRouterRoute': {
      const router = libs.AsyncRouter();
      router.get('/x', F);
      router.get('/x', answer(rec, 'next route'));
      app.use('/r', router);
      app.get('/r/x', answer(rec, 'after router'));
      break;
    }
  }
  app.use(errorHandler(c, rec, 'app handler'));
  return app;
}

/** Loads `id` with its `require` of Express's files redirected to webapp's. */
function loadForWebapp(id: string, redirects: Record<string, string>): Any {
  const resolve = (Module as Any)._resolveFilename;
  (Module as Any)._resolveFilename = function (request: string, ...rest: Any[]) {
    if (Object.prototype.hasOwnProperty.call(redirects, request)) return redirects[request];
    return resolve.call(this, request, ...rest);
  };
  try {
    return require(id);
  } finally {
    (Module as Any)._resolveFilename = resolve;
  }
}

function runChild(mode: string): void {
  let fw: Any;
  let libs: Libraries;
  const src = join(__dirname, '../../src');
  if (mode === 'express+eae') {
    require('express-async-errors');
    fw = require('express');
    libs = { asyncHandler: require('express-async-handler'), AsyncRouter: require('express-async-router').AsyncRouter };
  } else {
    fw = require(join(src, 'index'));
    if (mode === 'webapp+eae') {
      loadForWebapp('express-async-errors', {
        'express/lib/router/layer': require.resolve(join(src, 'lib/router/layer')),
        'express/lib/router': require.resolve(join(src, 'lib/router/index')),
      });
    }
    const { loadWithExpressAs } = require('../support/express-alias') as typeof import('../support/express-alias');
    libs = {
      asyncHandler: require('express-async-handler'),
      AsyncRouter: loadWithExpressAs(fw, 'express-async-router').AsyncRouter,
    };
  }
  const cases = generate(prng(0xa5c));
  const records: CaseRecord[] = cases.map(() => ({ trail: [], heads: 0, stderr: [] }));
  const apps = cases.map((c, i) => buildCase(fw, libs, c, records[i]!));
  let current = -1;
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: Any, ...rest: Any[]) => {
    if (current >= 0) records[current]!.stderr.push(String(chunk));
    return write(chunk, ...rest);
  }) as typeof process.stderr.write;
  process.on('warning', (warning) => {
    if (current >= 0) records[current]!.stderr.push(`warning event: ${warning.name}: ${warning.message}`);
  });
  const server = http.createServer((req: Any, res: Any) => {
    const match = /^\/(c|record)\/(\d+)(\/.*)?$/.exec(req.url);
    if (match === null) return res.end('alive');
    const n = Number(match[2]);
    if (match[1] === 'record') {
      // Late work of the case (rejections after the answer, an async error handler) first.
      setTimeout(() => res.end(JSON.stringify(records[n])), 10);
      return;
    }
    current = n;
    // The client of a case where it leaves waits for this line.
    process.stdout.write(`received ${n}\n`);
    const socket: Any = req.socket;
    const socketWrite = socket.write;
    socket.write = function (chunk: Any, ...rest: Any[]) {
      if (String(typeof chunk === 'string' ? chunk.slice(0, 9) : chunk.subarray(0, 9)) === 'HTTP/1.1 ')
        records[n]!.heads++;
      return socketWrite.call(this, chunk, ...rest);
    };
    // An answer for a case where nothing answers, so that a hang costs little (not where the client leaves).
    if (cases[n]!.act !== 'clientGoneThenReject')
      setTimeout(() => {
        if (!res.headersSent && !res.destroyed) {
          records[n]!.trail.push('fallback');
          res.statusCode = 599;
          res.end('fallback');
        }
      }, 300).unref();
    req.url = match[3];
    apps[n]!(req, res);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`);
  });
}

// ---------------------------------------------------------------------------
// The parent: drives each framework's child and compares.

interface Observed {
  answer: string;
  trail: string[];
  heads: number;
  stderr: string[];
  alive: boolean;
}

interface Child {
  process: ChildProcess;
  port: number;
  output: string[];
  /** Resolves once the child has received the request of case `n`. */
  received(n: number): Promise<void>;
}

async function startChild(mode: string): Promise<Child> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', __filename], {
    env: { ...process.env, GENERATED_ASYNC_CHILD: mode, NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
  let text = '';
  const waiting = new Map<number, () => void>();
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      const found = /port (\d+)/.exec(text);
      if (found) resolve(Number(found[1]));
      for (const [n, wake] of waiting) if (text.includes(`received ${n}\n`)) wake();
    });
    child.once('exit', (code) => reject(new Error(`${mode} child exited (${code}): ${output.join('')}`)));
  });
  const received = (n: number): Promise<void> =>
    text.includes(`received ${n}\n`)
      ? Promise.resolve()
      : new Promise((resolve) => waiting.set(n, () => (waiting.delete(n), resolve())));
  return { process: child, port, output, received };
}

function send(port: number, method: string, path: string, leaveWhen?: Promise<void>): Promise<string> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (text: string): void => {
      if (!settled) {
        settled = true;
        resolve(text);
      }
    };
    const req = http.request({ host: '127.0.0.1', port, method, path, agent: false }, (res) => {
      let text = '';
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(`${res.statusCode} ${cutStack(text)}`));
      res.on('error', (err: Any) => done(`${res.statusCode} ${cutStack(text)} (cut: ${err.code ?? err.message})`));
      res.on('aborted', () => done(`${res.statusCode} ${cutStack(text)} (aborted)`));
    });
    req.on('error', (err: Any) => done(`error ${err.code ?? err.message}`));
    req.setTimeout(1000, () => {
      done('hang');
      req.destroy();
    });
    // The client leaves once the request reached the app (and a little later, so that its handler waits).
    void leaveWhen?.then(() =>
      setTimeout(() => {
        done('client left');
        req.destroy();
      }, 5),
    );
    req.end();
  });
}

/** The final handler's page outside production shows a stack whose frames differ. */
function cutStack(text: string): string {
  const at = text.indexOf('<br> &nbsp; &nbsp;at ');
  return at === -1 ? text : text.slice(0, at);
}

async function observeAll(mode: string, cases: Case[]): Promise<Observed[]> {
  let child = await startChild(mode);
  const observed: Observed[] = [];
  try {
    for (let n = 0; n < cases.length; n++) {
      const c = cases[n]!;
      // Left alone by webapp as by Express 4 (documented): the rejection is unhandled, and the process ends.
      if (mode === 'webapp' && c.wrap === 'thenable' && rejects(c)) {
        observed.push({ answer: 'not run', trail: [], heads: 0, stderr: [], alive: true });
        continue;
      }
      const path = `/c/${n}${pathOf(c)}`;
      const from = child.output.length;
      const answer = await send(
        child.port,
        c.method,
        path,
        c.act === 'clientGoneThenReject' ? child.received(n) : undefined,
      );
      const record = await send(child.port, 'GET', `/record/${n}`);
      const alive = (await send(child.port, 'GET', '/alive')) === '200 alive';
      let parsed: CaseRecord = { trail: [], heads: -1, stderr: [] };
      if (record.startsWith('200 ')) parsed = JSON.parse(record.slice(4)) as CaseRecord;
      else parsed.stderr = child.output.slice(from);
      observed.push({
        answer,
        trail: parsed.trail,
        heads: parsed.heads,
        stderr: parsed.stderr.map((line) => line.split('\n')[0]!),
        alive,
      });
      if (!alive) {
        child.process.kill();
        child = await startChild(mode);
      }
    }
  } finally {
    child.process.kill();
  }
  return observed;
}

function pathOf(c: Case): string {
  switch (c.where) {
    case 'router':
    case 'routerParam':
    case 'asyncRouterUse':
    case 'asyncRouterRoute':
      return '/r/x';
    case 'nested':
      return '/r/in/x';
    case 'subapp':
      return '/s/x';
    default:
      return '/x';
  }
}

if (process.env.GENERATED_ASYNC_CHILD) {
  runChild(process.env.GENERATED_ASYNC_CHILD);
} else {
  const { describe, it } = require('node:test') as typeof import('node:test');
  describe('generated async handlers against express@4 with express-async-errors', () => {
    const cases = generate(prng(0xa5c));
    const results = Promise.all([
      observeAll('express+eae', cases),
      observeAll('webapp', cases),
      observeAll('webapp+eae', cases),
    ]);

    const show = (c: Case, n: number, want: Observed, got: Observed): string =>
      `#${n} ${inspect(c, { breakLength: Infinity })}\n` +
      `  express+eae: ${inspect(want, { breakLength: Infinity })}\n` +
      `  webapp:      ${inspect(got, { breakLength: Infinity })}`;

    function invariants(o: Observed): boolean {
      return o.alive && o.stderr.length === 0 && o.heads <= 1 && o.answer !== 'hang';
    }

    it('webapp with express-async-errors answers every case as express@4 with it', async () => {
      const [oracle, , both] = await results;
      const differences: string[] = [];
      for (let n = 0; n < cases.length; n++) {
        if (!isSame(oracle[n]!, both[n]!)) differences.push(show(cases[n]!, n, oracle[n]!, both[n]!));
      }
      assert.equal(
        differences.length,
        0,
        `${differences.length} of ${cases.length} differ:\n${differences.slice(0, 12).join('\n')}`,
      );
    });

    it('webapp alone answers every case as express@4 with express-async-errors, but the documented ones', async () => {
      const [oracle, alone] = await results;
      const differences: string[] = [];
      for (let n = 0; n < cases.length; n++) {
        const c = cases[n]!;
        const ok = documentedForWebappAlone(c)
          ? invariants(alone[n]!) || (alone[n]!.answer === 'hang' && oracle[n]!.answer === 'hang')
          : isSame(oracle[n]!, alone[n]!);
        if (!ok) differences.push(show(c, n, oracle[n]!, alone[n]!));
      }
      assert.equal(
        differences.length,
        0,
        `${differences.length} of ${cases.length} differ:\n${differences.slice(0, 12).join('\n')}`,
      );
    });
  });
}

function isSame(want: Observed, got: Observed): boolean {
  return (
    want.answer === got.answer &&
    want.alive === got.alive &&
    want.heads === got.heads &&
    JSON.stringify(want.trail) === JSON.stringify(got.trail) &&
    JSON.stringify(want.stderr) === JSON.stringify(got.stderr)
  );
}
