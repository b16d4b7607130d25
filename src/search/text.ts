/** Text rules shared by every engine: how `q` becomes words, and how literal substrings are matched. */
import type { SqlParams } from '../db/db.js';

/** Word characters: letters, combining marks and digits, in any script. */
const NON_WORD = /[^\p{L}\p{M}\p{N}]+/u;

/**
 * Splits text into lower-cased words on every non-letter/digit character (contract §4.2).
 * `"Zebra-crossing, test1!"` → `["zebra", "crossing", "test1"]`. Duplicates are removed.
 */
export function splitWords(text: string): string[] {
  const words = new Set<string>();
  for (const w of text.toLowerCase().split(NON_WORD)) if (w !== '') words.add(w);
  return [...words];
}

/** Escapes `\`, `%` and `_` so a caller's text is matched literally by (I)LIKE (default escape `\`). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `%text%` for a literal, case-insensitive substring match with ILIKE. */
export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

/**
 * SQL that is true when `q` is a case-insensitive literal substring of any of `columns`. Each
 * column gets its own `col ILIKE $n` so a trigram index on that column (or a multi-column one
 * covering it) can serve the test. Every substring match of contacts and conversations uses this.
 */
export function substringMatch(columns: readonly string[], q: string, p: SqlParams): string {
  const pattern = p.add(containsPattern(q));
  return `(${columns.map((col) => `${col} ILIKE ${pattern}`).join(' OR ')})`;
}

/**
 * Combining marks (Unicode blocks of Mn characters): part of a word, like letters, though
 * Postgres's [:alnum:] does not include them. Written as ARE escapes.
 */
const MARK_RANGES = ['\\u0300-\\u036f', '\\u1ab0-\\u1aff', '\\u1dc0-\\u1dff', '\\u20d0-\\u20ff', '\\ufe20-\\ufe2f'].join('');

/**
 * A Postgres regular expression (for `~*`) that matches `word` at the start of a word: at the
 * start of the text or after a character that is neither a letter, a digit nor a combining mark.
 * Words hold only letters, marks and digits, so nothing in them needs escaping.
 */
export function wordStartRegex(word: string): string {
  return `(^|[^[:alnum:]${MARK_RANGES}])${word}`;
}

/**
 * Whether a trigram index can narrow a `%q%` match: pg_trgm needs three letters or digits in a
 * row. Anything shorter makes the index return every row, and a scan is faster.
 */
export function hasTrigram(q: string): boolean {
  return /[\p{L}\p{N}]{3}/u.test(q);
}
