// The README's benchmark tables from a run's raw results (bench/results/latest.json
// by default), one column per Node line of the run, best rounds: webapp against
// node:http with fastify against node:http beside it, then webapp against express@4.
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

/** One markdown table: a row per scenario, a column per Node line, `cell` filling each. */
function table(title, cell) {
  const header = [title, ...lines.map((line) => `Node ${line.node.line}`)];
  const rows = [
    `| ${header.join(' | ')} |`,
    `|---|${header
      .slice(1)
      .map(() => '--:')
      .join('|')}|`,
  ];
  for (const scenario of SCENARIOS) {
    const cells = [NAMES[scenario.id] ?? scenario.id];
    for (const line of lines) {
      const results = line.results[scenario.id];
      const [webapp, express, node, fastify] = ['webapp', 'express4', 'node-http', 'fastify'].map((id) =>
        best(results?.[id]),
      );
      cells.push(results ? cell({ webapp, express, node, fastify }) : 'n/a');
    }
    rows.push(`| ${cells.join(' | ')} |`);
  }
  return rows.join('\n');
}

// webapp against node:http (the ceiling), with fastify's ratio in the same run beside it.
console.log(
  table('webapp ÷ node:http (fastify ÷ node:http)', ({ webapp, node, fastify }) => {
    const theirs = ratio(fastify, node);
    return theirs === 'n/a' ? ratio(webapp, node) : `${ratio(webapp, node)} (${theirs})`;
  }),
);
console.log();
// webapp against the framework it replaces.
console.log(table('webapp ÷ express@4', ({ webapp, express }) => ratio(webapp, express)));
