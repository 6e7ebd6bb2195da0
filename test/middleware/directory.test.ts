/**
 * `directory(root, options)`: listings through real HTTP over a fixture tree
 * with hostile names, the same status codes, headers and JSON/text bodies as
 * Connect 2.30's `connect.directory` (serve-index 1.7.3), and an HTML page
 * asserted by content (it is webapp's own page).
 */
import assert from 'node:assert/strict';
import fs, { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { after, describe, it } from 'node:test';
import { escapeHtml } from '../../src/http/escape-html';
import { directory, type TemplateLocals } from '../../src/middleware/directory/index';
import { preferredMediaType } from '../../src/middleware/connect-negotiation';
import { compareEntries, entryHref, fillTemplate, linkedPath } from '../../src/middleware/directory/html';
import { iconKindOf, type IconKind } from '../../src/middleware/directory/icons';
import { resolveListing, rootPathOf } from '../../src/middleware/directory/resolve';
import {
  assertSameAsConnect,
  rawRequest,
  requestAll,
  withServer,
  type Handler,
  type RawResponse,
  type RequestSpec,
} from './support';
import { itWithLiveOracle, oracleRunValue } from '../support/oracle-recording';
import { exchange } from '../support/raw-http';

const connect = require('connect');

const FILE_TIME = new Date('2021-03-04T05:06:07Z');
// Paths under it show in error answers: a run value, so recorded oracle answers replay with this run's.
const base = oracleRunValue('directory base', mkdtempSync(join(tmpdir(), 'webapp-directory-')));
const root = join(base, 'root');
const SECRET = 'TOP-SECRET-' + process.pid;
const FILES: Record<string, string> = {
  'a&b.txt': 'ampersand',
  '<script>alert(1)<\\script>.html': 'tag',
  'foo bar.txt': 'spaced',
  'snow ☃.txt': 'snowman',
  '%41 100%.txt': 'percent',
  'q"uote\'s.txt': 'quotes',
  'hash#?.txt': 'hash and question mark',
  '$& {directory}.txt': 'replacement patterns',
  'Zeta.md': 'capital',
  'alpha.txt': 'alpha',
  'photo.png': 'png',
  'bundle.tar.gz': 'gz',
  'app.js': 'js',
  '.hidden': 'dot file',
  'sub/nested.txt': 'nested',
  'sub/.dotfile': 'nested dot file',
  'Beta dir/inner.txt': 'inner',
  'ünïcödé/é.txt': 'unicode',
};
for (const [name, content] of Object.entries(FILES)) {
  const path = join(root, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  utimesSync(path, FILE_TIME, FILE_TIME);
}
mkdirSync(join(root, 'emptydir'));
// A name that is not UTF-8: the file system hands it back with U+FFFD in place of the byte.
writeFileSync(
  Buffer.concat([Buffer.from(join(root, 'Beta dir') + sep + 'raw-'), Buffer.from([0xff]), Buffer.from('.bin')]),
  'raw',
);
writeFileSync(join(base, 'secret.txt'), SECRET);
mkdirSync(join(base, 'root-sibling'));
writeFileSync(join(base, 'root-sibling', 'secret.txt'), SECRET);
after(() => rmSync(base, { recursive: true, force: true }));

/** What runs after the middleware: proves `next()` was called without an error. */
const passed: Handler = (_req: IncomingMessage, res: ServerResponse) => {
  res.setHeader('X-Next', 'called');
  res.end('next');
};

/**
 * Makes `fs[method]` (callback form) fail for paths `matches` finds, with an Error of
 * `message` and the other fields of `failure`, on the next tick; returns the function
 * that puts Node's back. The oracle and the middleware both call it.
 */
function failFsCall(
  method: 'stat' | 'readdir',
  matches: RegExp,
  failure: { message: string; code: string; syscall?: string },
): () => void {
  const target = fs as unknown as Record<string, (...args: any[]) => void>;
  const original = target[method];
  const { message, ...fields } = failure;
  target[method] = function (this: unknown, ...args: any[]) {
    if (!matches.test(String(args[0]))) return original.apply(this, args);
    process.nextTick(args[args.length - 1], Object.assign(new Error(message), fields));
  };
  return () => {
    target[method] = original;
  };
}

/** An error handler showing what an error page reads of the error: its fields, its message where `expose` allows. */
const describeError: Handler = (err: any, _req: IncomingMessage, res: ServerResponse, _next: unknown) => {
  res.setHeader('Content-Type', 'application/json');
  res.end(
    JSON.stringify({
      status: err.status,
      statusCode: err.statusCode,
      expose: err.expose,
      keys: Object.keys(err).sort(),
      shown: err.expose ? err.message : '',
    }),
  );
};

function get(path: string, accept?: string, method = 'GET'): RequestSpec {
  return accept === undefined ? { method, path } : { method, path, headers: { accept } };
}

async function fetchOne(handlers: Handler[], spec: RequestSpec): Promise<RawResponse> {
  const [res] = await requestAll(handlers, [spec]);
  return res;
}

/** Bodies come back as latin1 (support.ts keeps bytes); HTML and listings are UTF-8. */
function utf8(res: RawResponse): string {
  return Buffer.from(res.body, 'latin1').toString('utf8');
}

/** HTML pages differ by design: compare their status and headers, not the body or its length. */
function withoutHtmlBody(res: RawResponse): RawResponse {
  if (!String(res.headers['content-type'] ?? '').startsWith('text/html')) return res;
  const headers = { ...res.headers };
  delete headers['content-length'];
  return { ...res, headers, body: '<html page>' };
}

const ACCEPTS = [
  undefined,
  '',
  '*/*',
  'application/json',
  'text/plain',
  'text/html',
  'TEXT/PLAIN',
  'text/*',
  'application/*',
  'text/plain;q=0.5, application/json',
  'application/json;q=0.2, text/plain',
  'application/json, text/html;q=0.9',
  '*/*;q=0.1, application/json;q=0.5',
  'text/html;level=1',
  'text/plain; charset=utf-8',
  'image/png',
  'application/json;q=0',
  'text/*;q=0, application/json;q=0',
  'application/xml, image/*',
  ',,;;',
];

/** [raw request path, status]; 404 means the middleware passed to next(). */
const HOSTILE: Array<[string, number]> = [
  ['/..', 403],
  ['/../', 403],
  ['/../secret.txt', 403],
  ['/../root-sibling/', 403],
  ['/../../../../etc/', 403],
  ['/%2e%2e', 403],
  ['/%2e%2e/', 403],
  ['/%2E%2e%2f', 403],
  ['/.%2e/', 403],
  ['/..%2froot-sibling', 403],
  ['/sub/../..', 403],
  ['/sub/%2e%2e/%2e%2e/', 403],
  ['/sub/..%2f..%2f..%2f', 403],
  ['/%2F..%2F..%2F', 403],
  ['/' + '..%2f'.repeat(40) + 'etc', 403],
  ['/%00', 400],
  ['/sub%00', 400],
  ['/..%00/', 400],
  ['/%00../', 400],
  ['/%', 400],
  ['/sub/%zz', 400],
  ['/%c0%ae%c0%ae/', 400],
  ['/..%c0%af', 400],
  ['/..%u2216', 400],
  ['/%E0%A4%A', 400],
  ['/..%5c', 404],
  ['/..\\', 404],
  ['/%5c..%5c', 404],
  ['/%252e%252e/', 404],
  ['/..%252f', 404],
  ['//etc/', 404],
  ['/%2fetc', 404],
  ['/....//', 404],
  ['/..;/', 404],
  ['/C:%5cwindows', 404],
  ['/../root', 200],
  ['/sub/..', 200],
  ['/sub/%2e%2e/', 200],
];

describe('directory: differential against Connect 2.30', () => {
  it('answers listings, pass-throughs and 406 as connect.directory does, for every Accept', async () => {
    const requests: RequestSpec[] = [];
    for (const path of [
      '/',
      '/sub',
      '/sub/',
      '/emptydir/',
      '/Beta%20dir',
      '/%C3%BCn%C3%AFc%C3%B6d%C3%A9/',
      '/sub/..',
      '/./sub/',
    ]) {
      for (const accept of ACCEPTS) requests.push(get(path, accept));
    }
    for (const path of ['/alpha.txt', '/missing', '/missing/', '/sub/nested.txt', '/?x=1', '/sub?y=%'])
      requests.push(get(path, 'application/json'));
    requests.push(get('/', 'application/json', 'HEAD'), get('/sub', 'text/plain', 'HEAD'), get('/', undefined, 'HEAD'));
    const answers = await assertSameAsConnect(
      [connect.directory(root), passed],
      [directory(root), passed],
      requests,
      withoutHtmlBody,
    );
    // The comparison covered real listings, not only errors.
    const json = JSON.parse(utf8(answers[ACCEPTS.indexOf('application/json')]));
    assert.ok(json.includes('snow ☃.txt') && json.includes('sub') && !json.includes('.hidden'));
  });

  it('chooses the listing type as Connect 2.30 did where negotiator 0.6 parts: parameters after q, ties', async () => {
    const accepts = [
      'text/html;q=0.9;level=1',
      'text/html;q=0.9;level=1, application/json;q=0.5',
      'application/json;q=1;x=1, text/plain;q=0.5',
      'text/plain;q=0.5;charset=*, application/json;q=0.5',
      'text/plain;q=0.5;charset=, text/html;q=0.5',
      'text/html;q=1;level="1", */*;q=0.1',
      'text/html;level=1;q=0.9, text/plain;q=0.9',
      'application/json;q=0.5, text/plain;q=0.5',
      'text/html;q, application/json',
      'text/html;q=, application/json',
      'text/html;q=abc, application/json;q=0.1',
      'text/html;a="b,c";q=1, text/plain',
      'x text/plain, application/json;q=0.5',
    ];
    const answers = await assertSameAsConnect(
      [connect.directory(root), passed],
      [directory(root), passed],
      accepts.map((accept) => get('/', accept)),
      withoutHtmlBody,
    );
    // Read as 0.5 read it: `level=1` is a parameter text/html lacks, so nothing matched.
    assert.equal(answers[0].status, 406);
    assert.match(String(answers[1].headers['content-type']), /^application\/json/);
  });

  it('lists under a mount point as Connect mounts it', async () => {
    const webapp = require('../../src/index');
    const ours = webapp();
    ours.use('/files', directory(root));
    const theirs = connect();
    theirs.use('/files', connect.directory(root));
    const requests = [
      get('/files', 'application/json'),
      get('/files/', 'text/plain'),
      get('/files/sub', 'application/json'),
      get('/files/../secret.txt', 'application/json'),
      get('/files/%2e%2e/', 'text/plain'),
      get('/files', 'image/png'),
    ];
    const send = (app: http.RequestListener) =>
      withServer(app, async (port) => {
        const out: Array<[number, unknown, string]> = [];
        for (const spec of requests) {
          const res = await rawRequest(port, spec);
          out.push([res.status, res.headers['content-type'], res.status < 400 ? res.body : '']);
        }
        return out;
      });
    const [expected, actual] = [await send(theirs), await send(ours)];
    assert.deepEqual(actual, expected);
    assert.deepEqual(
      actual.map(([status]) => status),
      [200, 200, 200, 403, 403, 406],
    );
  });

  it('answers other methods with 405 and OPTIONS with 200, whatever the path', async () => {
    const requests: RequestSpec[] = [];
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'PROPFIND']) {
      for (const path of ['/', '/sub', '/alpha.txt', '/missing', '/../secret.txt'])
        requests.push({ method, path, body: method === 'OPTIONS' ? undefined : 'x' });
    }
    const answers = await assertSameAsConnect([connect.directory(root), passed], [directory(root), passed], requests);
    assert.equal(answers[0].status, 405);
    assert.equal(answers[0].headers.allow, 'GET, HEAD, OPTIONS');
    assert.equal(answers[0].headers['content-length'], '0');
    assert.equal(answers[20].status, 200);
  });

  it('lists dot files with hidden: true', async () => {
    const requests = [get('/', 'application/json'), get('/sub/', 'text/plain'), get('/', 'text/html')];
    const answers = await assertSameAsConnect(
      [connect.directory(root, { hidden: true }), passed],
      [directory(root, { hidden: true }), passed],
      requests,
      withoutHtmlBody,
    );
    assert.ok(JSON.parse(utf8(answers[0])).includes('.hidden'));
    assert.equal(utf8(answers[1]), '.dotfile\nnested.txt\n');
    assert.ok(utf8(answers[2]).includes('title=".hidden"'));
  });

  // What Connect's filter receives is not in its answers: checked only where Connect 2.30 runs.
  itWithLiveOracle(
    'calls filter with (name, index, list, dir) before sorting, as serve-index does',
    'the filter calls',
    async () => {
      const record = (calls: unknown[][]) => (name: string, index: number, list: string[], dir: string) => {
        calls.push([name, index, [...list], dir]);
        return !name.endsWith('.txt');
      };
      const theirs: unknown[][] = [];
      const ours: unknown[][] = [];
      const requests = [get('/', 'application/json'), get('/sub', 'text/plain'), get('/emptydir', 'application/json')];
      const answers = await assertSameAsConnect(
        [connect.directory(root, { filter: record(theirs) }), passed],
        [directory(root, { filter: record(ours) }), passed],
        requests,
      );
      assert.deepEqual(ours, theirs);
      assert.ok(ours.some((call) => call[3] === join(root, 'sub')));
      assert.ok(!JSON.parse(utf8(answers[0])).some((name: string) => name.endsWith('.txt')));
      assert.equal(utf8(answers[1]), '\n');
    },
  );

  // The arguments a replaced responder receives are not in the answers: checked only where Connect 2.30 runs.
  itWithLiveOracle(
    'an app replaces directory.html, .json or .plain and its listings of that kind, as with serve-index',
    'the replaced responders',
    async () => {
      type Responder = (typeof directory)['plain'];
      const kinds = ['html', 'json', 'plain'] as const;
      const theirsBefore = kinds.map((kind) => connect.directory[kind]);
      const oursBefore = kinds.map((kind) => directory[kind]);
      const replacement =
        (calls: unknown[][], kind: string): Responder =>
        (req, res, files, next, dir, showUp, icons, path, view, template, stylesheet) => {
          calls.push([kind, req.url, [...files], typeof next, dir, showUp, icons, path, view, template, stylesheet]);
          res.setHeader('Content-Type', 'text/plain');
          res.end(`${kind}: ${files.length} in ${dir}`);
        };
      const theirs: unknown[][] = [];
      const ours: unknown[][] = [];
      try {
        for (const kind of kinds) {
          connect.directory[kind] = replacement(theirs, kind);
          directory[kind] = replacement(ours, kind);
        }
        const requests = [
          get('/', 'text/html'),
          get('/sub/', 'application/json'),
          get('/Beta%20dir', 'text/plain'),
          get('/emptydir/', 'image/png'),
        ];
        const options = { icons: true, view: 'details', hidden: true };
        const answers = await assertSameAsConnect(
          [connect.directory(root, options), passed],
          [directory(root, options), passed],
          requests,
        );
        // The template and stylesheet: serve-index passes the paths of its own files when none is given.
        assert.deepEqual(
          ours.map((call) => call.slice(0, 9)),
          theirs.map((call) => call.slice(0, 9)),
        );
        assert.match(utf8(answers[0]), /^html: \d+ in \/$/);
        assert.match(utf8(answers[1]), /^json: \d+ in \/sub\/$/);
        assert.match(utf8(answers[2]), /^plain: \d+ in \/Beta dir$/);
        assert.equal(answers[3].status, 406);
        assert.deepEqual(
          ours.map((call) => call[0]),
          ['html', 'json', 'plain'],
        );
      } finally {
        kinds.forEach((kind, index) => {
          connect.directory[kind] = theirsBefore[index];
          directory[kind] = oursBefore[index];
        });
      }
    },
  );

  it('gives the same statuses for traversal and null bytes', async () => {
    // Decoding errors are left out: serve-index let the URIError escape as a 500 (webapp: 400).
    const requests = HOSTILE.filter(([path, status]) => status !== 400 || path.includes('%00')).map(([path]) =>
      get(path, 'application/json'),
    );
    assert.ok(requests.length >= 30);
    await assertSameAsConnect([connect.directory(root), passed], [directory(root), passed], requests);
  });

  it('gives the same errors for a missing template and stylesheet', async () => {
    const missing = join(base, 'nope.html');
    await assertSameAsConnect(
      [connect.directory(root, { template: missing }), passed],
      [directory(root, { template: missing }), passed],
      [get('/', 'text/html'), get('/', 'application/json')],
    );
    await assertSameAsConnect(
      [connect.directory(root, { stylesheet: missing }), passed],
      [directory(root, { stylesheet: missing }), passed],
      [get('/sub', 'text/html'), get('/sub', 'text/plain')],
    );
  });
});

/** Records every path the middleware hands to fs while a request runs. */
function spyOnFs(): { paths: string[]; restore(): void } {
  const paths: string[] = [];
  const target = fs as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  for (const name of ['stat', 'lstat', 'readdir', 'readFile', 'open']) {
    const original = target[name];
    originals.set(name, original);
    target[name] = function (this: unknown, ...args: unknown[]) {
      paths.push(String(args[0]));
      return original.apply(this, args);
    };
  }
  return {
    paths,
    restore: () => {
      for (const [name, original] of originals) target[name] = original;
    },
  };
}

describe('directory: hostile paths', () => {
  it(`answers ${HOSTILE.length} hostile paths: 400/403/next, nothing outside root touched, keeps serving`, async () => {
    const rootPrefix = resolve(root) + sep;
    await withServer(
      (req, res) => {
        directory(root)(req, res, (err?: any) => {
          res.statusCode = err ? err.status : 404;
          res.setHeader('X-Next', err ? 'error' : 'called');
          res.end(err ? err.message : 'next');
        });
      },
      async (port) => {
        for (const [path, status] of HOSTILE) {
          for (const accept of ['application/json', 'text/html']) {
            const spy = spyOnFs();
            let res: RawResponse;
            try {
              res = await rawRequest(port, get(path, accept));
            } finally {
              spy.restore();
            }
            assert.equal(res.status, status, `${path} (${accept})`);
            assert.ok(
              !res.body.includes(SECRET) && !res.body.includes('root-sibling') && !res.body.includes('secret.txt'),
              path,
            );
            for (const touched of spy.paths) {
              const normalized = resolve(touched) + sep;
              assert.ok(normalized.startsWith(rootPrefix), `${path}: touched ${touched} outside the root`);
            }
            // The server answers the next request normally.
            const ok = await rawRequest(port, get('/sub', 'text/plain'));
            assert.equal(ok.body, 'nested.txt\n', `after ${path}`);
          }
        }
        // The spy does see what a listing reads, so the checks above are not vacuous.
        const spy = spyOnFs();
        try {
          await rawRequest(port, get('/sub', 'text/html'));
        } finally {
          spy.restore();
        }
        assert.ok(
          spy.paths.includes(join(root, 'sub')) && spy.paths.includes(join(root, 'sub', 'nested.txt')),
          spy.paths.join(', '),
        );
      },
    );
  });

  it('refuses before touching the file system, with http errors', () => {
    const rootPath = rootPathOf(root);
    assert.equal(rootPath, resolve(root) + sep);
    assert.deepEqual(resolveListing(rootPath, '/../x', '/../x'), { status: 403 });
    assert.deepEqual(resolveListing(rootPath, '/a%00', '/a%00'), { status: 400 });
    assert.deepEqual(resolveListing(rootPath, '/%E0%A4%A', '/%E0%A4%A'), { status: 400 });
    // The mount point is decoded too (it is shown on the page).
    assert.deepEqual(resolveListing(rootPath, '/', '/%zz/'), { status: 400 });
    assert.deepEqual(resolveListing(rootPath, '/', '/m%00/'), { status: 400 });
    assert.deepEqual(resolveListing(rootPath, '/sub/', '/files/sub/'), {
      path: join(root, 'sub') + sep,
      shownPath: '/files/sub/',
      isRoot: false,
    });
    assert.equal((resolveListing(rootPath, '/', '/') as { isRoot: boolean }).isRoot, true);
    assert.equal((resolveListing(rootPath, '/sub/..', '/sub/..') as { isRoot: boolean }).isRoot, true);
    // A sibling whose name starts with the root's is still outside it.
    assert.deepEqual(resolveListing(rootPathOf(join(base, 'root')), '/../root-sibling', '/../root-sibling'), {
      status: 403,
    });
  });

  it('passes a path through a file to next() (serve-index answered 500)', async () => {
    const res = await fetchOne([directory(root), passed], get('/alpha.txt/x', 'application/json'));
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-next'], 'called');
  });

  it('answers 414 for a name too long for the file system', async () => {
    const res = await fetchOne([directory(root), passed], get('/' + 'a'.repeat(5000), 'application/json'));
    assert.equal(res.status, 414);
  });

  it('passes the 414 on with only a status, as serve-index: a page of exposed messages shows no path', async () => {
    const [res] = await assertSameAsConnect(
      [connect.directory(root), describeError],
      [directory(root), describeError],
      [get('/' + 'a'.repeat(300), 'application/json')],
    );
    assert.equal(res.status, 200);
    const fields = JSON.parse(res.body);
    assert.equal(fields.status, 414);
    assert.equal(fields.expose, undefined);
    assert.equal(fields.shown, '');
  });
});

describe('directory: listings', () => {
  itWithLiveOracle(
    'fails the HTML listing when an entry cannot be examined (not merely gone), as Connect 2.30 does',
    'a stat failure injected into the oracle',
    async () => {
      // A disk error on one entry must not yield a listing that silently lacks it.
      const restore = failFsCall('stat', /alpha\.txt$/, { message: 'EIO: i/o error, stat', code: 'EIO' });
      try {
        const [html] = await assertSameAsConnect(
          [connect.directory(root), passed],
          [directory(root), passed],
          [get('/', 'text/html'), get('/', 'application/json')],
        );
        assert.equal(html.status, 500);
        assert.equal(html.body, 'EIO: i/o error, stat');
      } finally {
        restore();
      }
      const after = await fetchOne([directory(root), passed], get('/', 'text/html'));
      assert.equal(after.status, 200);
      assert.ok(utf8(after).includes('alpha.txt'));
    },
  );

  itWithLiveOracle(
    'passes a failing readdir on as it is, as Connect 2.30 does',
    'a readdir failure injected into the oracle',
    async () => {
      const restore = failFsCall('readdir', /[/\\]sub[/\\]?$/, {
        message: "EACCES: permission denied, scandir '/secret/sub'",
        code: 'EACCES',
        syscall: 'scandir',
      });
      try {
        const [res] = await assertSameAsConnect(
          [connect.directory(root), describeError],
          [directory(root), describeError],
          [get('/sub/', 'application/json')],
        );
        assert.deepEqual(JSON.parse(res.body).keys, ['code', 'syscall']);
      } finally {
        restore();
      }
    },
  );

  it('sends JSON and plain text sorted by code unit, with UTF-8 lengths', async () => {
    const [json, text] = await requestAll(
      [directory(root), passed],
      [get('/', 'application/json'), get('/', 'text/plain')],
    );
    const names = Object.keys(FILES)
      .map((name) => name.split('/')[0])
      .filter((name, i, all) => !name.startsWith('.') && all.indexOf(name) === i)
      .concat('emptydir')
      .sort();
    assert.equal(json.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(JSON.parse(utf8(json)), names);
    assert.equal(Number(json.headers['content-length']), Buffer.byteLength(JSON.stringify(names)));
    assert.equal(text.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(utf8(text), names.join('\n') + '\n');
  });

  it('lists under a mount point with links that keep it (webapp app)', async () => {
    const webapp = require('../../src/index');
    const app = webapp();
    app.use('/files', directory(root));
    const [page, json, missing] = await withServer(app, async (port) =>
      Promise.all([
        rawRequest(port, get('/files/sub/', 'text/html')),
        rawRequest(port, get('/files/sub', 'application/json')),
        rawRequest(port, get('/files/nope', 'text/html')),
      ]),
    );
    const html = utf8(page);
    assert.ok(html.includes('href="/files/sub/nested.txt"'));
    assert.ok(html.includes('<a href="/files">files</a> / <a href="/files/sub">sub</a>'));
    assert.ok(html.includes('<a href="/files" class="" title="..">'));
    assert.deepEqual(JSON.parse(utf8(json)), ['nested.txt']);
    assert.equal(missing.status, 404);
  });
});

describe('directory: HTML page', () => {
  it('escapes names, encodes links, sorts directories first and links the path', async () => {
    const res = await fetchOne([directory(root), passed], get('/', 'text/html'));
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(Number(res.headers['content-length']), Buffer.byteLength(utf8(res)));
    const html = utf8(res);
    assert.ok(html.startsWith('<!DOCTYPE html>'));
    assert.ok(html.includes('<title>listing directory /</title>'));
    assert.ok(!html.includes('<script>alert'), 'a tag in a name is never markup');
    assert.ok(html.includes('title="&lt;script&gt;alert(1)&lt;\\script&gt;.html"'));
    assert.ok(html.includes('href="/%3Cscript%3Ealert(1)%3C%5Cscript%3E.html"'));
    assert.ok(html.includes('<span class="name">a&amp;b.txt</span>'));
    assert.ok(html.includes('href="/a%26b.txt"'));
    assert.ok(html.includes('href="/foo%20bar.txt"'));
    assert.ok(html.includes('href="/snow%20%E2%98%83.txt"') && html.includes('>snow ☃.txt<'));
    assert.ok(html.includes('href="/%2541%20100%25.txt"'), 'a name with %41 is not decoded as A');
    assert.ok(html.includes('href="/hash%23%3F.txt"'));
    assert.ok(html.includes('href="/q%22uote&#39;s.txt"') && html.includes('title="q&quot;uote&#39;s.txt"'));
    assert.ok(
      html.includes('<span class="name">$&amp; {directory}.txt</span>'),
      'replacement patterns in names are not expanded',
    );
    assert.ok(html.includes('href="/%C3%BCn%C3%AFc%C3%B6d%C3%A9"'));
    assert.ok(!html.includes('.hidden'));
    assert.ok(!html.includes('title=".."'), 'no parent link at the root');
    assert.ok(html.includes('<h1><a href="/">~</a> / </h1>'));

    const order = [...html.matchAll(/title="([^"]*)"/g)].map((match) => match[1]);
    assert.deepEqual(order.slice(0, 4), ['Beta dir', 'emptydir', 'sub', 'ünïcödé']);
    const files = Object.keys(FILES)
      .filter((name) => !name.includes('/') && !name.startsWith('.'))
      .sort((a, b) => a.toLocaleLowerCase().localeCompare(b.toLocaleLowerCase()));
    assert.deepEqual(order.slice(4), files.map(escapeHtml));
    assert.ok(files.indexOf('alpha.txt') < files.indexOf('Zeta.md'), 'names sort case-insensitively');
  });

  it('adds the parent entry and a breadcrumb below the root', async () => {
    const html = utf8(await fetchOne([directory(root), passed], get('/%C3%BCn%C3%AFc%C3%B6d%C3%A9/', 'text/html')));
    assert.ok(html.includes('<a href="/" class="" title=".."><span class="name">..</span>'));
    assert.ok(html.includes('href="/%C3%BCn%C3%AFc%C3%B6d%C3%A9/%C3%A9.txt"'));
    assert.ok(html.includes('<h1><a href="/">~</a> / <a href="/%C3%BCn%C3%AFc%C3%B6d%C3%A9">ünïcödé</a> / </h1>'));
    assert.ok(html.includes('<title>listing directory /ünïcödé/</title>'));
    const spaced = utf8(await fetchOne([directory(root), passed], get('/Beta%20dir', 'text/html')));
    assert.ok(spaced.includes('<a href="/Beta%20dir">Beta dir</a></h1>'));
    assert.ok(spaced.includes('href="/Beta%20dir/inner.txt"'));
    assert.ok(spaced.includes('href="/Beta%20dir/raw-%EF%BF%BD.bin"') && spaced.includes('>raw-\uFFFD.bin<'));
  });

  it('builds the breadcrumb and links from the normalised path: `.`, `//` and `x/..` add none', async () => {
    const odd = utf8(await fetchOne([directory(root), passed], get('/./sub//.././sub/./', 'text/html')));
    assert.ok(odd.includes('<h1><a href="/">~</a> / <a href="/sub">sub</a> / </h1>'), odd.slice(0, 400));
    assert.ok(odd.includes('<title>listing directory /sub/</title>'));
    assert.ok(odd.includes('href="/sub/nested.txt"'));
    // Every `./` was a link to the path so far: 16 KB of them made a page of about 60 MB.
    const long = await fetchOne([directory(root), passed], get('/' + './'.repeat(7_000) + 'sub/', 'text/html'));
    assert.equal(long.status, 200);
    assert.ok(long.body.length < 4_000, `a page of ${long.body.length} bytes`);
    assert.ok(long.body.includes('href="/sub/nested.txt"'));
  });

  it('shows sizes and dates in the details view, neither by default', async () => {
    const details = utf8(await fetchOne([directory(root, { view: 'details' }), passed], get('/sub', 'text/html')));
    assert.ok(details.includes('<ul id="files" class="view-details"><li class="header">'));
    const date = FILE_TIME.toLocaleDateString() + ' ' + FILE_TIME.toLocaleTimeString();
    assert.ok(
      details.includes(
        '<span class="name">nested.txt</span><span class="size">6</span><span class="date">' + date + '</span>',
      ),
    );
    assert.ok(details.includes('<span class="name">..</span><span class="size"></span><span class="date"></span>'));
    const tiles = utf8(await fetchOne([directory(root), passed], get('/sub', 'text/html')));
    assert.ok(tiles.includes('<ul id="files" class="view-tiles"><li>'));
    const odd = utf8(await fetchOne([directory(root, { view: '"><b>' }), passed], get('/sub', 'text/html')));
    assert.ok(odd.includes('class="view-&quot;&gt;&lt;b&gt;"'));
  });

  it('draws icons only when asked, for the kinds on the page', async () => {
    const plain = utf8(await fetchOne([directory(root), passed], get('/', 'text/html')));
    assert.ok(!plain.includes('data:image/svg+xml') && !plain.includes('class="icon'));
    const html = utf8(await fetchOne([directory(root, { icons: true }), passed], get('/', 'text/html')));
    assert.ok(html.includes('href="/sub" class="icon icon-directory"'));
    assert.ok(html.includes('href="/photo.png" class="icon icon-image icon-png"'));
    assert.ok(html.includes('href="/bundle.tar.gz" class="icon icon-archive icon-gz"'));
    assert.ok(html.includes('href="/app.js" class="icon icon-code icon-js"'));
    assert.ok(html.includes('href="/alpha.txt" class="icon icon-text icon-txt"'));
    for (const kind of ['directory', 'image', 'archive', 'code', 'text']) {
      assert.ok(html.includes('#files .icon-' + kind + ' .name { background-image: url("data:image/svg+xml,'), kind);
    }
    assert.ok(!html.includes('.icon-media .name'), 'no rule for a kind the page does not show');
    const style = html.slice(html.indexOf('<style>') + '<style>'.length, html.indexOf('</style>'));
    assert.ok(
      !style.includes('<') && !style.includes('>'),
      'drawings are percent-encoded: nothing can close the style element',
    );
  });

  it('picks an icon from the media type for extensions it does not list', () => {
    // Types decide where no extension is listed: text/*, fonts, Office and OpenDocument families.
    const expected: Array<[string, IconKind]> = [
      ['captions.vtt', 'text'],
      ['meeting.ics', 'text'],
      ['face.woff2', 'file'],
      ['face.ttf', 'file'],
      ['letter.dot', 'document'],
      ['budget.xlsm', 'document'],
      ['report.docm', 'document'],
      ['memo.dotx', 'document'],
      ['drawing.odg', 'document'],
      ['clip.mp4', 'media'],
      ['data.bin', 'file'],
      ['no-extension', 'file'],
    ];
    for (const [name, kind] of expected) assert.equal(iconKindOf(name), kind, name);
  });

  it('fills a template file and a stylesheet file, read on every request', async () => {
    const template = join(base, 'page.html');
    const stylesheet = join(base, 'page.css');
    writeFileSync(
      template,
      '<title>{directory}</title><style>{style}</style><nav>{linked-path}</nav>' +
        '{files}<p>{directory} $& $1</p>{unknown}',
    );
    writeFileSync(stylesheet, 'body { color: rebeccapurple; }');
    const middleware = directory(root, { template, stylesheet, icons: true });
    const html = utf8(await fetchOne([middleware, passed], get('/sub/', 'text/html')));
    assert.ok(html.startsWith('<title>/sub/</title><style>body { color: rebeccapurple; }#files .icon-directory .name'));
    assert.ok(html.includes('<nav> / <a href="/sub">sub</a> / </nav><ul id="files" class="view-tiles">'));
    assert.ok(html.endsWith('<p>/sub/ $& $1</p>{unknown}'));
    writeFileSync(template, 'changed {directory}');
    assert.equal(utf8(await fetchOne([middleware, passed], get('/sub/', 'text/html'))), 'changed /sub/');
  });

  it('hands a template function the locals and sends what it renders', async () => {
    let seen: TemplateLocals | undefined;
    const template = (locals: TemplateLocals, callback: (err: Error | null, html?: string) => void) => {
      seen = locals;
      setImmediate(() => callback(null, 'rendered ' + locals.fileList.map((file) => file.name).join(',')));
    };
    const res = await fetchOne(
      [directory(root, { template, view: 'details', icons: true }), passed],
      get('/sub', 'text/html'),
    );
    assert.equal(utf8(res), 'rendered ..,nested.txt');
    assert.ok(seen);
    assert.equal(seen.directory, '/sub');
    assert.equal(seen.path, join(root, 'sub'));
    assert.equal(seen.viewName, 'details');
    assert.equal(seen.displayIcons, true);
    assert.ok(seen.style.includes('#files'));
    assert.ok(seen.fileList[1].stat?.isFile());

    const failing = directory(root, { template: (_locals, callback) => callback(new Error('template failed')) });
    const throwing = directory(root, {
      template: () => {
        throw new Error('template threw');
      },
    });
    const [failed, threw] = await Promise.all([
      fetchOne([failing, passed], get('/', 'text/html')),
      fetchOne([throwing, passed], get('/', 'text/html')),
    ]);
    assert.equal(failed.status, 500);
    assert.equal(failed.body, 'template failed');
    assert.equal(threw.status, 500);
    assert.equal(threw.body, 'template threw');
  });

  it('answers 406 for an unacceptable type and keeps serving', async () => {
    await withServer(
      (req, res) =>
        directory(root)(req, res, (err?: any) => {
          res.statusCode = err ? err.status : 404;
          res.end(err ? `${err.name}: ${err.message}` : 'next');
        }),
      async (port) => {
        const refused = await rawRequest(port, get('/', 'image/png, application/xml'));
        assert.equal(refused.status, 406);
        assert.equal(refused.body, 'NotAcceptableError: Not Acceptable');
        assert.equal((await rawRequest(port, get('/%', 'text/html'))).body, 'BadRequestError: Bad Request');
        assert.equal((await rawRequest(port, get('/..', 'text/html'))).body, 'ForbiddenError: Forbidden');
        assert.equal((await rawRequest(port, get('/emptydir', 'text/plain'))).body, '\n');
      },
    );
  });
});

describe('directory: the middleware factory', () => {
  it('keeps serve-index arity and requires a root', () => {
    assert.equal(directory.length, 2);
    assert.equal(directory(root).length, 3);
    assert.throws(() => directory(''), { name: 'TypeError', message: 'directory() root path required' });
    assert.throws(() => (directory as unknown as () => void)(), TypeError);
  });

  it('sends a filter error to next(err)', async () => {
    const res = await fetchOne(
      [
        directory(root, {
          filter: () => {
            throw new Error('filter broke');
          },
        }),
        passed,
      ],
      get('/', 'application/json'),
    );
    assert.equal(res.status, 500);
    assert.equal(res.body, 'filter broke');
  });
});

describe('directory: page helpers', () => {
  it('builds links segment by segment', () => {
    assert.equal(entryHref('/', 'a b'), '/a%20b');
    assert.equal(entryHref('/x/', '..'), '/');
    assert.equal(entryHref('/x/y', '..'), '/x');
    assert.equal(entryHref('//evil.example/', 'f'), '/evil.example/f');
    assert.equal(entryHref('/a?b/', '#c'), '/a%3Fb/%23c');
    assert.equal(entryHref('/', '%2e%2e'), '/%252e%252e');
  });

  it('links every path segment, never protocol-relative', () => {
    assert.equal(linkedPath('/'), ' / ');
    assert.equal(linkedPath('/a/b'), ' / <a href="/a">a</a> / <a href="/a/b">b</a>');
    assert.equal(
      linkedPath('//evil.example/x/'),
      ' / <a href="/evil.example">evil.example</a> / <a href="/evil.example/x">x</a> / ',
    );
    assert.equal(linkedPath('/<i>/'), ' / <a href="/%3Ci%3E">&lt;i&gt;</a> / ');
  });

  it('sorts .. first, then directories, then names case-insensitively', () => {
    const dirStat = { isDirectory: () => true } as fs.Stats;
    const fileStat = { isDirectory: () => false } as fs.Stats;
    const entries = [
      { name: 'b.txt', stat: fileStat },
      { name: 'Z', stat: dirStat },
      { name: 'A.txt', stat: fileStat },
      { name: 'gone', stat: null },
      { name: '..', stat: dirStat },
      { name: 'a', stat: dirStat },
    ];
    assert.deepEqual(
      entries.sort(compareEntries).map((entry) => entry.name),
      ['..', 'a', 'Z', 'A.txt', 'b.txt', 'gone'],
    );
  });

  it('fills each placeholder once and leaves the rest', () => {
    const locals: TemplateLocals = {
      directory: '/<d>',
      displayIcons: false,
      fileList: [],
      path: '/x',
      style: 'S',
      viewName: 'tiles',
    };
    assert.equal(
      fillTemplate('{directory}|{style}|{files}|{linked-path}|{other}|{directory}', locals),
      '/&lt;d&gt;|S|<ul id="files" class="view-tiles"></ul>| / <a href="/%3Cd%3E">&lt;d&gt;</a>|{other}|/&lt;d&gt;',
    );
  });
});

describe('directory: a head Node refuses', () => {
  it('a status or status message Node refuses goes to next(err) and the server goes on', async () => {
    // The listing is sent from an fs callback: Node's refusal thrown there ended the
    // process (Connect 2.30's ends it too).
    const list = directory(root);
    const seen: string[] = [];
    await withServer(
      (req, res) => {
        const url = new URL(req.url!, 'http://localhost');
        if (url.pathname === '/ok') return res.end('still serving');
        const code = url.searchParams.get('code');
        if (code) res.statusCode = Number(code);
        const message = url.searchParams.get('message');
        if (message) res.statusMessage = message;
        list(req, res, (err?: unknown) => {
          seen.push(err ? String((err as NodeJS.ErrnoException).code) : 'next');
          if (!res.destroyed) res.end();
        });
      },
      async (port) => {
        const answer = (path: string, accept: string) =>
          exchange(port, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAccept: ${accept}\r\nConnection: close\r\n\r\n`);
        assert.equal(await answer('/?code=1000', 'text/html'), '');
        assert.equal(await answer('/?message=a%0D%0Ab', 'application/json'), '');
        assert.equal(await answer('/?code=99', 'text/plain'), '');
        assert.deepEqual(seen, ['ERR_HTTP_INVALID_STATUS_CODE', 'ERR_INVALID_CHAR', 'ERR_HTTP_INVALID_STATUS_CODE']);
        assert.equal(await answer('/ok', '*/*').then((text) => text.endsWith('still serving')), true);
      },
    );
  });
});

describe('directory: choosing the listing type', () => {
  // Connect 2.30's accepts (1.2, over negotiator 0.5), the one serve-index asked.
  const accepts12 = require('connect/node_modules/accepts');
  const offers = ['text/html', 'text/plain', 'application/json'];

  it('answers as Connect 2.30 for thousands of generated Accept values', () => {
    const ranges = [
      'text/html',
      'TEXT/Plain',
      'application/json',
      'text/*',
      '*/*',
      'application/*',
      'image/png',
      '*/html',
    ];
    const parameters = [
      '',
      ';q=1',
      ';q=0',
      ';q=0.5',
      ';q=.5',
      ';q=abc',
      ';level=1',
      ';q=0.5;level=1',
      ';level=*',
      ';level=',
    ];
    parameters.push(';level="1"', ';q', ';q=', ';charset=utf-8;q=0.5', ';__proto__=x', ';q=0.5;a="b,c"');
    let seed = 11;
    const pick = <T>(list: T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return list[seed % list.length];
    };
    for (let n = 0; n < 5000; n++) {
      const entries: string[] = [];
      for (let count = pick([1, 2, 3, 4]); count > 0; count--) entries.push(pick(ranges) + pick(parameters));
      const header = entries.join(pick([',', ', ', ' ,']));
      const theirs = accepts12({ headers: { accept: header } }).types(offers);
      assert.equal(preferredMediaType(header, offers), theirs, JSON.stringify(header));
    }
    for (const header of [undefined, '']) {
      assert.equal(preferredMediaType(header, offers), accepts12({ headers: { accept: header } }).types(offers));
    }
  });

  it('finds the type where Connect 2.30 did in malformed entries (text before it, stray slashes, spaces)', () => {
    // negotiator 0.5 took the first `type/subtype` anywhere in an entry; webapp scans for it.
    const pieces = ['a', 'text', 'html', 'plain', 'json', 'application', '/', '/', ';', ' ', '\t', '\u00a0'];
    pieces.push('"', ',', '=', 'q', '.', '0', '1', '*', 'level');
    let seed = 5;
    const pick = <T>(list: T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return list[seed % list.length];
    };
    for (let n = 0; n < 20000; n++) {
      let header = '';
      for (let count = 1 + (n % 16); count > 0; count--) header += pick(pieces);
      const theirs = accepts12({ headers: { accept: header } }).types(offers);
      assert.equal(preferredMediaType(header, offers), theirs, JSON.stringify(header));
    }
  });
});
