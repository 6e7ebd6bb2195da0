/**
 * webapp/v3's views: Express 3.21's View and its lookup, compared in process with
 * express@3.21.2's `app.render` (no response involved, so it runs on every Node line).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { inherits } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { express3Pair as pair } from '../support/legacy-oracles';

type Any = any;
const root = mkdtempSync(join(tmpdir(), 'webapp-v3-views-'));

before(() => {
  mkdirSync(join(root, 'views/users'), { recursive: true });
  mkdirSync(join(root, 'views/dir.ejs'));
  writeFileSync(join(root, 'views/index.ejs'), '<p><%= title %></p>');
  writeFileSync(join(root, 'views/users/index.ejs'), '<ul><%= title %></ul>');
  writeFileSync(join(root, 'views/index.path'), 'a view of an engine module without an engine');
});
after(() => rmSync(root, { recursive: true, force: true }));

/** What `app.render(name, options)` gives on an app made by `setup`: its HTML, error message, or what it threw. */
function rendered(framework: Any, setup: (app: Any) => void, name: string, options: object = { title: 't' }) {
  const app = framework();
  app.set('views', join(root, 'views'));
  app.set('view engine', 'ejs');
  setup(app);
  let outcome: string | undefined;
  try {
    app.render(name, options, (err: Error | null, html?: string) => {
      outcome = err ? `error: ${err.message}` : `html: ${html}`;
    });
  } catch (err) {
    outcome = `throws: ${(err as Error).message}`;
  }
  return outcome;
}

describe('webapp/v3 views, as Express 3.21 looks them up', () => {
  const cases: [label: string, setup: (app: Any) => void, name: string, expected: string][] = [
    ['a view by name', () => {}, 'index', 'html: <p>t</p>'],
    ['a directory by its index', () => {}, 'users', 'html: <ul>t</ul>'],
    [
      'a relative views setting: the engine gets the joined, relative path',
      (app) => {
        app.set('views', relative(process.cwd(), join(root, 'views')));
        app.engine('ejs', (path: string, _options: object, done: Any) => done(null, path));
      },
      'index',
      `html: ${relative(process.cwd(), join(root, 'views/index.ejs'))}`,
    ],
    ['a trailing slash is not completed to index', () => {}, 'users/', 'error: Failed to lookup view "users/"'],
    ['an empty name is not completed to index', () => {}, '', 'error: Failed to lookup view ""'],
    ['a directory with the extension is taken, and the engine fails on it', () => {}, 'dir.ejs', 'error: EISDIR'],
    ['an array of views directories is refused', (app) => app.set('views', ['a', 'b']), 'index', 'throws: The "path"'],
    ['an engine module without an engine fails when rendering', () => {}, 'index.path', 'error: '],
    [
      "views in an array, looked up by a View subclass: the missing view's error names the setting as its string",
      (app) => {
        const View = app.get('view');
        function EachRootView(this: Any, name: string, options: Any) {
          View.call(this, name, options);
        }
        inherits(EachRootView, View);
        EachRootView.prototype.lookup = function (this: Any, path: string) {
          for (const dir of this.root) {
            const found = View.prototype.lookup.call({ ...this, root: dir }, path);
            if (found) return found;
          }
          return undefined;
        };
        app.set('view', EachRootView);
        app.set('views', [join(root, 'views'), join(root, 'shared')]);
      },
      'missing',
      `error: Failed to lookup view "missing" in views directory "${join(root, 'views')},${join(root, 'shared')}"`,
    ],
  ];
  for (const [label, setup, name, expected] of cases) {
    it(label, () => {
      const subject = rendered(pair.subject, setup, name);
      assert.equal(subject, rendered(pair.oracle, setup, name));
      assert.ok(subject?.startsWith(expected), `${subject} starts with ${expected}`);
    });
  }

  it("View is Express 3's constructor function: callable from an ES5 subclass, enumerable methods", () => {
    const shape = (framework: Any) => {
      const View = framework().get('view');
      function Es5View(this: Any, name: string, options: Any) {
        View.call(this, name, options);
      }
      inherits(Es5View, View);
      const view = new (Es5View as Any)('index', { root: join(root, 'views'), engines: {}, defaultEngine: 'ejs' });
      return { path: view.path, keys: Object.keys(View.prototype), name: View.name };
    };
    assert.deepEqual(shape(pair.subject), shape(pair.oracle));
    assert.equal(shape(pair.subject).path, join(root, 'views/index.ejs'));
  });
});
