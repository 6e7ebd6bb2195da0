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
  // A base that served nothing in its rounds (0 req/s) gives no ratio.
  return rate === null || baseRate === null || baseRate <= 0 ? 'n/a' : (rate / baseRate).toFixed(2);
}

function pad(cells, widths) {
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
}

/** The console block printed as soon as a scenario is done. */
export function scenarioTable(scenario, frameworks, results, stat) {
  const header = ['framework', `req/s (${STATISTICS[stat].label})`, 'vs node:http', 'vs express@4'];
  const rows = frameworks.map((framework) => {
    const result = results[framework.id];
    return [
      framework.label,
      formatRate(result, stat),
      formatRatio(result, results[CEILING], stat),
      formatRatio(result, results[REFERENCE], stat),
    ];
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

function extrasTable(frameworks, extras) {
  const cell = (entry, key, format) => {
    if (!entry) return 'n/a';
    if (entry.failed) return 'failed';
    return entry[key] === null || entry[key] === undefined ? 'n/a' : format(entry[key]);
  };
  return markdownTable(
    ['', 'p99 latency, 64 connections (ms)', 'RSS after 10,000 requests (MB)', 'cold start, spawn to first 200 (ms)'],
    frameworks.map((framework) => {
      const entry = extras[framework.id];
      return [
        framework.label,
        cell(entry, 'p99', (ms) => ms.toFixed(2)),
        cell(entry, 'rss', (bytes) => (bytes / 1024 / 1024).toFixed(1)),
        cell(entry, 'start', (ms) => ms.toFixed(0)),
      ];
    }),
  );
}

export function targetsTable(rows) {
  return markdownTable(
    ['target (webapp)', 'measured', 'result'],
    rows.map((row) => [row.target, row.measured, row.result]),
  );
}

/** The console block of the targets check. */
export function targetsText(rows) {
  const widths = [
    Math.max(...rows.map((row) => row.target.length)),
    Math.max(...rows.map((row) => row.measured.length)),
  ];
  return rows
    .map((row) => `  ${row.target.padEnd(widths[0])}  ${row.measured.padEnd(widths[1])}  ${row.result}`)
    .join('\n');
}

/** One Node line's section of bench/results/latest.md: its tables, measurements and targets. */
export function markdownSection({ title, scenarios, frameworks, results, extras, targets, environment, stat }) {
  const header = ['', ...scenarios.map((scenario) => scenario.id)];
  const table = (cell) =>
    markdownTable(
      header,
      frameworks.map((framework) => [
        framework.label,
        ...scenarios.map((scenario) => cell(results[scenario.id] || {}, framework)),
      ]),
    );
  const notes = [];
  for (const scenario of scenarios) {
    for (const framework of frameworks) {
      const result = (results[scenario.id] || {})[framework.id];
      if (result && result.failed) notes.push(`- ${framework.label}, ${scenario.id}: ${result.failed}`);
      if (result && result.bad > 0)
        notes.push(
          `- ${framework.label}, ${scenario.id}: ${result.bad} non-2xx/3xx responses or socket errors (marked !)`,
        );
    }
  }
  for (const framework of frameworks) {
    if (extras && extras[framework.id] && extras[framework.id].failed)
      notes.push(`- ${framework.label}, measurements: ${extras[framework.id].failed}`);
  }
  return [
    `## ${title}`,
    '',
    ...environment.map((line) => `- ${line}`),
    '',
    '### Relative to node:http, the ceiling (higher is faster)',
    '',
    table((byFramework, framework) => formatRatio(byFramework[framework.id], byFramework[CEILING], stat)),
    '',
    '### Relative to express@4',
    '',
    table((byFramework, framework) => formatRatio(byFramework[framework.id], byFramework[REFERENCE], stat)),
    '',
    `### Requests per second (${STATISTICS[stat].label}, ± half the min-max range of the rounds)`,
    '',
    table((byFramework, framework) => formatRate(byFramework[framework.id], stat)),
    ...(extras ? ['', '### Latency, memory, start (the `hello` server)', '', extrasTable(frameworks, extras)] : []),
    '',
    '### Targets',
    '',
    targetsTable(targets),
    ...(notes.length > 0 ? ['', '### Notes', '', ...notes] : []),
    '',
  ].join('\n');
}

/** bench/results/latest.md: one section per Node line, then what the scenarios are and what was n/a. */
export function markdownReport({ sections, scenarios, frameworks, lines }) {
  const skipped = [];
  for (const scenario of scenarios) {
    for (const framework of frameworks) {
      const result = (lines[0]?.results[scenario.id] || {})[framework.id];
      if (result && result.skipped) skipped.push(`- ${framework.label}, ${scenario.id}: ${result.skipped}`);
    }
  }
  return [
    '# Benchmark results',
    '',
    ...sections,
    '## Scenarios',
    '',
    ...scenarios.map((scenario) => `- \`${scenario.id}\`: ${scenario.title}`),
    ...(skipped.length > 0 ? ['', '## n/a', '', ...skipped] : []),
    '',
  ].join('\n');
}
