// Turning measured rounds into numbers and tables: one statistic of the rounds
// (the best round by default, or the median), their spread, and ratios to
// node:http (the ceiling) and express@4 (the reference).
//
// Why the best round: on a shared machine other work only ever takes CPU away,
// so noise lowers a round and never raises it; the best of a few rounds is the
// estimate of capacity that noise disturbs least (as timeit and pyperf take the
// fastest run). The median is there for quiet machines.
import { CEILING, REFERENCE } from './frameworks.mjs';

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Half the min-max range as a share of the median: how much the rounds disagreed. */
export function spread(values) {
  return values.length < 2 ? 0 : (Math.max(...values) - Math.min(...values)) / 2 / median(values);
}

export const STATISTICS = {
  best: { label: 'best round', of: (rounds) => Math.max(...rounds) },
  median: { label: 'median round', of: median },
};

/** A result is `{ rounds: number[], bad }`, `{ skipped: reason }` or `{ failed: reason }`. */
export function rateOf(result, stat) {
  return result && result.rounds && result.rounds.length > 0 ? STATISTICS[stat].of(result.rounds) : null;
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

function formatRate(result, stat) {
  const rate = rateOf(result, stat);
  if (rate === null) return result && result.failed ? 'failed' : 'n/a';
  const flag = result.bad > 0 ? ' !' : '';
  return `${integer.format(rate)} ±${Math.round(spread(result.rounds) * 100)}%${flag}`;
}

function formatRatio(result, base, stat) {
  const rate = rateOf(result, stat);
  const baseRate = rateOf(base, stat);
  return rate === null || baseRate === null ? 'n/a' : (rate / baseRate).toFixed(2);
}

function pad(cells, widths) {
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
}

/** The console block printed as soon as a scenario is done. */
export function scenarioTable(scenario, frameworks, results, stat) {
  const header = ['framework', `req/s (${STATISTICS[stat].label})`, 'vs node:http', 'vs express@4'];
  const rows = frameworks.map((framework) => {
    const result = results[framework.id];
    return [framework.label, formatRate(result, stat), formatRatio(result, results[CEILING], stat), formatRatio(result, results[REFERENCE], stat)];
  });
  const widths = header.map((_, i) => Math.max(header[i].length, ...rows.map((row) => row[i].length)));
  const notes = frameworks
    .filter((framework) => results[framework.id] && (results[framework.id].skipped || results[framework.id].failed))
    .map((framework) => `    ${framework.label}: ${results[framework.id].skipped || results[framework.id].failed}`);
  return [
    `\n${scenario.id}: ${scenario.title}`,
    `  ${pad(header, widths)}`,
    ...rows.map((row) => `  ${pad(row, widths)}`),
    ...notes,
  ].join('\n');
}

function markdownTable(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

/** bench/results/latest.md: the three tables the README pastes, with how they were made. */
export function markdownReport({ scenarios, frameworks, results, environment, stat }) {
  const header = ['', ...scenarios.map((scenario) => scenario.id)];
  const table = (cell) => markdownTable(header, frameworks.map((framework) => [
    framework.label,
    ...scenarios.map((scenario) => cell(results[scenario.id] || {}, framework)),
  ]));
  const notes = [];
  for (const scenario of scenarios) {
    for (const framework of frameworks) {
      const result = (results[scenario.id] || {})[framework.id];
      if (result && (result.skipped || result.failed)) notes.push(`- ${framework.label}, ${scenario.id}: ${result.skipped || result.failed}`);
      if (result && result.bad > 0) notes.push(`- ${framework.label}, ${scenario.id}: ${result.bad} non-2xx/3xx responses or socket errors (marked !)`);
    }
  }
  return [
    `# Benchmark results`,
    '',
    ...environment.map((line) => `- ${line}`),
    '',
    '## Relative to express@4 (higher is faster)',
    '',
    table((byFramework, framework) => formatRatio(byFramework[framework.id], byFramework[REFERENCE], stat)),
    '',
    '## Relative to node:http, the ceiling',
    '',
    table((byFramework, framework) => formatRatio(byFramework[framework.id], byFramework[CEILING], stat)),
    '',
    `## Requests per second (${STATISTICS[stat].label}, ± half the min-max range of the rounds)`,
    '',
    table((byFramework, framework) => formatRate(byFramework[framework.id], stat)),
    '',
    '## Scenarios',
    '',
    ...scenarios.map((scenario) => `- \`${scenario.id}\`: ${scenario.title}`),
    ...(notes.length > 0 ? ['', '## Notes', '', ...notes] : []),
    '',
  ].join('\n');
}
