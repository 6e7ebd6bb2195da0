/**
 * `engines` states what is tested: the oldest release it admits is one CI runs tests
 * under, named in the docs, and CI runs tests under every line the README names.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot as root } from '../support/scratch-project';

const engines: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node;
const ciScript = readFileSync(join(root, '.ci/run'), 'utf8');

/** The releases and lines `npm test -- --node ...` is given in .ci/run. */
function linesCiRuns(): string[] {
  return [...ciScript.matchAll(/npm test -- --node ([\d.,]+)/g)].flatMap((match) => match[1].split(','));
}

describe('engines', () => {
  it('admits from one release on, a release CI runs the tests under', () => {
    const oldest = /^>=(\d+\.\d+\.\d+)$/.exec(engines);
    assert.ok(oldest, `engines.node is ${JSON.stringify(engines)}, not a single lower bound`);
    assert.ok(linesCiRuns().includes(oldest[1]), `.ci/run runs no tests under Node ${oldest[1]}`);
  });

  it('names that release in the README and docs/compatibility.md', () => {
    const oldest = engines.slice(2);
    for (const file of ['README.md', 'docs/compatibility.md']) {
      assert.ok(readFileSync(join(root, file), 'utf8').includes(oldest), `${file} does not name ${oldest}`);
    }
  });

  it('CI runs tests under each line the README names: 20, 22, 24 and 26', () => {
    const majors = new Set(linesCiRuns().map((line) => Number(line.split('.')[0])));
    assert.deepEqual(
      [...majors].sort((a, b) => a - b),
      [20, 22, 24, 26],
    );
    assert.match(readFileSync(join(root, 'README.md'), 'utf8'), /tested on Node \*\*20, 22, 24 and 26\*\*/);
  });
});
