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

/** The first code point past ASCII. */
const BEYOND_ASCII = 0x80;

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

/** The ASCII characters that are no word character (every one but letters and digits). */
const ASCII_NON_WORD = `[${areRanges(NON_WORD_CODE_POINTS.filter(([first]) => first < BEYOND_ASCII).map(([f, l]) => [f, Math.min(l, 0x7f)] as const))}]`;

/** The characters past ASCII that are no word character: about 800 ranges, 11 kB of pattern. */
const BEYOND_ASCII_NON_WORD = `[${areRanges(
  NON_WORD_CODE_POINTS.filter(([, last]) => last >= BEYOND_ASCII).map(([f, l]) => [Math.max(f, BEYOND_ASCII), l] as const),
)}]`;

/** One run of characters that are no word character, in JS (the `u` flag). */
export const NON_WORD_RUN = new RegExp(
  `[^${WORD_CODE_POINTS.map(([first, last]) => `\\u{${first.toString(16)}}-\\u{${last.toString(16)}}`).join('')}]+`,
  'u',
);

/**
 * The Postgres regular expressions (for the case-sensitive `~`) that together tell whether the
 * text holds `wordRegex` (a folded word's foldedRegex) at the start of a word: at the start of the
 * text or after a character that is no word character.
 * - `ascii`: at the start or after an ASCII one. Small and quick: it decides most texts.
 * - `beyond`: after any character past ASCII; a text it rejects has no other word start.
 * - `exact`: after a character past ASCII that is no word character. Its class is large (0.05 ms
 *   to compile, and Postgres compares the whole pattern with its cache on every row), so it runs
 *   only on the texts the other two leave undecided (wordStartTest).
 */
export function wordStartPatterns(wordRegex: string): { ascii: string; beyond: string; exact: string } {
  return {
    ascii: `(^|${ASCII_NON_WORD})${wordRegex}`,
    beyond: `[\\u0080-\\U0010ffff]${wordRegex}`,
    exact: `${BEYOND_ASCII_NON_WORD}${wordRegex}`,
  };
}

/** The parameters (`$n`) of a word's wordStartPatterns. */
export interface WordStartParams {
  ascii: string;
  beyond: string;
  exact: string;
}

/**
 * SQL true when `text` holds the word of `params` at the start of a word (NULL for a NULL text,
 * like `~`). Postgres evaluates the tests in order and stops at the first that decides.
 */
export function wordStartTest(text: string, params: WordStartParams): string {
  return `(${text} ~ ${params.ascii} OR (${text} ~ ${params.beyond} AND ${text} ~ ${params.exact}))`;
}
