'use strict';
// Preloaded into every runnable docs sample (node --require). A sample is written the way
// users write apps, ending in `app.listen(3000)`; here every listen binds 127.0.0.1 on a
// free port instead. With expectations (DOCS_SAMPLE_EXPECT), they are sent to the first
// server that listens and the process exits: 0 when every answer matched, 1 otherwise.
// Without, servers do not keep the process alive: a sample that starts an app exits once
// its own work is done (a sample that queries its own server keeps running until then).
const net = require('node:net');

const expectations = JSON.parse(process.env.DOCS_SAMPLE_EXPECT || '[]');
const listen = net.Server.prototype.listen;
let first;

async function check(server) {
  const { port } = server.address();
  let failed = false;
  for (const { method, path, body, status, contains } of expectations) {
    const headers =
      body && /^[[{]/.test(body)
        ? { 'Content-Type': 'application/json' }
        : body
          ? { 'Content-Type': 'text/plain' }
          : {};
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    const ok = res.status === status && (contains === undefined || text.includes(contains));
    if (!ok) {
      failed = true;
      console.error(
        `expected ${method} ${path} -> ${status}${contains ? ` containing ${JSON.stringify(contains)}` : ''}, ` +
          `got ${res.status}: ${text.slice(0, 500)}`,
      );
    }
  }
  process.exit(failed ? 1 : 0);
}

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const callback = args.find((arg) => typeof arg === 'function');
  if (expectations.length === 0) this.unref();
  else if (!first) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the server the expectations go to
    first = this;
    this.once('listening', () =>
      setImmediate(() => check(first).catch((err) => (console.error(err), process.exit(1)))),
    );
  }
  return callback ? listen.call(this, 0, '127.0.0.1', callback) : listen.call(this, 0, '127.0.0.1');
};
