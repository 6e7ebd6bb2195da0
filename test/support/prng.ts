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
