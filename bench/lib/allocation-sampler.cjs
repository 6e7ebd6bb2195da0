// Preloaded into a server (`node --require`) by bench/allocations.mjs. The first
// SIGUSR2 starts V8's sampling heap profiler, the second stops it and writes the bytes
// each function allocated to the file BENCH_ALLOCATIONS_OUT names. The profiler is
// told to keep objects the collector has freed: by default it reports only what is
// still alive when it stops, and a request's objects are garbage long before that.
// Each step is announced on stdout (`sampling`, `written`) for the harness to wait on.
'use strict';
const { writeFileSync } = require('node:fs');
const { Session } = require('node:inspector');

const out = process.env.BENCH_ALLOCATIONS_OUT;
const interval = Number(process.env.BENCH_ALLOCATIONS_INTERVAL || 64);
const session = new Session();
session.connect();
let sampling = false;

process.on('SIGUSR2', () => {
  if (!sampling) {
    sampling = true;
    const options = {
      samplingInterval: interval,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    };
    session.post('HeapProfiler.enable', () =>
      session.post('HeapProfiler.startSampling', options, (err) => {
        if (err) throw err;
        process.stdout.write('sampling\n');
      }),
    );
    return;
  }
  session.post('HeapProfiler.stopSampling', (err, { profile }) => {
    if (err) throw err;
    writeFileSync(out, JSON.stringify([...bytesByFunction(profile.head)]));
    process.stdout.write('written\n');
  });
});

/** Self bytes of every node of the profile's tree, summed by function (name, script, line). */
function bytesByFunction(root) {
  const bytes = new Map();
  const pending = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? ` ${url}:${lineNumber + 1}` : '';
    const name = `${functionName || '(anonymous)'}${where}`;
    bytes.set(name, (bytes.get(name) ?? 0) + node.selfSize);
    pending.push(...node.children);
  }
  return bytes;
}
