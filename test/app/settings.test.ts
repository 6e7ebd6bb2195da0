import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import express from 'express';
import webapp = require('../../src/index');
import { assertSameResponses } from '../support/differential';

/** Runs `fn` with environment variables set, restoring them after. */
function withEnv<T>(vars: Record<string, string | undefined>, fn: () => T): T {
  const saved: Record<string, string | undefined> = {};
  for (const key of Object.keys(vars)) {
    saved[key] = process.env[key];
    if (vars[key] === undefined) delete process.env[key];
    else process.env[key] = vars[key];
  }
  try {
    return fn();
  } finally {
    for (const key of Object.keys(saved)) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
}

describe('app settings', () => {
  it('has Express 4 defaults', () => {
    const app = withEnv({ RUNTIME_ENV: undefined, NODE_ENV: undefined }, () => webapp());
    assert.equal(app.get('env'), 'development');
    assert.equal(app.get('x-powered-by'), true);
    assert.equal(app.get('etag'), 'weak');
    assert.equal(typeof app.get('etag fn'), 'function');
    assert.equal(app.get('query parser'), 'extended');
    assert.equal(typeof app.get('query parser fn'), 'function');
    assert.equal(app.get('subdomain offset'), 2);
    assert.equal(app.get('trust proxy'), false);
    assert.equal(typeof app.get('trust proxy fn'), 'function');
    assert.equal(app.get('jsonp callback name'), 'callback');
    assert.equal(app.get('views'), resolve('views'));
    assert.equal(app.get('view cache'), undefined);
    assert.equal(app.get('case sensitive routing'), undefined);
    assert.equal(app.get('strict routing'), undefined);
    assert.equal(typeof app.get('view'), 'function');
  });

  it('has the same setting names and values as express@4', () => {
    const names = (settings: object) => Object.keys(settings).sort();
    const ours = withEnv({ RUNTIME_ENV: undefined, NODE_ENV: 'development' }, () => webapp());
    const theirs = withEnv({ NODE_ENV: 'development' }, () => express());
    assert.deepEqual(names(ours.settings), names(theirs.settings));
    for (const name of names(theirs.settings)) {
      if (typeof theirs.settings[name] !== 'function')
        assert.deepEqual(ours.settings[name], theirs.settings[name], name);
    }
  });

  it('reads the environment from RUNTIME_ENV, then NODE_ENV', () => {
    assert.equal(withEnv({ RUNTIME_ENV: 'staging', NODE_ENV: 'production' }, () => webapp()).get('env'), 'staging');
    assert.equal(withEnv({ RUNTIME_ENV: undefined, NODE_ENV: 'production' }, () => webapp()).get('env'), 'production');
  });

  it('enables view cache in production', () => {
    const app = withEnv({ RUNTIME_ENV: 'production' }, () => webapp());
    assert.equal(app.get('view cache'), true);
  });

  it('set/get/enable/disable/enabled/disabled', () => {
    const app = webapp();
    assert.equal(app.set('foo', 'bar'), app);
    assert.equal(app.get('foo'), 'bar');
    assert.equal(app.enable('flag'), app);
    assert.equal(app.enabled('flag'), true);
    assert.equal(app.disabled('flag'), false);
    app.disable('flag');
    assert.equal(app.get('flag'), false);
    assert.equal(app.disabled('flag'), true);
    assert.equal(app.enabled('never-set'), false);
    assert.equal(app.disabled('never-set'), true);
    assert.equal(app.get('hasOwnProperty'), undefined, 'Object.prototype names are not settings');
  });

  it('reads settings as express@4 does: own, then inherited from the parent, never Object.prototype', () => {
    const names = ['__proto__', 'toString', 'constructor', 'hasOwnProperty', 'valueOf', 'x-powered-by', 'title'];
    const reads = (framework: typeof express) => {
      const parent = framework();
      const child = framework();
      parent.set('title', 'parent');
      parent.set('toString', 'from parent');
      child.set('valueOf', 0);
      child.set('x-powered-by', undefined);
      parent.use('/child', child);
      // A Map: `__proto__` is one of the keys.
      const seen = new Map<string, unknown[]>();
      for (const name of names) seen.set(name, [parent.get(name), child.get(name), child.enabled(name)]);
      // A polluted prototype, with data and with a getter, is never a setting.
      const proto = Object.prototype as Record<string, unknown>;
      proto['json spaces'] = 8;
      Object.defineProperty(Object.prototype, 'json escape', { get: () => ({}), configurable: true });
      try {
        seen.set('polluted', [child.get('json spaces'), child.get('json escape'), parent.enabled('json escape')]);
      } finally {
        delete proto['json spaces'];
        delete proto['json escape'];
      }
      return seen;
    };
    const ours = reads(webapp as unknown as typeof express);
    assert.deepEqual(ours, reads(express));
    assert.deepEqual(ours.get('toString'), ['from parent', 'from parent', true]);
    assert.deepEqual(ours.get('__proto__'), [undefined, undefined, false]);
    assert.deepEqual(ours.get('polluted'), [undefined, undefined, false]);
  });

  it('compiles etag, query parser and trust proxy as Express does, and rejects unknown values', () => {
    const app = webapp();
    app.set('etag', false);
    assert.equal(app.get('etag fn'), undefined);
    app.set('etag', 'strong');
    assert.match((app.get('etag fn') as (b: string) => string)('hello'), /^"5-/);
    app.set('etag', true);
    assert.match((app.get('etag fn') as (b: string) => string)('hello'), /^W\/"5-/);
    const custom = () => 'x';
    app.set('etag', custom);
    assert.equal(app.get('etag fn'), custom);
    assert.throws(() => app.set('etag', 'bogus'), /unknown value for etag function: bogus/);

    app.set('query parser', false);
    assert.deepEqual((app.get('query parser fn') as (q: string) => object)('a=1'), {});
    app.set('query parser', 'simple');
    assert.deepEqual({ ...(app.get('query parser fn') as (q: string) => object)('a[b]=1') }, { 'a[b]': '1' });
    assert.throws(() => app.set('query parser', 'bogus'), /unknown value for query parser function: bogus/);

    const trust = (value: unknown) => {
      app.set('trust proxy', value);
      return app.get('trust proxy fn') as (addr: string, i: number) => boolean;
    };
    assert.equal(trust(true)('1.2.3.4', 5), true);
    assert.equal(trust(false)('127.0.0.1', 0), false);
    assert.equal(trust(2)('1.2.3.4', 1), true);
    assert.equal(trust(2)('1.2.3.4', 2), false);
    assert.equal(trust('loopback, 10.0.0.0/8')('10.1.2.3', 0), true);
    assert.equal(trust(['loopback'])('::1', 0), true);
    assert.equal(trust('linklocal')('169.254.0.1', 0), true);
    assert.equal(trust('uniquelocal')('192.168.1.1', 0), true);
    assert.equal(trust('uniquelocal')('8.8.8.8', 0), false);
    assert.throws(() => trust('not-an-ip'), /invalid IP address/);
  });

  it('names the compiled functions and the mount listener as express@4 does', () => {
    const names = (framework: typeof webapp | typeof express) => {
      const app = framework();
      const seen = [(app.listeners('mount') as Array<() => void>).map((listener) => listener.name).join()];
      const compiled: Array<[string, unknown, string]> = [
        ['etag', 'weak', 'etag fn'],
        ['etag', 'strong', 'etag fn'],
        ['query parser', 'extended', 'query parser fn'],
        ['query parser', 'simple', 'query parser fn'],
        ['query parser', false, 'query parser fn'],
        ['trust proxy', false, 'trust proxy fn'],
        ['trust proxy', 'loopback', 'trust proxy fn'],
      ];
      for (const [setting, value, fn] of compiled) {
        app.set(setting, value);
        seen.push(`${setting}=${String(value)}: ${(app.get(fn) as () => void).name}`);
      }
      return seen;
    };
    assert.deepEqual(names(webapp), names(express));
  });
});

describe('sub-app setting inheritance (SPEC 2.3)', () => {
  it('inherits settings without a default, not those with one; trust proxy and view cache as specified', () => {
    const parent = withEnv({ RUNTIME_ENV: 'production' }, () => webapp());
    parent.set('json spaces', 2);
    parent.set('view engine', 'ejs');
    parent.enable('strict routing');
    parent.set('trust proxy', 'loopback');
    parent.set('subdomain offset', 3);
    parent.set('etag', 'strong');
    const child = withEnv({ RUNTIME_ENV: 'development' }, () => webapp());
    parent.use('/child', child);

    assert.equal(child.get('json spaces'), 2);
    assert.equal(child.get('view engine'), 'ejs');
    assert.equal(child.get('strict routing'), true);
    assert.equal(child.get('trust proxy'), 'loopback', 'trust proxy is inherited although it has a default');
    assert.equal(child.get('trust proxy fn'), parent.get('trust proxy fn'));
    assert.equal(child.get('subdomain offset'), 2, 'settings with a default are not inherited');
    assert.equal(child.get('etag'), 'weak');
    assert.equal(child.get('env'), 'development');
    assert.equal(
      child.get('view cache'),
      true,
      "a development sub-app has no view cache of its own: the parent's shows through",
    );
  });

  it('does not inherit view cache when the sub-app runs in production (it has its own default then)', () => {
    const parent = webapp();
    parent.disable('view cache');
    const child = withEnv({ RUNTIME_ENV: 'production' }, () => webapp());
    parent.use(child);
    assert.equal(child.get('view cache'), true);
  });

  it('keeps a trust proxy the sub-app set itself', () => {
    const parent = webapp();
    parent.set('trust proxy', true);
    const child = webapp();
    child.set('trust proxy', false);
    parent.use(child);
    assert.equal(child.get('trust proxy'), false);
  });

  it('behaves as express@4 for the same mount', () => {
    for (const framework of [express, webapp as unknown as typeof express]) {
      const parent = framework();
      parent.set('custom', 'inherited');
      const child = framework();
      parent.use('/c', child);
      assert.equal(child.get('custom'), 'inherited');
      assert.equal(Object.getPrototypeOf(child.settings), parent.settings);
      assert.equal(Object.getPrototypeOf(child.request), parent.request);
      assert.equal(Object.getPrototypeOf(child.response), parent.response);
      // @types/express does not declare `app.engines`.
      type WithEngines = { engines: object };
      assert.equal(
        Object.getPrototypeOf((child as typeof child & WithEngines).engines),
        (parent as typeof parent & WithEngines).engines,
      );
    }
  });
});

describe("'query parser fn' removed by hand", () => {
  it('parses queries as express@4 does: qs with prototype keys, its default array limit', async () => {
    await assertSameResponses(
      (framework) => {
        const app = framework();
        app.set('query parser fn', undefined);
        app.get('/', (req, res) => {
          res.json({ query: req.query, keys: Object.keys(req.query) });
        });
        return app;
      },
      [
        { path: '/?a[b]=1&c=2' },
        { path: '/?a[]=1&a[]=2' },
        { path: '/?a[25]=x' },
        { path: '/?a[5]=x' },
        { path: '/?hasOwnProperty=1&__proto__[x]=1' },
        { path: '/' },
        { path: '/?' },
      ],
    );
  });
});
