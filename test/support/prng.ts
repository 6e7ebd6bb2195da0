/**
 * WEBAPP_TEST_SEED=n, mixed into every seed: the generated tests draw other inputs,
 * to hunt for differences beyond the ones every run sees (docs/compatibility.md,
 * "Running it yourself"). Unset, every run sees the same inputs.
 */
export function testSeed(): number {
  const given = process.env.WEBAPP_TEST_SEED;
  if (given === undefined || given === '') return 0;
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`WEBAPP_TEST_SEED must be an integer, not ${JSON.stringify(given)}`);
  return seed >>> 0;
}

const extraSeed = testSeed();

/**
 * WEBAPP_TEST_SCALE=x multiplies the number of cases of the largest generated tests
 * (`scaled(count)`), for a deep hunt beside another seed. Unset, each draws the count
 * its file gives: sized so that `npm test` stays within its five minutes on CI's two
 * cores. With the same seed, fewer cases are the first ones of a longer run.
 */
export function testScale(): number {
  const given = process.env.WEBAPP_TEST_SCALE;
  if (given === undefined || given === '') return 1;
  const scale = Number(given);
  if (!(scale > 0 && Number.isFinite(scale)))
    throw new Error(`WEBAPP_TEST_SCALE must be a positive number, not ${JSON.stringify(given)}`);
  return scale;
}

const caseScale = testScale();

/** `count` cases, times WEBAPP_TEST_SCALE (see testScale), at least one. */
export const scaled = (count: number): number => Math.max(1, Math.round(count * caseScale));

/** mulberry32: a small seeded PRNG, so every run of a fuzz test sees the same inputs. */
export function prng(seed: number): () => number {
  let state = (seed ^ extraSeed) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Random = () => number;

/** One item of `list`, chosen by `random`. */
export const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)];

/** True with probability `p`. */
export const chance = (random: Random, p: number): boolean => random() < p;
