/**
 * The common generators of the generated differentials: odd strings, values of
 * every type, and text from an alphabet, all drawn from a seeded `Random` so a
 * failure reproduces.
 */
import { pick, type Random } from './prng';

/** Strings a caller may pass by mistake or by malice: empty, odd, control, non-ASCII, long, numeric. */
export const ODD_STRINGS: readonly string[] = [
  '',
  ' ',
  'a',
  'foo',
  'Foo-Bar',
  '0',
  '1',
  '-1',
  '1e3',
  ' 42 ',
  'NaN',
  'Infinity',
  'null',
  'undefined',
  'true',
  'é',
  'café',
  '☃',
  '😀',
  '\ud800',
  'a\u2028b',
  '\x00',
  'a\tb',
  'a\r\nX-Injected: 1',
  '\n',
  '\x7f',
  'a;b',
  'a,b',
  'a=b',
  '"quoted"',
  "it's",
  'a b',
  '%',
  '%zz',
  '%41',
  '%E2%82%AC',
  'a/b',
  'a\\b',
  '../x',
  '<script>',
  '&amp;',
  '__proto__',
  'constructor',
  'toString',
  'x'.repeat(300),
  'é'.repeat(2000),
];

/** What `oddValues` draws from. */
export interface OddKinds {
  /** How many kinds a roll picks from: the rolls past `extra` give a string. */
  rolls: number;
  numbers: readonly number[];
  /** Dates at these times. */
  times: readonly number[];
  /** Kinds after the eight every generator has (undefined, null, NaN, number, boolean, Date, array, object). */
  extra: ReadonlyArray<() => unknown>;
  strings: readonly string[];
}

/** A generator of values of every type, strings among them; arrays and objects nest two levels. */
export function oddValues(kinds: OddKinds): (random: Random, depth?: number) => unknown {
  const oddValue = (random: Random, depth = 0): unknown => {
    const roll = Math.floor(random() * kinds.rolls);
    switch (roll) {
      case 0:
        return undefined;
      case 1:
        return null;
      case 2:
        return NaN;
      case 3:
        return pick(random, kinds.numbers);
      case 4:
        return random() < 0.5;
      case 5:
        return new Date(pick(random, kinds.times));
      case 6:
        return depth > 1 ? [] : [oddValue(random, depth + 1), oddValue(random, depth + 1)];
      case 7:
        return depth > 1 ? {} : { a: oddValue(random, depth + 1) };
      default:
        return roll - 8 < kinds.extra.length ? kinds.extra[roll - 8]() : pick(random, kinds.strings);
    }
  };
  return oddValue;
}

/** Values of every type, strings among them. */
export const oddValue = oddValues({
  rolls: 22,
  numbers: [0, 1, -1, 1.5, -0, 200, 404, 999, 1e21, 2 ** 53, Infinity, -Infinity],
  times: [0, 1, 1e12, -1, 8.64e15, NaN],
  extra: [
    () => JSON.parse('{"__proto__": {"x": 1}, "constructor": "c"}'),
    () => Object.create({ inherited: 'yes' }),
    () => Buffer.from('buf'),
    () => () => 'fn',
    () => Symbol.for('s'),
    () => 10n,
  ],
  strings: ODD_STRINGS,
});

/** A string of up to `max` pieces drawn from `alphabet` (characters or short runs). */
export function randomText(random: Random, alphabet: readonly string[], max: number): string {
  let text = '';
  const length = Math.floor(random() * (max + 1));
  for (let i = 0; i < length; i++) text += pick(random, alphabet);
  return text;
}
