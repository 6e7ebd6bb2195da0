// Command-line options of bench/run.mjs.
import { parseArgs } from 'node:util';
import { parseLine } from '../../scripts/node-lines.mjs';
import { FRAMEWORKS } from './frameworks.mjs';
import { EXTRAS } from './measurements.mjs';
import { SCENARIOS } from './scenarios.mjs';

export const USAGE = `Usage: npm run bench -- [options]     (or: node bench/run.mjs [options])

  --frameworks=a,b    frameworks to run (default: all)   ${FRAMEWORKS.map((f) => f.id).join(', ')}
  --scenarios=a,b     scenarios to run (default: all)    ${SCENARIOS.map((s) => s.id).join(', ')}
  --node=20,26        run everything under each of these Node lines, one section each (default: this Node);
                      binaries from the npm registry's node package, cached in ~/.cache/webapp-node
  --extras=a,b        measurements on the hello servers (default: all)  ${EXTRAS.join(', ')}, or none
  --duration=S        whole seconds per measured round (default 2)
  --rounds=N          measured rounds per framework and scenario (default 2)
  --stat=S            best | median: which round is reported (default best: noise only lowers a round)
  --warmup=S          whole seconds of warm-up load before the rounds (default 1)
  --connections=N     concurrent connections (default 100)
  --loader=L          auto | wrk | autocannon (default auto: wrk, else autocannon with a warning)
  --server-cpu=N      CPU the servers are pinned to (default 0)
  --loader-cpu=N      CPU the load generator is pinned to (default 1)
  --no-pin            do not pin with taskset
  --check             only start every server and check its answer to each scenario, no measuring
  --no-build          do not run \`npm run build\` first (webapp is loaded from dist/)
  --out=FILE          markdown report (default bench/results/latest.md)
  --help              this text
`;

function list(value, known, what) {
  if (value === undefined) return known;
  const ids = value
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  const unknown = ids.filter((id) => !known.some((item) => item.id === id));
  if (unknown.length > 0)
    throw new Error(`unknown ${what}: ${unknown.join(', ')} (known: ${known.map((k) => k.id).join(', ')})`);
  return known.filter((item) => ids.includes(item.id));
}

function positive(value, name, { integer = false } = {}) {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0 || (integer && !Number.isInteger(number))) {
    throw new Error(`--${name} must be a positive ${integer ? 'integer' : 'number'}, got ${value}`);
  }
  return number;
}

function cpu(value, name) {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new Error(`--${name} must be a CPU number, got ${value}`);
  return number;
}

export function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      frameworks: { type: 'string' },
      scenarios: { type: 'string' },
      node: { type: 'string' },
      extras: { type: 'string' },
      duration: { type: 'string', default: '2' },
      rounds: { type: 'string', default: '2' },
      warmup: { type: 'string', default: '1' },
      connections: { type: 'string', default: '100' },
      loader: { type: 'string', default: 'auto' },
      stat: { type: 'string', default: 'best' },
      'server-cpu': { type: 'string', default: '0' },
      'loader-cpu': { type: 'string', default: '1' },
      'no-pin': { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (!['auto', 'wrk', 'autocannon'].includes(values.loader))
    throw new Error(`--loader must be auto, wrk or autocannon`);
  if (!['best', 'median'].includes(values.stat)) throw new Error('--stat must be best or median');
  const pin = !values['no-pin'];
  const extras =
    values.extras === 'none'
      ? []
      : list(
          values.extras,
          EXTRAS.map((id) => ({ id })),
          'measurement',
        ).map((item) => item.id);
  const nodeLines =
    values.node === undefined
      ? null
      : values.node
          .split(',')
          .map((line) => line.trim())
          .filter(Boolean)
          .map(parseLine);
  if (nodeLines && nodeLines.length === 0)
    throw new Error('--node needs at least one Node line, for example --node=20,26');
  return {
    help: values.help,
    frameworks: list(values.frameworks, FRAMEWORKS, 'framework'),
    scenarios: list(values.scenarios, SCENARIOS, 'scenario'),
    nodeLines,
    extras,
    duration: positive(values.duration, 'duration', { integer: true }),
    rounds: positive(values.rounds, 'rounds', { integer: true }),
    warmup: positive(values.warmup, 'warmup', { integer: true }),
    connections: positive(values.connections, 'connections', { integer: true }),
    loader: values.loader,
    stat: values.stat,
    serverCpu: pin ? cpu(values['server-cpu'], 'server-cpu') : null,
    loaderCpu: pin ? cpu(values['loader-cpu'], 'loader-cpu') : null,
    build: !values['no-build'],
    check: values.check,
    out: values.out,
  };
}
