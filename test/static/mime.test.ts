/**
 * The `mime` object Express hands apps: `express.static.mime` (4.x) and
 * `express.mime` (3.x). Lookups answer as Express's do, and types an app adds with
 * `define` or `load` are what `res.type`, `res.sendFile` and the static middleware
 * answer with. Differential against express@4 and express@3.21.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import webapp3 = require('../../src/v3/index');
import { answersOf } from '../support/compare';
import { assertSameResponses, withoutStackFrames, type Framework } from '../support/differential';

const express3 = require('express3');

type Any = any;

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'webapp-mime-'));
  const modified = new Date('2025-01-02T03:04:05Z');
  for (const tag of ['wb', 'vb', 'vc']) {
    for (const name of [`page.${tag}x`, `data.${tag}y`, `plain.${tag}z`, 'unknown.wbq', 'data.json']) {
      writeFileSync(join(root, name), 'content of ' + name);
      utimesSync(join(root, name), modified, modified);
    }
    const types = `# comment line\ntext/x-${tag}-loaded  ${tag}z   ${tag}zz # trailing\n\n`;
    writeFileSync(join(root, `extra-${tag}.types`), types);
  }
});
after(() => rmSync(root, { recursive: true, force: true }));

/**
 * What an app reads from its framework's mime object, before and after adding
 * types. Each test adds its own (`tag`): in one process, webapp's 4.x and 3.x
 * mime objects share one table, where express@4 and express@3 have one each.
 */
function lookups(mime: Any, tag: string): Record<string, unknown> {
  return {
    html: mime.lookup('index.html'),
    upper: mime.lookup('A/B/C.JSON'),
    bare: mime.lookup('css'),
    unknown: mime.lookup('file.wbq'),
    fallback: mime.lookup('file.wbq', 'text/x-fallback'),
    noExtension: mime.lookup('README'),
    extension: [mime.extension('text/html'), mime.extension('application/json; charset=utf-8'), mime.extension('x/y')],
    charsets: ['text/css', 'application/json', 'application/javascript', 'image/png'].map((t) =>
      mime.charsets.lookup(t),
    ),
    charsetFallback: mime.charsets.lookup('image/png', 'binary'),
    defaultType: mime.default_type,
    defined: ['x', 'y', 'z', 'zz'].map((end) => mime.lookup(`x.${tag}${end}`)),
    // Defined in capitals: mime 1.x keeps the key as written and looks up in small letters.
    definedInCapitals: [mime.lookup(`x.${tag}x2`), mime.lookup(`x.${tag.toUpperCase()}X2`)],
    definedExtension: [mime.extension(`text/x-${tag}`), mime.extension(`text/x-${tag}-loaded`)],
  };
}

/** An app whose mime object got two types by `define` and one file by `load`, then serves with them. */
function appWithTypes(framework: Any, mime: Any, tag: string) {
  const app = framework();
  const before = lookups(mime, tag);
  mime.define({ [`text/x-${tag}`]: [`${tag}x`, `${tag.toUpperCase()}X2`], [`application/x-${tag}-data`]: [`${tag}y`] });
  mime.load(join(root, `extra-${tag}.types`));
  const afterDefine = lookups(mime, tag);
  app.get('/lookups', (_req: Any, res: Any) => res.json({ before, afterDefine }));
  app.get('/type/:ext', (req: Any, res: Any) => res.type(req.params.ext).send('typed'));
  app.get('/file/:name', (req: Any, res: Any) => (res.sendFile ?? res.sendfile).call(res, req.params.name, { root }));
  app.use('/static', framework.static(root));
  return app;
}

const requestsFor = (tag: string) =>
  [
    '/lookups',
    `/type/${tag}x`,
    `/type/${tag}y`,
    `/type/${tag}z`,
    '/type/json',
    `/file/page.${tag}x`,
    `/file/data.${tag}y`,
    `/file/plain.${tag}z`,
    '/file/unknown.wbq',
    `/static/page.${tag}x`,
    '/static/unknown.wbq',
    '/static/data.json',
  ].map((path) => ({ path }));

describe('mime: express.static.mime (4.x)', () => {
  it('looks types up as send 0.19 does; defined and loaded types are served', async () => {
    const [lookupAnswer, wbx] = await assertSameResponses(
      (framework: Framework) => appWithTypes(framework, (framework as Any).static.mime, 'wb') as never,
      requestsFor('wb'),
    );
    const { before, afterDefine } = JSON.parse(lookupAnswer.body);
    assert.equal(before.unknown, 'application/octet-stream');
    assert.deepEqual(afterDefine.defined, [
      'text/x-wb',
      'application/x-wb-data',
      'text/x-wb-loaded',
      'text/x-wb-loaded',
    ]);
    assert.equal(wbx.headers['content-type'], 'text/x-wb; charset=utf-8');
  });

  it('default_type changes the type of unknown extensions, and changes back', async () => {
    const define = (framework: Framework) => {
      const mime = (framework as Any).static.mime;
      const app: Any = framework();
      app.get('/', (_req: Any, res: Any) => {
        const previous = mime.default_type;
        mime.default_type = 'text/x-unknown';
        const changed = [mime.default_type, mime.lookup('a.wbq')];
        res.type('wbq');
        mime.default_type = previous;
        res.json({ changed, restored: mime.lookup('a.wbq') });
      });
      return app;
    };
    const [answer] = await assertSameResponses(define, [{ path: '/' }]);
    assert.equal(answer.headers['content-type'], 'text/x-unknown; charset=utf-8');
  });
});

/**
 * An app that replaces `lookup` or `charsets.lookup` on its mime object (`?with=`) for
 * the length of each request (the objects are shared by the process), and answers with
 * `res.type`, `res.set`, `res.format`, `res.sendFile`/`res.sendfile` and `static`.
 */
function replacingLookups(framework: Framework, mime: Any): Any {
  const app: Any = framework();
  const replacements: Record<string, () => void> = {
    // Files without a charset: a line found in Express apps.
    nocharset: () => (mime.charsets.lookup = () => false),
    // UTF-8 for XML too; `this` is the charsets object.
    xmlcharset: () => {
      const own = mime.charsets.lookup;
      mime.charsets.lookup = function (this: Any, type: string) {
        return type.endsWith('xml') ? 'UTF-8' : own.call(this, type);
      };
    },
    // `.js` as text/javascript; nothing for `.wbq` (a file then goes without a Content-Type).
    lookup: () => {
      const own = mime.lookup;
      mime.lookup = function (this: Any, path: string) {
        if (path.endsWith('js')) return 'text/javascript';
        return path.endsWith('wbq') ? undefined : own.call(this, path);
      };
    },
  };
  app.use((req: Any, res: Any, next: Any) => {
    const saved = { lookup: mime.lookup, charset: mime.charsets.lookup };
    replacements[req.query.with]!();
    res.on('finish', () => {
      mime.lookup = saved.lookup;
      mime.charsets.lookup = saved.charset;
    });
    next();
  });
  app.get('/type/:ext', (req: Any, res: Any) => res.type(req.params.ext).end());
  app.get('/set', (_req: Any, res: Any) => res.set('Content-Type', 'application/xml').end());
  app.get('/format', (_req: Any, res: Any) => res.format({ js: () => res.end('js'), html: () => res.end('html') }));
  // 3.x apps send files with res.sendfile (webapp/v3 also has 4.x's res.sendFile).
  const sendFile = framework === (webapp3 as unknown) || framework === express3 ? 'sendfile' : 'sendFile';
  app.get('/file/:name', (req: Any, res: Any) => res[sendFile](join(root, req.params.name)));
  app.use('/static', framework.static(root));
  return app;
}

function replacedLookupRequests(paths: string[]) {
  return ['nocharset', 'xmlcharset', 'lookup'].flatMap((replaced) => [
    ...paths.map((path) => ({ path: `${path}?with=${replaced}` })),
    { path: `/format?with=${replaced}`, headers: { accept: 'application/javascript' } },
  ]);
}

describe('mime: an app that replaces lookup or charsets.lookup', () => {
  before(() => {
    // Fixed times: the 3.x answers are recorded on one Node line and replayed on the others.
    const modified = new Date('2025-01-02T03:04:05Z');
    for (const name of ['page.html', 'app.js', 'feed.xml']) {
      writeFileSync(join(root, name), 'content of ' + name);
      utimesSync(join(root, name), modified, modified);
    }
  });
  const files = ['page.html', 'app.js', 'feed.xml', 'unknown.wbq'];

  it('4.x: res.type, res.set, res.format, res.sendFile and static ask it, as in Express', async () => {
    const paths = ['/type/html', '/type/js', '/set', ...files.map((f) => `/file/${f}`), '/static/page.html'];
    const answers = await assertSameResponses(
      (framework: Framework) => replacingLookups(framework, (framework as Any).static.mime),
      replacedLookupRequests(paths),
    );
    const type = (i: number) => answers[i]!.headers['content-type'];
    assert.equal(type(0), 'text/html', 'no charset');
    assert.equal(type(2 + 9), 'application/xml; charset=utf-8', 'xml charset through res.set');
    assert.equal(type(1 + 18), 'text/javascript; charset=utf-8', 'lookup through res.type');
    assert.equal(type(6 + 18), undefined, 'no type from the lookup: no Content-Type');
  });

  it('3.x: res.type, res.format, res.sendfile and static ask it, as in Express 3.21', async () => {
    // Express 3.21's own res.sendfile reads another mime copy in this repository (see
    // above): its files are compared with the answers Connect's static gives.
    const paths = ['/type/html', '/type/js', ...files.map((f) => `/static/${f}`)];
    await assertSameResponses(
      (framework: Framework) => replacingLookups(framework, (framework as Any).mime),
      replacedLookupRequests(paths),
      { oracle: express3, subject: webapp3 },
      // 3.21's req.accepts finds neither key for application/javascript: a 406 either way.
      withoutStackFrames,
    );
    const sent = await answersOf(
      replacingLookups(webapp3 as unknown as Framework, webapp3.mime),
      ['nocharset', 'xmlcharset', 'lookup'].flatMap((replaced) =>
        ['page.html', 'app.js', 'feed.xml'].map((file) => ({ path: `/file/${file}?with=${replaced}` })),
      ),
    );
    assert.deepEqual(
      sent.map((res) => res.headers['content-type']),
      [
        ...['text/html', 'application/javascript', 'application/xml'],
        ...['text/html; charset=UTF-8', 'application/javascript', 'application/xml; charset=UTF-8'],
        ...['text/html; charset=UTF-8', 'text/javascript; charset=UTF-8', 'application/xml'],
      ],
    );
  });
});

describe('mime: the types and extensions tables, and the Mime class', () => {
  it('mime.types[ext] = type serves the type; delete forgets it; both tables read and list as mime 1.6', async () => {
    // `express.static.mime.types.wasm = 'application/wasm'` is a common line in Express
    // apps: without the tables it threw at start.
    writeFileSync(join(root, 'page.qtx'), 'a page');
    const build = (framework: Framework) => {
      const mime = (framework as Any).static.mime;
      const app: Any = framework();
      mime.types.qtx = 'text/x-qt';
      mime.extensions['text/x-qt'] = 'qtx';
      const tables = {
        read: [mime.types.qtx, mime.types.html, mime.types.wav, mime.types.nope, mime.types.QTX],
        has: ['qtx' in mime.types, 'json' in mime.types, 'nope' in mime.types],
        listed: [Object.keys(mime.types).includes('qtx'), Object.keys(mime.types).includes('nope')],
        extensions: [mime.extensions['text/x-qt'], mime.extensions['application/json'], mime.extension('text/x-qt')],
        lookup: mime.lookup('a/b.QTX'),
      };
      const table = new mime.Mime();
      table.define({ 'a/b': ['ab', 'abb'], 'a/c': ['ab'] });
      const own = [table.lookup('x.AB'), table.lookup('x.abb'), table.extension('A/B; q=1'), table.lookup('x.qtx')];
      app.get('/tables', (_req: Any, res: Any) => res.json({ tables, own, app: mime.lookup('x.ab') }));
      app.get('/type', (_req: Any, res: Any) => res.type('qtx').send('typed'));
      app.get('/file', (_req: Any, res: Any) => res.sendFile('page.qtx', { root }));
      app.use('/static', framework.static(root));
      app.get('/forget', (_req: Any, res: Any) => {
        delete mime.types.qtx;
        delete mime.extensions['text/x-qt'];
        res.json([
          mime.lookup('a.qtx'),
          mime.types.qtx ?? null,
          'qtx' in mime.types,
          mime.extension('text/x-qt') ?? null,
        ]);
      });
      return app;
    };
    const [tables, typed, file, served, forgotten, after] = await assertSameResponses(
      build,
      ['/tables', '/type', '/file', '/static/page.qtx', '/forget', '/static/page.qtx'].map((path) => ({ path })),
    );
    assert.deepEqual(JSON.parse(tables.body).tables.read, ['text/x-qt', 'text/html', 'audio/wav', null, null]);
    for (const answer of [typed, file, served])
      assert.match(String(answer.headers['content-type']), /^text\/x-qt; charset=utf-8$/i);
    assert.deepEqual(JSON.parse(forgotten.body), ['application/octet-stream', null, false, null]);
    assert.equal(after.headers['content-type'], 'application/octet-stream');
  });
});

describe('mime: the type of res.send strings', () => {
  it('follows a define that maps html to another type, after responses with the old one', async () => {
    const define = (framework: Framework) => {
      const mime = (framework as Any).static.mime;
      const app: Any = framework();
      app.get('/page', (_req: Any, res: Any) => res.send('<p>page</p>'));
      app.get('/redefine/:type', (req: Any, res: Any) => {
        mime.define({ [req.params.type.replace('-', '/')]: ['html'] });
        res.json(mime.lookup('html'));
      });
      return app;
    };
    const answers = await assertSameResponses(
      define,
      ['/page', '/redefine/text-x-page', '/page', '/redefine/text-html', '/page'].map((path) => ({ path })),
    );
    assert.deepEqual(
      answers.map((answer) => answer.headers['content-type']),
      [
        'text/html; charset=utf-8',
        'application/json; charset=utf-8',
        'text/x-page; charset=utf-8',
        'application/json; charset=utf-8',
        'text/html; charset=utf-8',
      ],
    );
  });
});

describe('mime: express.mime (3.x)', () => {
  it('is Connect 2.30 send 0.13 mime: charsets for text/* only; defined types are served', async () => {
    // express@3.21's res.sendfile reads a mime of its own here only because this
    // repository's express@4 keeps mime 1.6 at the top of node_modules, so npm could
    // not share one mime 1.3 between express@3 and Connect; an Express 3 app's own
    // install has one, and `define` reaches res.sendfile too. Compared without it.
    const requests = requestsFor('vb').filter(({ path }) => !path.startsWith('/file/'));
    await assertSameResponses(
      (framework: Framework) => appWithTypes(framework, (framework as Any).mime, 'vb') as never,
      requests,
      { oracle: express3, subject: webapp3 },
    );
    assert.equal(webapp3.static.mime, webapp3.mime);

    const [sent] = await answersOf(appWithTypes(webapp3, webapp3.mime, 'vc'), [{ path: '/file/page.vcx' }]);
    assert.deepEqual([sent.status, sent.headers['content-type']], [200, 'text/x-vc; charset=UTF-8']);
  });
});
