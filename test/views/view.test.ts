/** The View class: file lookup across roots and engine loading by module name. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { View, type Engine } from '../../src/view';

const fixtures = join(__dirname, 'fixtures');
const noop: Engine = (_path, _options, callback) => callback(null, '');

describe('View', () => {
  it('appends the default engine extension, with or without its dot', () => {
    for (const defaultEngine of ['tpl', '.tpl']) {
      const view = new View('only-d', { defaultEngine, root: join(fixtures, 'd'), engines: { '.tpl': noop } });
      assert.equal(view.ext, '.tpl');
      assert.equal(view.path, join(fixtures, 'd', 'only-d.tpl'));
    }
  });

  it('prefers name.ext over name/index.ext, and finds the index otherwise', () => {
    const engines = { '.ejs': noop };
    assert.equal(
      new View('both', { defaultEngine: 'ejs', root: join(fixtures, 'd'), engines }).path,
      join(fixtures, 'd', 'both.ejs'),
    );
    assert.equal(
      new View('users', { defaultEngine: 'ejs', root: join(fixtures, 'b'), engines }).path,
      join(fixtures, 'b', 'users', 'index.ejs'),
    );
  });

  it('searches an array of roots in order and leaves path undefined when nothing matches', () => {
    const engines = { '.ejs': noop };
    const roots = [join(fixtures, 'a'), join(fixtures, 'b')];
    assert.equal(
      new View('only-b', { defaultEngine: 'ejs', root: roots, engines }).path,
      join(fixtures, 'b', 'only-b.ejs'),
    );
    assert.equal(
      new View('hello', { defaultEngine: 'ejs', root: roots, engines }).path,
      join(fixtures, 'a', 'hello.ejs'),
    );
    assert.equal(new View('missing', { defaultEngine: 'ejs', root: roots, engines }).path, undefined);
  });

  it('an explicit extension wins over the default engine', () => {
    const view = new View('hello.tpl', { defaultEngine: 'ejs', root: join(fixtures, 'a'), engines: { '.tpl': noop } });
    assert.equal(view.ext, '.tpl');
    assert.equal(view.engine, noop);
  });

  it('loads an engine module by extension once and keeps it in the engines map', () => {
    const engines: Record<string, Engine> = {};
    const view = new View('hello.ejs', { root: join(fixtures, 'a'), engines });

    assert.equal(engines['.ejs'], require('ejs').__express);
    assert.equal(view.engine, engines['.ejs']);
  });

  it('fails for modules that are not engines, missing modules, and no extension at all', () => {
    assert.throws(() => new View('x.path', { root: fixtures, engines: {} }), {
      message: 'Module "path" does not provide a view engine.',
    });
    assert.throws(() => new View('x.nosuchenginemodule', { root: fixtures, engines: {} }), {
      code: 'MODULE_NOT_FOUND',
    });
    assert.throws(() => new View('x', { root: fixtures, engines: {} }), {
      message: 'No default engine was specified and no extension was provided.',
    });
  });
});
