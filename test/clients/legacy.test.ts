/**
 * Downloads cut short on webapp/v3 (against express@3.21) and on webapp/middleware's
 * static (against Connect 2.30's): static, res.sendfile with and without a callback,
 * res.download, ranges, and many clients leaving at once. The callbacks must be
 * Express 3's (but for a file cut mid-transfer, whose callback hears ECONNABORTED where
 * 3.21 never called it), the server must keep serving, and no file may stay open.
 */
import { express3 } from '../support/legacy-oracles';
import assert from 'node:assert/strict';
import http from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import webapp3 = require('../../src/v3/index');
import middleware = require('../../src/middleware/index');
import { oracleNotLive } from '../support/oracle-recording';
import { createFiles, openFilesUnder, ServerLog, settles, start, type Files } from './support';

// Connect 2.30, the oracle for webapp/middleware (loaded after legacy-oracles moved its patch).
const connect = require('connect') as Statics;

let files: Files;
before(() => {
  files = createFiles();
});
after(() => files.cleanup());

type Framework3 = typeof express3;
/** What provides a static middleware: Connect 2.30, or webapp/middleware. */
type Statics = { static(root: string): unknown };

type Callback = (err?: { code?: string }) => void;
interface LegacyRequest extends http.IncomingMessage {
  params: Record<string, string>;
}
interface LegacyResponse extends http.ServerResponse {
  sendfile(path: string, fn?: Callback): void;
  download(path: string, fn?: Callback): void;
  send(body: string): void;
}

function legacyApp(framework: Framework3, statics: Statics, log: ServerLog): http.RequestListener {
  const app = framework();
  app.set('env', 'test');
  app.use((req: LegacyRequest, res: LegacyResponse, next: () => void) => {
    // Read now: mounted middleware rewrites `req.url` while it runs.
    const url = req.url;
    res.on('close', () => log.add(`res close @ ${url}`));
    next();
  });
  app.use('/static', framework.static(files.root));
  app.use('/connect', statics.static(files.root));
  const logged = (name: string, req: LegacyRequest): Callback => {
    const url = req.url;
    return (err) => log.add(`${name} ${err ? err.code : 'ok'} @ ${url}`);
  };
  app.get('/sendfile/:name', (req: LegacyRequest, res: LegacyResponse) =>
    res.sendfile(join(files.root, req.params.name), logged('sendfile', req)),
  );
  app.get('/sendfile-nocb/:name', (req: LegacyRequest, res: LegacyResponse) =>
    res.sendfile(join(files.root, req.params.name)),
  );
  app.get('/download/:name', (req: LegacyRequest, res: LegacyResponse) =>
    res.download(join(files.root, req.params.name), logged('download', req)),
  );
  app.get('/small', (req: LegacyRequest, res: LegacyResponse) => res.send('still serving'));
  return app as http.RequestListener;
}

/** GETs `path`, takes the first bytes of the answer, and leaves. */
function leaveAfterFirstBytes(port: number, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve(res.statusCode ?? 0);
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? undefined : reject(err)));
  });
}

async function onBothLegacy<T>(scenario: (port: number, log: ServerLog) => Promise<T>) {
  const results: T[] = [];
  for (const [framework, statics] of [
    [express3, connect],
    [webapp3, middleware],
  ] as Array<[Framework3, Statics]>) {
    const log = new ServerLog();
    const running = await start(legacyApp(framework, statics, log));
    try {
      results.push(await scenario(running.port, log));
    } finally {
      await running.close();
    }
  }
  return { express3: results[0], webapp3: results[1] };
}

describe('webapp/v3 and webapp/middleware static: downloads cut short, against express@3 and Connect 2.30', () => {
  const needsOracles = { skip: oracleNotLive('express@3 and Connect 2.30 as they run') };

  it(
    'static, sendfile, download, and ranges: the same callbacks, every file closed, the server serving',
    needsOracles,
    async () => {
      const paths: Array<[string, Record<string, string>, string]> = [
        ['/static/large.bin', {}, 'res close @ /static/large.bin'],
        ['/connect/large.bin', {}, 'res close @ /connect/large.bin'],
        ['/static/large.bin', { range: 'bytes=100-30000000' }, 'res close @ /static/large.bin'],
        ['/connect/large.bin', { range: 'bytes=100-' }, 'res close @ /connect/large.bin'],
        ['/sendfile/large.bin', {}, 'res close @ /sendfile/large.bin'],
        ['/sendfile-nocb/large.bin', {}, 'res close @ /sendfile-nocb/large.bin'],
        ['/download/large.bin', { range: 'bytes=0-' }, 'res close @ /download/large.bin'],
      ];
      const { express3: oracle, webapp3: subject } = await onBothLegacy(async (port, log) => {
        const seen: string[] = [];
        for (const [path, headers, done] of paths) {
          const from = log.entries.length;
          const status = await leaveAfterFirstBytes(port, path, headers);
          await log.seenAfter(from, done);
          seen.push(`${status} ${path}: ${log.entries.slice(from).join(', ')}`);
        }
        const closed = await settles(() => openFilesUnder(files.root) === 0);
        const served = await new Promise<string>((resolve) =>
          http.get({ host: '127.0.0.1', port, path: '/small', agent: false }, (res) => {
            res.setEncoding('utf8');
            let body = '';
            res.on('data', (chunk: string) => (body += chunk));
            res.on('end', () => resolve(body));
          }),
        );
        return { seen, served, closed };
      });
      // One difference on purpose: a file cut mid-transfer calls its callback with
      // ECONNABORTED, where 3.21 never called it (a download's temporary file removed
      // there stayed on disk; docs/migrating-from-express-3.md, "Late errors and
      // aborted files").
      const aborted = /(?:sendfile|download) ECONNABORTED @ [^,]+, /;
      assert.deepEqual(
        subject.seen.filter((line) => aborted.test(line)).map((line) => line.split(':')[0]),
        ['200 /sendfile/large.bin', '206 /download/large.bin'],
      );
      const seen = subject.seen.map((line) => line.replace(aborted, ''));
      assert.deepEqual({ ...subject, seen }, { ...oracle, closed: true });
    },
  );

  it('many clients leaving the same large file at once leave no file open on webapp/v3', async () => {
    const log = new ServerLog();
    const running = await start(legacyApp(webapp3 as unknown as Framework3, middleware as unknown as Statics, log));
    try {
      const leaving: Array<Promise<number>> = [];
      for (let i = 0; i < 24; i++) {
        const path = ['/static/large.bin', '/connect/large.bin', '/sendfile/large.bin', '/download/large.bin'][i % 4];
        leaving.push(leaveAfterFirstBytes(running.port, path, i % 3 ? {} : { range: `bytes=${i}-` }));
      }
      await Promise.all(leaving);
      assert.equal(await settles(() => openFilesUnder(files.root) === 0), true, `${openFilesUnder(files.root)} open`);
    } finally {
      await running.close();
    }
  });
});
