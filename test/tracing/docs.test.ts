/** docs/tracing.md's example runs and prints what the page says it prints. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const page = readFileSync(join(__dirname, '../../docs/tracing.md'), 'utf8');
const blocks = [...page.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], code: m[2] }));

describe('docs/tracing.md', () => {
  it('the subscriber example prints the output shown', async () => {
    const example = blocks.find((b) => b.lang === 'js' && b.code.includes("tracingChannel('webapp:layer')"))!;
    const expected = blocks[blocks.indexOf(example) + 1];
    assert.equal(expected.lang, 'text');
    const modules: Record<string, unknown> = { webapp: require('../../src/index') };
    const printed = await new Promise<string>((resolve) => {
      const fakeConsole = { log: (text: string) => resolve(text) };
      const fakeRequire = (id: string) => modules[id] ?? require(id);
      new Function('require', 'console', example.code)(fakeRequire, fakeConsole);
    });
    assert.equal(printed + '\n', expected.code);
  });
});
