// The README's benchmark table from a run's raw results (bench/results/latest.json
// by default): for each Node line of the run, webapp against express@4 and
// node:http, and fastify against node:http, per scenario (best rounds).
//
//   node bench/summary.mjs [results.json]
import { readFileSync } from 'node:fs';
import { SCENARIOS } from './lib/scenarios.mjs';

const file = process.argv[2] ?? new URL('./results/latest.json', import.meta.url);
const { lines } = JSON.parse(readFileSync(file, 'utf8'));

const best = (entry) => (entry?.rounds?.length > 0 ? Math.max(...entry.rounds) : null);
const ratio = (a, b) => (a === null || b === null ? 'n/a' : (a / b).toFixed(2));

/** The README's names of the scenarios (their ids elsewhere). */
const NAMES = {
  hello: 'hello (`res.send` text)',
  json: 'json (`res.json`)',
  routes10: 'last of 10 routes',
  routes100: 'last of 100 routes',
  routes1000: 'last of 1,000 routes',
  mw5: '5 no-op middlewares',
  mw100: '100 no-op middlewares',
  routers3: 'three nested routers',
  'body-1kb': 'JSON body, 1 KB',
  'body-100kb': 'JSON body, 100 KB',
  form: 'urlencoded form',
  query: 'nested query string',
  'static-4kb': 'static file, 4 KB',
  'static-1mb': 'static file, 1 MB',
  sendfile: '`res.sendFile`',
  ejs: 'ejs render',
  gzip: 'gzip (compress)',
  cookies: 'cookies read and set',
};

const header = ['scenario'];
for (const line of lines) {
  const name = `Node ${line.node.line}`;
  header.push(`${name}: vs express@4`, 'vs node:http', 'fastify vs node:http');
}
console.log(`| ${header.join(' | ')} |`);
console.log(
  `|---|${header
    .slice(1)
    .map(() => '--:')
    .join('|')}|`,
);
for (const scenario of SCENARIOS) {
  const cells = [NAMES[scenario.id] ?? scenario.id];
  for (const line of lines) {
    const results = line.results[scenario.id];
    if (!results) {
      cells.push('n/a', 'n/a', 'n/a');
      continue;
    }
    const [webapp, express, node, fastify] = ['webapp', 'express4', 'node-http', 'fastify'].map((id) =>
      best(results[id]),
    );
    cells.push(ratio(webapp, express), ratio(webapp, node), ratio(fastify, node));
  }
  console.log(`| ${cells.join(' | ')} |`);
}
