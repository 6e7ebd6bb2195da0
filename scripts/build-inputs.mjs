// Whether dist/ is already the build of the sources as they are. A build records a digest
// of everything it reads (src/, its own scripts, tsconfig.json, the TypeScript it runs) in
// dist/; a build that finds the same digest there has nothing to do. `npm test`,
// `npm run test:integration`, `npm run test:e2e` and `npm start` each build first, and CI
// runs them one after another: without this, the same 5 s build four times over.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The file in dist/ that holds the digest of the inputs it was built from. */
export const INPUTS_FILE = '.build-inputs';

/** What the build reads, relative to the repository's root; src/ is listed file by file. */
const FIXED_INPUTS = [
  'scripts/build.mjs',
  'scripts/build-inputs.mjs',
  'scripts/bundle-core.mjs',
  'scripts/swap-dir.mjs',
  'tsconfig.json',
  'node_modules/typescript/package.json',
];

/** The digest of the build's inputs: their paths and bytes (a missing one counts as missing). */
export function inputsDigest(root) {
  const sources = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name).slice(root.length + 1))
    .sort();
  const hash = createHash('sha256');
  for (const file of [...sources, ...FIXED_INPUTS]) {
    hash.update(file + '\0');
    try {
      hash.update(readFileSync(join(root, file)));
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
      hash.update('(missing)');
    }
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The digest dist/ was built from, or null (no dist/, or one built before digests were kept). */
export function builtFrom(dist) {
  try {
    return readFileSync(join(dist, INPUTS_FILE), 'utf8').trim();
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw err;
  }
}
