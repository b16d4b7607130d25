/**
 * What a word character is, defined once for every engine (README, "Word boundaries"): a Unicode
 * letter, mark or number (`\p{L}`, `\p{M}`, `\p{N}`), read from one generated table
 * (word-ranges.ts) so that the JS splitting (splitWords, used by the search and the indexer alike)
 * and the Postgres statements agree on every code point, whatever the database's locale or the
 * runtime's own Unicode tables. Postgres regular-expression classes such as `[[:alnum:]]` follow
 * the database's ctype, so the statements spell the characters out instead.
 */
import { WORD_RANGES } from './word-ranges.js';

/** The word characters as `[first, last]` code point pairs, ascending. */
export const WORD_CODE_POINTS: ReadonlyArray<readonly [number, number]> = WORD_RANGES.flatMap((line) =>
  line.split(' ').map((range) => {
    const [first, last] = range.split('-').map((hex) => parseInt(hex, 16));
    return [first!, last!] as const;
  }),
);

/** The code points that are no word character, from 1 (Postgres text holds no NUL), surrogates left out. */
function nonWordCodePoints(): Array<[number, number]> {
  const gaps: Array<[number, number]> = [];
  let next = 1;
  const gap = (first: number, last: number) => {
    if (first > last) return;
    // Surrogates are no characters: a Postgres text never holds one.
    if (first < 0xd800 && last > 0xdfff) gaps.push([first, 0xd7ff], [0xe000, last]);
    else gaps.push([first, last]);
  };
  for (const [first, last] of WORD_CODE_POINTS) {
    gap(next, first - 1);
    next = last + 1;
  }
  gap(next, 0x10ffff);
  return gaps;
}

/** A code point as a Postgres ARE escape (`\uXXXX`, `\UXXXXXXXX`). */
function areEscape(cp: number): string {
  return cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\U${cp.toString(16).padStart(8, '0')}`;
}

/** A bracket expression's ranges for `ranges`, in ARE escapes (a positive class: compiled far faster than a negated one). */
function areRanges(ranges: ReadonlyArray<readonly [number, number]>): string {
  return ranges.map(([first, last]) => (first === last ? areEscape(first) : `${areEscape(first)}-${areEscape(last)}`)).join('');
}

const NON_WORD_CODE_POINTS = nonWordCodePoints();

/**
 * A Postgres bracket expression of every character that is no word character: about 800 ranges,
 * 11 kB. Positive: Postgres compiles it in about 0.05 ms, where the negated class of the word
 * characters took 0.35–1.3 ms. A walk that tests it on 21,726 contents holding the word took
 * 65–72 ms against 58–60 with the locale class `[^[:alnum:]…]` it replaces (Postgres also
 * compares the whole pattern with its cache of compiled ones on every row). The statements
 * compile it only for a text where the word follows a character past ASCII (word-start.ts).
 */
export const NON_WORD_CLASS = `[${areRanges(NON_WORD_CODE_POINTS)}]`;

/** NON_WORD_CLASS's ASCII part (every ASCII character but the letters and digits): a few ranges, compiled at once. */
export const ASCII_NON_WORD_CLASS = `[${areRanges(
  NON_WORD_CODE_POINTS.filter(([first]) => first <= 0x7f).map(([first, last]) => [first, Math.min(last, 0x7f)] as const),
)}]`;

/** Every character past ASCII (surrogates left out, as in NON_WORD_CLASS). */
export const BEYOND_ASCII_CLASS = `[${areRanges([
  [0x80, 0xd7ff],
  [0xe000, 0x10ffff],
])}]`;

/** One run of characters that are no word character, in JS (the `u` flag). */
export const NON_WORD_RUN = new RegExp(
  `[^${WORD_CODE_POINTS.map(([first, last]) => `\\u{${first.toString(16)}}-\\u{${last.toString(16)}}`).join('')}]+`,
  'u',
);
