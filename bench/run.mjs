// npm run bench: every framework on every scenario, in one run.
//
// Method (bench/README.md, "Method"): each server runs in its own process pinned to
// one CPU (taskset -c 0), the load generator on another (taskset -c 1), both on
// 127.0.0.1. For each scenario all servers are started and checked with one
// request, warmed up, then measured in rounds that alternate between frameworks
// (so a noisy moment on a shared machine hits them all alike); the best round
// (or with --stat=median the median) is reported, with ratios to node:http and
// express@4, and every round is kept in results/latest.json. Then the `hello`
// servers give p99 latency, RSS and cold start, and webapp's targets are checked.
// With --node 20,26 all of it runs once per Node line (binaries from the npm
// registry's `node` package), one section per line in the report.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, platform, release } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFixtures } from './lib/fixtures.mjs';
import { chooseLoader } from './lib/loaders.mjs';
import { measureExtras } from './lib/measurements.mjs';
import { USAGE, parseOptions } from './lib/options.mjs';
import { probe } from './lib/probe.mjs';
import { STATISTICS, markdownReport, markdownSection, scenarioTable, targetsText } from './lib/report.mjs';
import { SCENARIOS } from './lib/scenarios.mjs';
import { startServer } from './lib/servers.mjs';
import { checkTargets } from './lib/targets.mjs';
import { nodeBinary } from '../scripts/node-lines.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const warn = (message) => console.error(`WARNING: ${message}`);

function hasTaskset() {
  return spawnSync('taskset', ['-c', '0', process.execPath, '-e', '']).status === 0;
}

function build() {
  console.log('Building webapp (npm run build; skip with --no-build) ...');
  const result = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) warn('npm run build failed: webapp runs from whatever dist/ holds (n/a where it cannot).');
}

/** What every server process gets in its environment for a scenario. */
function serverEnv(scenario, fixtures) {
  return {
    BENCH_STATIC_ROOT: fixtures.staticRoot,
    BENCH_VIEWS_ROOT: fixtures.viewsRoot,
    ...(scenario.count ? { BENCH_COUNT: String(scenario.count) } : {}),
  };
}

/** Starts and checks every framework's server for the scenario; `results` notes the ones left out. */
async function startServers(scenario, options, { fixtures, live, node }, results) {
  const running = [];
  for (const framework of options.frameworks) {
    try {
      const server = await startServer(framework, scenario.kind, {
        cpu: options.serverCpu,
        env: serverEnv(scenario, fixtures),
        node: node.path,
      });
      if (server.unsupported) {
        results[framework.id] = { skipped: server.unsupported };
        continue;
      }
      live.add(server);
      const problem = await probe(server.port, scenario, fixtures);
      if (problem) {
        results[framework.id] = { failed: `wrong answer: ${problem}` };
        await server.stop();
        live.delete(server);
        continue;
      }
      running.push({ framework, server });
      results[framework.id] = { rounds: [], bad: 0 };
    } catch (error) {
      results[framework.id] = { failed: error.message.split('\n').slice(0, 3).join(' / ') };
    }
  }
  return running;
}

/** Warm-up for each server, then the measured rounds, alternating between servers. */
async function runRounds(scenario, running, options, { loader, fixtures }, results) {
  // A load generator failure takes that framework out of the scenario, not the run.
  const failed = new Set();
  const load = async (entry, seconds) => {
    if (failed.has(entry)) return null;
    try {
      return await loader.measure(loader.path, {
        url: `http://127.0.0.1:${entry.server.port}${scenario.path}`,
        scenario,
        fixtures,
        seconds,
        connections: options.connections,
        cpu: options.loaderCpu,
      });
    } catch (error) {
      failed.add(entry);
      results[entry.framework.id] = { failed: error.message.split('\n')[0] };
      return null;
    }
  };

  for (const entry of running) await load(entry, options.warmup);
  for (let round = 0; round < options.rounds; round++) {
    // Rotate the order each round so no framework always follows the same neighbour.
    const order = running.map((_, i) => running[(i + round) % running.length]);
    for (const entry of order) {
      const measured = await load(entry, options.duration);
      if (!measured) continue;
      const result = results[entry.framework.id];
      result.rounds.push(measured.rps);
      result.bad += measured.bad;
    }
  }
}

async function measureScenario(scenario, options, context) {
  const results = {};
  const running = await startServers(scenario, options, context, results);
  try {
    if (options.check) {
      for (const { framework } of running) results[framework.id] = { checked: true };
      return results;
    }
    await runRounds(scenario, running, options, context, results);
  } finally {
    for (const { server } of running) {
      await server.stop();
      context.live.delete(server);
    }
  }
  return results;
}

/** --check: which servers answered the scenario's request right, without measuring. */
function checkLine(scenario, frameworks, results) {
  const cells = frameworks.map((framework) => {
    const result = results[framework.id] || {};
    return `${framework.label} ${result.checked ? 'ok' : result.skipped ? 'n/a' : `FAILED (${result.failed})`}`;
  });
  return `${scenario.id.padEnd(11)} ${cells.join(', ')}`;
}

/** The load generator against one server, for the extra measurements. */
function loadFunction(loader, scenario, options, fixtures) {
  return (port, { seconds, connections, latency }) =>
    loader.measure(loader.path, {
      url: `http://127.0.0.1:${port}${scenario.path}`,
      scenario,
      fixtures,
      seconds,
      connections,
      latency,
      cpu: options.loaderCpu,
    });
}

/**
 * Rough length of a run per Node line: every scenario × framework pair (n/a ones take ~0.5 s),
 * plus the measurements.
 */
function estimateSeconds(options) {
  const pairs = options.scenarios.length * options.frameworks.length;
  const extras =
    options.extras.length === 0
      ? 0
      : options.frameworks.length *
        (3 + (options.extras.includes('p99') ? options.warmup + options.rounds * options.duration : 0));
  return pairs * (options.warmup + options.rounds * options.duration + 0.5) + extras;
}

/** Every scenario, then the measurements and the targets check, on one Node line. */
async function runLine(node, options, context) {
  const results = {};
  for (const scenario of options.scenarios) {
    results[scenario.id] = await measureScenario(scenario, options, { ...context, node });
    if (options.check) console.log(checkLine(scenario, options.frameworks, results[scenario.id]));
    else console.log(scenarioTable(scenario, options.frameworks, results[scenario.id], options.stat));
  }
  if (options.check) return { node, results, extras: null, targets: [] };
  let extras = null;
  if (options.extras.length > 0) {
    const hello = SCENARIOS.find((scenario) => scenario.id === 'hello');
    console.log(`\nMeasuring ${options.extras.join(', ')} on the hello servers ...`);
    extras = await measureExtras(options.frameworks, hello, {
      extras: options.extras,
      node: node.path,
      cpu: options.serverCpu,
      env: serverEnv(hello, context.fixtures),
      fixtures: context.fixtures,
      measure: loadFunction(context.loader, hello, options, context.fixtures),
      seconds: options.duration,
      rounds: options.rounds,
      warmup: options.warmup,
      live: context.live,
    });
  }
  const targets = checkTargets({ scenarios: options.scenarios, results, extras, stat: options.stat });
  console.log(`\nTargets on Node ${node.version}:\n${targetsText(targets)}`);
  return { node, results, extras, targets };
}

async function main() {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (options.help) {
    console.log(USAGE);
    return;
  }
  if (options.serverCpu !== null && !hasTaskset()) {
    warn('taskset is not available: servers and load generator are NOT pinned to CPUs.');
    options.serverCpu = options.loaderCpu = null;
  }
  let loader;
  try {
    loader = chooseLoader(options.loader, warn);
  } catch (error) {
    console.error(`ERROR: ${error.message}`);
    process.exit(2);
  }
  if (options.build && options.frameworks.some((framework) => framework.id === 'webapp')) build();

  let nodes;
  try {
    nodes = options.nodeLines
      ? options.nodeLines.map(nodeBinary)
      : [{ line: 'this', version: process.version, path: process.execPath }];
  } catch (error) {
    console.error(`ERROR: ${error.message}`);
    process.exit(2);
  }

  const fixtures = createFixtures();
  const live = new Set();
  const cleanUp = async () => {
    await Promise.all([...live].map((server) => server.stop()));
    fixtures.remove();
  };
  process.once('SIGINT', () => cleanUp().then(() => process.exit(130)));

  const loaderVersion = await loader.version(loader.path);
  const pinning =
    options.serverCpu === null
      ? 'not pinned'
      : `servers pinned with \`taskset -c ${options.serverCpu}\`, ` +
        `load generator with \`taskset -c ${options.loaderCpu}\``;
  const environment = (node) => [
    `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, servers on Node ${node.version}, ` +
      `${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model.trim() || 'unknown CPU'}`,
    `load generator: ${loaderVersion}, ${options.connections} connections, 127.0.0.1; ${pinning}`,
    `${options.warmup} s warm-up, then ${options.rounds} round${options.rounds === 1 ? '' : 's'} ` +
      `of ${options.duration} s per framework, rounds alternating between frameworks; ` +
      `${STATISTICS[options.stat].label} reported`,
    'servers run with NODE_ENV=production and without NODE_EXTRA_CA_CERTS; ' +
      `request bodies ${fixtures.payloads['1kb'].bytes} and ${fixtures.payloads['100kb'].bytes} bytes, ` +
      'parser limit 1 MB everywhere',
  ];
  console.log(environment(nodes[0]).slice(1).join('\n'));
  const perLine = Math.ceil(estimateSeconds(options) / 60);
  console.log(
    `At most about ${perLine} min per Node line (${nodes.map((node) => node.version).join(', ')}) ` +
      `for ${options.scenarios.length} scenarios × ${options.frameworks.length} frameworks (less where n/a).`,
  );

  const lines = [];
  const sections = [];
  if (options.check) {
    let failed = false;
    try {
      for (const node of nodes) {
        console.log(`\n=== Node ${node.version}: checking every server's answer (no measuring)`);
        const line = await runLine(node, options, { loader, fixtures, live });
        failed ||= Object.values(line.results).some((byFramework) =>
          Object.values(byFramework).some((result) => result.failed),
        );
      }
    } finally {
      await cleanUp();
    }
    process.exitCode = failed ? 1 : 0;
    return;
  }
  try {
    for (const node of nodes) {
      console.log(`\n=== Node ${node.version} (${node.path})`);
      const env = environment(node);
      const line = await runLine(node, options, { loader, fixtures, live });
      lines.push(line);
      sections.push(
        markdownSection({
          title: `Node ${node.version}`,
          scenarios: options.scenarios,
          frameworks: options.frameworks,
          environment: env,
          stat: options.stat,
          ...line,
        }),
      );
    }
  } finally {
    await cleanUp();
  }

  const out = options.out || join(root, 'bench/results/latest.md');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, markdownReport({ sections, scenarios: options.scenarios, frameworks: options.frameworks, lines }));
  const raw = out.replace(/\.md$/, '') + '.json';
  writeFileSync(raw, JSON.stringify({ lines }, null, 2) + '\n');
  console.log(
    `\nMarkdown report: ${relative(process.cwd(), out) || out} (every round: ${relative(process.cwd(), raw) || raw})`,
  );
  if (!existsSync(join(root, 'dist/cjs/index.js')))
    warn('dist/cjs/index.js is missing: webapp was not measured (npm run build).');
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
