'use strict';
// Static assets under /assets. Pages link to fingerprinted names (style.3f9a1c0b2e.css):
// the content hash is in the name, so those answers may be cached for a year and marked
// immutable; a changed file gets a new name. The plain name still works, revalidated
// on every use.
const { createHash } = require('node:crypto');
const { readdirSync, readFileSync } = require('node:fs');
const { join, extname } = require('node:path');

const longLived = { maxAge: '365d', immutable: true };

function fingerprint(dir) {
  const byPlainName = new Map();
  const byFingerprintedName = new Map();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const hash = createHash('sha256')
      .update(readFileSync(join(dir, entry.name)))
      .digest('hex')
      .slice(0, 10);
    const extension = extname(entry.name);
    const fingerprinted = `${entry.name.slice(0, entry.name.length - extension.length)}.${hash}${extension}`;
    byPlainName.set(entry.name, fingerprinted);
    byFingerprintedName.set(fingerprinted, entry.name);
  }
  return { byPlainName, byFingerprintedName };
}

/**
 * `{ middleware, url }`: mount `middleware` at `mountPath`; views call `url('style.css')`
 * to get the fingerprinted URL.
 */
function assets(framework, dir, mountPath = '/assets') {
  const { byPlainName, byFingerprintedName } = fingerprint(dir);
  const serveImmutable = framework.static(dir, longLived);
  const servePlain = framework.static(dir);
  function assetsMiddleware(req, res, next) {
    const plainName = byFingerprintedName.get(req.path.slice(1));
    if (plainName === undefined) return servePlain(req, res, next);
    req.url = '/' + plainName;
    serveImmutable(req, res, next);
  }
  function url(name) {
    const fingerprinted = byPlainName.get(name);
    if (fingerprinted === undefined) throw new Error(`no asset named ${name}`);
    return `${mountPath}/${fingerprinted}`;
  }
  return { middleware: assetsMiddleware, url };
}

module.exports = { assets };
