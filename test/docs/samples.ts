/**
 * Code samples of the Markdown guides in docs/, found by their fence's info string:
 *   ```js runnable   run with node, as CommonJS, in a project that has webapp installed
 *   ```mjs runnable  the same as an ES module
 *   ```ts            type-checked (strict) against webapp's published types
 *   ```ts runnable   type-checked, then run with tsx
 *   ```js / ```mjs   syntax-checked only (a fragment such as `app.use(...)`; `await` allowed)
 *   ```ts fragment   syntax-checked only (TypeScript that names things it does not declare)
 * Other languages (sh, json, text...) are prose. A runnable sample that starts a server
 * is bound to 127.0.0.1 on a free port; the `<!-- expect: ... -->` lines right after its
 * block are requests sent to it (see sample-harness.cjs).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export interface Expectation {
  method: string;
  path: string;
  body?: string;
  status: number;
  /** Text the response body must contain. */
  contains?: string;
}

export interface Sample {
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  language: 'js' | 'mjs' | 'ts';
  runnable: boolean;
  /** Only its syntax is checked (`ts fragment`; every js/mjs block that is not runnable). */
  fragment: boolean;
  code: string;
  expectations: Expectation[];
}

const fence = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)(.*)$/;
const languages: Record<string, Sample['language']> = {
  js: 'js',
  javascript: 'js',
  cjs: 'js',
  mjs: 'mjs',
  ts: 'ts',
  typescript: 'ts',
};

/** `<!-- expect: GET /users/42 -> 200 user 42 -->`, `<!-- expect: POST /echo {"a":1} -> 201 {"a":1} -->` */
export function parseExpectation(text: string): Expectation {
  const match = /^(\w+)\s+(\S+)(?:\s+(.+?))?\s*->\s*(\d{3})(?:\s+(.*))?$/.exec(text.trim());
  if (!match) throw new Error(`cannot read the expectation "${text}": write METHOD PATH [BODY] -> STATUS [TEXT]`);
  const [, method, path, body, status, contains] = match;
  return { method: method.toUpperCase(), path, body, status: Number(status), contains: contains?.trim() || undefined };
}

export function extractSamples(doc: string, markdown: string): Sample[] {
  const lines = markdown.split('\n');
  const samples: Sample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = fence.exec(lines[i]);
    if (!open) continue;
    const [, indent, marker, info, rest] = open;
    const start = i;
    const body: string[] = [];
    for (
      i++;
      i < lines.length && !(lines[i].trim().startsWith(marker) && lines[i].trim().replace(/[`~]/g, '') === '');
      i++
    ) {
      body.push(lines[i].startsWith(indent) ? lines[i].slice(indent.length) : lines[i]);
    }
    if (i === lines.length) throw new Error(`${doc}:${start + 1}: the code block is never closed`);
    const language = languages[info.toLowerCase()];
    if (!language) continue;
    const expectations: Expectation[] = [];
    for (let next = i + 1; next < lines.length; next++) {
      if (lines[next].trim() === '') continue;
      const comment = /^\s*<!--\s*expect:\s*(.*?)\s*-->\s*$/.exec(lines[next]);
      if (!comment) break;
      expectations.push(parseExpectation(comment[1]));
      i = next;
    }
    const runnable = /\brunnable\b/.test(rest);
    const fragment = !runnable && (language !== 'ts' || /\bfragment\b/.test(rest));
    if (expectations.length > 0 && !runnable)
      throw new Error(`${doc}:${start + 1}: expectations follow a block that is not runnable`);
    samples.push({ doc, line: start + 1, language, runnable, fragment, code: body.join('\n') + '\n', expectations });
  }
  return samples;
}

/** Every Markdown file under `dir` (guides added later are picked up too). */
export function markdownFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...markdownFiles(full));
    else if (entry.name.endsWith('.md')) files.push(full);
  }
  return files.sort();
}

export function readSamples(dir: string, relativeTo: (file: string) => string): Sample[] {
  return markdownFiles(dir).flatMap((file) => extractSamples(relativeTo(file), readFileSync(file, 'utf8')));
}
