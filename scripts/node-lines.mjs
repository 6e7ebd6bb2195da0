// Node binaries for other release lines, taken from the npm registry's `node`
// package. `npm exec --package=node@<line>` installs it into npm's own cache; we
// ask that binary for its path once and remember it in ~/.cache/webapp-node, so
// later runs start it directly (no npm in the way of a benchmark or a test run).
// The cache lives outside the repository: nothing here is committed or shipped.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const CACHE_DIR =
  process.env.WEBAPP_NODE_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'webapp-node');

/** `26`, `v26`, `26.10` or `26.10.0` → `26.10.0`-style spec npm understands; anything else is an error. */
export function parseLine(value) {
  const match = /^v?(\d+)(\.\d+){0,2}$/.exec(String(value).trim());
  if (!match) throw new Error(`not a Node line: ${JSON.stringify(value)} (expected for example 20, 22.12 or 26.10.0)`);
  return String(value).trim().replace(/^v/, '');
}

/** `--node 20,26` / `--node=20,26`: the list, or null when absent. Returns the other arguments too. */
export function takeNodeOption(argv) {
  const rest = [];
  let lines = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    let value;
    if (arg === '--node') {
      value = argv[++i];
      if (value === undefined) throw new Error('--node needs a list of Node lines, for example --node 20,26');
    } else if (arg.startsWith('--node=')) value = arg.slice('--node='.length);
    else {
      rest.push(arg);
      continue;
    }
    lines = (lines || []).concat(
      value
        .split(',')
        .map((line) => line.trim())
        .filter(Boolean)
        .map(parseLine),
    );
  }
  if (lines && lines.length === 0) throw new Error('--node needs at least one Node line');
  return { lines, rest };
}

function cacheFile(line) {
  return join(CACHE_DIR, `node-${line}.json`);
}

/** `{ line, version, path }` for a Node line; resolves through npm the first time only. */
export function nodeBinary(line) {
  const file = cacheFile(line);
  if (existsSync(file)) {
    try {
      const cached = JSON.parse(readFileSync(file, 'utf8'));
      if (cached && typeof cached.path === 'string' && existsSync(cached.path)) return cached;
    } catch {
      // a damaged cache entry is resolved again below
    }
  }
  const script = 'process.stdout.write(JSON.stringify({ version: process.version, path: process.execPath }))';
  const result = spawnSync('npm', ['exec', '--yes', `--package=node@${line}`, '--', 'node', '-e', script], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 300_000,
  });
  let found;
  try {
    found = JSON.parse(result.stdout);
  } catch {
    throw new Error(
      `could not get Node ${line} from the npm registry (npm exec --package=node@${line}):\n` +
        (result.stderr || '').trim().split('\n').slice(-5).join('\n'),
    );
  }
  const entry = { line, version: found.version, path: found.path };
  mkdirSync(CACHE_DIR, { recursive: true });
  writeFileSync(file, JSON.stringify(entry) + '\n');
  return entry;
}
