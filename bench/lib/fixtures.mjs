// The files a run needs, written fresh into a temporary directory: the request
// bodies (and the wrk Lua scripts that POST them), the static files and the view.
// Contents are deterministic, so every run measures the same bytes.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FORM_BODY, VIEW_TEMPLATE } from './workloads.mjs';

const PAYLOAD_SIZES = { '1kb': 1024, '100kb': 100 * 1024 };

/** A JSON document of realistic small records, as large as fits in `maxBytes`. */
function jsonPayload(maxBytes) {
  const items = [];
  let bytes = Buffer.byteLength(JSON.stringify({ items })); // '{"items":[]}'
  for (let i = 0; ; i++) {
    const item = { id: i, name: `item-${i}`, tags: ['alpha', 'beta'], active: i % 2 === 0, score: i * 1.5 };
    const added = Buffer.byteLength(JSON.stringify(item)) + (items.length > 0 ? 1 : 0); // the comma
    if (bytes + added > maxBytes) break;
    items.push(item);
    bytes += added;
  }
  return { text: JSON.stringify({ items }), count: items.length };
}

function textFile(bytes) {
  const line = 'The quick brown fox jumps over the lazy dog. 0123456789\n';
  return Buffer.from(line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes));
}

function binaryFile(bytes) {
  const buffer = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) buffer[i] = (i * 31 + (i >> 8)) & 0xff;
  return buffer;
}

function wrkPostScript(bodyFile, type) {
  // JSON string syntax is valid Lua string syntax for the ASCII paths mkdtemp makes.
  return [
    `local file = assert(io.open(${JSON.stringify(bodyFile)}, "rb"))`,
    'wrk.method = "POST"',
    'wrk.body = file:read("*a")',
    'file:close()',
    `wrk.headers["Content-Type"] = ${JSON.stringify(type)}`,
    '',
  ].join('\n');
}

export function createFixtures() {
  const dir = mkdtempSync(join(tmpdir(), 'webapp-bench-'));
  const staticRoot = join(dir, 'static');
  const files = { 'small.txt': textFile(4 * 1024), 'large.bin': binaryFile(1024 * 1024) };
  const viewsRoot = join(dir, 'views');
  const payloads = {};
  mkdirSync(staticRoot);
  mkdirSync(viewsRoot);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(staticRoot, name), content);
  writeFileSync(join(viewsRoot, 'page.ejs'), VIEW_TEMPLATE);
  const payload = (name, text, type, count) => {
    const file = join(dir, `payload-${name}`);
    const wrkScript = join(dir, `post-${name}.lua`);
    writeFileSync(file, text);
    writeFileSync(wrkScript, wrkPostScript(file, type));
    payloads[name] = { file, wrkScript, type, body: Buffer.from(text), bytes: Buffer.byteLength(text), count };
  };
  for (const [name, maxBytes] of Object.entries(PAYLOAD_SIZES)) {
    const { text, count } = jsonPayload(maxBytes);
    payload(name, text, 'application/json', count);
  }
  payload('form', FORM_BODY, 'application/x-www-form-urlencoded', null);
  return {
    dir,
    staticRoot,
    viewsRoot,
    files,
    payloads,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
