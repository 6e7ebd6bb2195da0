/// <reference types="node" preserve="true" />
/**
 * `require('webapp/v3/as-express')` (or `node -r webapp/v3/as-express app.js`): from
 * then on, `require('express')` anywhere in the process gives webapp/v3.
 *
 * Express 3's plugins reach the framework by its name: express-resource and
 * express-namespace `require('express')` and add `resource` and `namespace` to the
 * `express.application` they get. An app that requires `webapp/v3` in its own files
 * leaves them patching whatever `express` resolves to (express@3 still installed, the
 * 4.x API of an `npm:webapp` alias, or nothing), and `app.resource` is undefined. For
 * 4.x the alias `"express": "npm:webapp"` in package.json does this; npm cannot alias
 * a package's subpath, hence this module. It affects CommonJS `require` only (the
 * plugins of that era), and must run before the first plugin loads.
 */
import Module = require('node:module');

type ResolveFilename = (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;
const loader = Module as unknown as { _resolveFilename: ResolveFilename };

/** Set on the hook, so that requiring this module twice (two copies of webapp, or a re-run under Jest) hooks once. */
const hooked = Symbol.for('webapp.v3.asExpress');

const previous = loader._resolveFilename;
if (!(previous as { [hooked]?: true })[hooked]) {
  const webapp3 = require.resolve('./index');
  const resolveFilename: ResolveFilename = function (this: unknown, request, parent, isMain, options) {
    if (request === 'express') return webapp3;
    return previous.call(this, request, parent, isMain, options);
  };
  Object.defineProperty(resolveFilename, hooked, { value: true });
  loader._resolveFilename = resolveFilename;
}

export {};
