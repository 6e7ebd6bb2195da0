// The load generators. wrk (C, one thread) is the default: it needs far less CPU
// than the servers it drives. autocannon (Node) is the fallback when wrk is not
// installed; it saturates sooner, so its numbers are lower and not comparable
// with wrk's, and the report says which one ran.
import { execFile, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { pinned } from './servers.mjs';

function onPath(name) {
  for (const dir of (process.env.PATH || '').split(delimiter)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not in this directory
    }
  }
  return null;
}

function autocannonBin() {
  try {
    return createRequire(import.meta.url).resolve('autocannon/autocannon.js');
  } catch {
    return null;
  }
}

function run(command, args) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

const WRK_TIME_UNITS = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

/**
 * Requests/sec from wrk's report, with the responses that were not 2xx/3xx and
 * the socket errors, and (with --latency) the 99th percentile latency in ms.
 */
export function parseWrk(output) {
  const rps = /^Requests\/sec:\s*([\d.]+)/m.exec(output);
  if (!rps) throw new Error(`unexpected wrk output:\n${output}`);
  const non2xx = /Non-2xx or 3xx responses:\s*(\d+)/.exec(output);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const errors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  const p99 = /^\s*99%\s+([\d.]+)(us|ms|s|m)\s*$/m.exec(output);
  return {
    rps: Number(rps[1]),
    bad: (non2xx ? Number(non2xx[1]) : 0) + errors,
    p99: p99 ? Number(p99[1]) * WRK_TIME_UNITS[p99[2]] : null,
  };
}

const wrk = {
  name: 'wrk',
  async version(path) {
    // `wrk -v` prints its version, then usage, and exits with status 1.
    const { stdout, stderr } = spawnSync(path, ['-v'], { encoding: 'utf8' });
    return (/^wrk \S+/m.exec(`${stdout}${stderr}`) || ['wrk'])[0];
  },
  async measure(path, { url, scenario, fixtures, seconds, connections, cpu, latency = false }) {
    const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s'];
    if (latency) args.push('--latency');
    for (const [name, value] of Object.entries(scenario.headers || {})) args.push('-H', `${name}: ${value}`);
    if (scenario.payload) args.push('-s', fixtures.payloads[scenario.payload].wrkScript);
    const { command, args: full } = pinned(cpu, path, [...args, url]);
    return parseWrk(await run(command, full));
  },
};

const autocannon = {
  name: 'autocannon',
  async version(_path) {
    return `autocannon ${createRequire(import.meta.url)('autocannon/package.json').version}`;
  },
  async measure(path, { url, scenario, fixtures, seconds, connections, cpu }) {
    const args = [path, '-j', '-c', String(connections), '-d', String(seconds)];
    for (const [name, value] of Object.entries(scenario.headers || {})) args.push('-H', `${name}=${value}`);
    if (scenario.payload) {
      const payload = fixtures.payloads[scenario.payload];
      args.push('-m', 'POST', '-H', `content-type=${payload.type}`, '-i', payload.file);
    }
    const { command, args: full } = pinned(cpu, process.execPath, [...args, url]);
    const report = JSON.parse(await run(command, full));
    return {
      rps: report.requests.average,
      bad: (report.non2xx || 0) + (report.errors || 0) + (report.timeouts || 0),
      p99: report.latency ? report.latency.p99 : null,
    };
  },
};

/**
 * The loader to use: `auto` takes wrk when it is on PATH and otherwise falls
 * back to autocannon with a warning; naming one that is missing is an error.
 */
export function chooseLoader(wanted, warn) {
  const wrkPath = onPath('wrk');
  const cannonPath = autocannonBin();
  if (wanted === 'wrk' || (wanted === 'auto' && wrkPath)) {
    if (!wrkPath)
      throw new Error('wrk is not installed (Debian/Ubuntu: apt-get install -y wrk); or use --loader=autocannon');
    return { ...wrk, path: wrkPath };
  }
  if (!cannonPath) throw new Error('neither wrk (apt-get install -y wrk) nor autocannon (npm install) is available');
  if (wanted === 'auto') {
    warn('wrk is NOT installed (Debian/Ubuntu: apt-get install -y wrk): falling back to autocannon from node_modules.');
    warn(
      'autocannon is written in Node and saturates before wrk does: ' +
        'its numbers are lower and not comparable with wrk runs.',
    );
  }
  return { ...autocannon, path: cannonPath };
}
