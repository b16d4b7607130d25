/**
 * Text rules shared by every engine: how `q` becomes words, the one case folding every comparison
 * uses, and how literal substrings and word prefixes are matched in SQL.
 */
import type { SqlParams } from '../db/db.js';
import { NON_WORD_CLASS, NON_WORD_RUN } from './word-characters.js';

const ASCII = /^\p{ASCII}*$/u;

/**
 * The case folding of every comparison, on every engine (README, "Case-insensitivity"): each code
 * point becomes its simple lower-case mapping, with capital İ → i (not "i̇") and final ς → σ.
 * Nothing else is equated: ß and "ss", ı and i, é and e, precomposed and decomposed letters stay
 * different. One code point always becomes one code point (in the same UTF-16 length), so a
 * folded text lines up with the original and the fold can be expressed as per-character classes
 * in SQL (see foldedRegex).
 */
export function foldCase(text: string): string {
  if (ASCII.test(text)) return text.toLowerCase();
  // toLowerCase is the full mapping: its only unconditional multi-character case is İ (handled
  // first), and its only context rule (final sigma) is undone by folding ς to σ.
  return text
    .replace(/\u0130/g, 'i')
    .toLowerCase()
    .replace(/\u03c2/g, '\u03c3');
}

/**
 * Splits text into folded words on every character that is no letter, mark or number
 * (contract §4.2, word-characters.ts).
 * `"Zebra-crossing, test1!"` → `["zebra", "crossing", "test1"]`. Duplicates are removed.
 */
export function splitWords(text: string): string[] {
  const words = new Set<string>();
  for (const w of foldCase(text).split(NON_WORD_RUN)) if (w !== '') words.add(w);
  return [...words];
}

let classes: Map<string, string[]> | undefined;

/**
 * Cased letters end in plane 1 (Adlam, U+1E900…); planes 2 and up hold CJK ideographs and
 * private use. test/folding.test.ts compares the classes with a walk over every code point.
 */
const LAST_CASED = 0x1ffff;

/** Folded code point → every code point that folds to it, when there is more than one (built once, a few ms). */
function foldClasses(): Map<string, string[]> {
  if (classes) return classes;
  classes = new Map();
  for (let cp = 0; cp <= LAST_CASED; cp++) {
    if (cp === 0xd800) cp = 0xe000;
    const c = String.fromCodePoint(cp);
    const f = foldCase(c);
    if (f === c) continue;
    let members = classes.get(f);
    if (!members) classes.set(f, (members = [f]));
    members.push(c);
  }
  return classes;
}

/** Every code point whose fold is the folded code point `c` (at least `c` itself). */
export function caseVariants(c: string): readonly string[] {
  return foldClasses().get(c) ?? [c];
}

/**
 * Blocks where the database's own lower-casing (ILIKE, the trigram index) agrees with foldCase in
 * the glibc and PGlite UTF-8 locales (test/folding.test.ts checks every letter of them): Latin,
 * IPA, Greek, Cyrillic, Armenian, Georgian, Cherokee, Latin and Greek extended, letterlike
 * symbols and fullwidth forms. Newer letters may be unknown to the database's tables.
 */
const DB_FOLDS_ALIKE =
  /^[\p{ASCII}\u0080-\u058f\u10a0-\u10ff\u13a0-\u13ff\u1c90-\u1cbf\u1e00-\u1fff\u2100-\u218f\uab70-\uabbf\uff00-\uffef]$/u;

/**
 * Whether ILIKE may tell apart two code points that foldCase equates: final sigma (the database
 * lower-cases ς to itself) and letters outside DB_FOLDS_ALIKE.
 */
export function foldsDifferentlyInDb(c: string): boolean {
  const variants = caseVariants(c);
  return variants.length > 1 && variants.some((v) => v === '\u03c2' || !DB_FOLDS_ALIKE.test(v));
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
 * The ILIKE pattern `%…%` that lets a trigram index narrow the rows for folded `folded`: a
 * superset of the exact match. Every character whose case the database may fold differently
 * from foldCase becomes `_` (any one character, and no trigram there); an exact folded check
 * (foldedRegex) must decide on top of it.
 */
export function likePrefilter(folded: string): string {
  let out = '';
  for (const c of folded) out += foldsDifferentlyInDb(c) ? '_' : escapeLike(c);
  return `%${out}%`;
}

/**
 * The trigrams a trigram index looks up for likePrefilter(folded), each as an ILIKE pattern
 * `%abc%`: three letters or digits in a row that the database folds as foldCase does. A row
 * holding all of them is what the index hands over to be checked (and fetched) — many more
 * rows than match when the word is short. Only an estimate of that count uses them.
 */
export function prefilterTrigrams(folded: string): string[] {
  const trigrams = new Set<string>();
  for (const run of likePrefilter(folded).match(/[\p{L}\p{N}]{3,}/gu) ?? []) {
    const chars = [...run];
    for (let i = 0; i + 3 <= chars.length; i++) trigrams.add(`%${chars.slice(i, i + 3).join('')}%`);
  }
  return [...trigrams];
}

/**
 * A Postgres regular expression (for the case-sensitive `~`) that matches exactly the texts
 * holding a substring whose fold is `folded`: each character becomes the class of the code points
 * that fold to it (`σ` → `[σΣς]`), so neither the database's locale nor its Unicode tables matter.
 */
export function foldedRegex(folded: string): string {
  let out = '';
  for (const c of folded) {
    const variants = caseVariants(c);
    if (variants.length > 1) out += `[${variants.join('')}]`;
    else out += /\p{ASCII}/u.test(c) && !/[A-Za-z0-9]/.test(c) ? `\\${c}` : c;
  }
  return out;
}

/**
 * SQL that is true when the fold of `q` is a literal substring of the fold of any of `columns`.
 * Each column gets its own test so a trigram index on that column (or a multi-column one covering
 * it) can serve it: `col ILIKE $n` when the folded `q` is ASCII (ILIKE then folds exactly like
 * foldCase, which test/folding.test.ts checks), else the folded regular expression `col ~ $n`,
 * which pg_trgm serves as well and which is exact whatever the database locale. (An ILIKE
 * prefilter next to it would make the planner multiply two estimates of the same match and walk
 * thousands of rows where it would otherwise read 16 in order.) Every substring match of contacts
 * and conversations uses this.
 */
export function substringMatch(columns: readonly string[], q: string, p: SqlParams, hidden = false): string {
  const test = matchTest(q, p, hidden);
  return `(${columns.map((col) => `${col} ${test}`).join(' OR ')})`;
}

/**
 * The one test substringMatch applies to each column: `ILIKE $n` or `~ $n`. A `hidden` pattern
 * comes from a subquery, `ILIKE (SELECT $n::text)`: the planner does not see it, so it does not
 * run it over the column's statistics to estimate the matches (the index still narrows with it);
 * only for a statement whose plan does not depend on that estimate.
 */
function matchTest(q: string, p: SqlParams, hidden = false): string {
  const folded = foldCase(q);
  return ASCII.test(folded)
    ? patternTest('ILIKE', containsPattern(folded), p, hidden)
    : patternTest('~', foldedRegex(folded), p, hidden);
}

/** `op $n`, or with the pattern `hidden` from the planner, `op (SELECT $n::text)` (see matchTest). */
export function patternTest(op: 'ILIKE' | '~', pattern: string, p: SqlParams, hidden: boolean): string {
  return hidden ? `${op} (SELECT ${p.add(pattern)}::text)` : `${op} ${p.add(pattern)}`;
}

/** ASCII letters that code points outside ASCII fold to as well (İ → i, the Kelvin sign → k). */
const FOLD_SHARED = /^[ik]$/;

/**
 * A pattern for ILIKE under the C collation (`COLLATE "C"`), which folds ASCII letters only, byte
 * by byte: twice as fast as a regular expression or a locale's ILIKE (50,000 message contents at
 * M: 27 ms, against 48–70), and the same in every database. It matches every text holding a
 * substring whose fold is `folded`: each character outside ASCII, and each ASCII letter that one
 * outside ASCII folds to as well (i, k), becomes `_` (any one character); the others are matched
 * as they are, in either case. `exact` when none became `_`: the pattern then matches only those
 * texts. Undefined when it would let most texts through (no three characters in a row kept).
 */
export function asciiLikePattern(folded: string): { pattern: string; exact: boolean } | undefined {
  let pattern = '';
  let exact = true;
  let run = 0;
  let longest = 0;
  for (const c of folded) {
    if (ASCII.test(c) && !FOLD_SHARED.test(c)) {
      pattern += escapeLike(c);
      longest = Math.max(longest, ++run);
    } else {
      pattern += '_';
      exact = false;
      run = 0;
    }
  }
  return exact || longest >= 3 ? { pattern: `%${pattern}%`, exact } : undefined;
}

/**
 * SQL true when `text`'s fold holds the folded `folded` (as foldedRegex): the C collation's ILIKE
 * (asciiLikePattern) alone when it is exact, first when it narrows (the regular expression then
 * decides on the rows it keeps), else the regular expression alone.
 */
export function foldedContains(text: string, folded: string, p: SqlParams): string {
  const like = asciiLikePattern(folded);
  const regex = () => `${text} ~ ${p.add(foldedRegex(folded))}`;
  if (!like) return regex();
  const ascii = `${text} COLLATE "C" ILIKE ${p.add(like.pattern)}`;
  return like.exact ? ascii : `(${ascii} AND ${regex()})`;
}

/** Joins the columns of rowMatch: no caller's term holds it, so no match can span two columns. */
const COLUMN_SEPARATOR = '\u0001';

/**
 * The same rows as substringMatch, for a filter on rows already read (a walk in result order):
 * one test on the columns joined by a separator that `q` does not contain, so a match cannot
 * span two of them (NULLs are skipped), with foldedContains: the C collation's ILIKE and the folded
 * regular expression (foldedRegex), both exact in every locale and faster than the locale's ILIKE
 * (which lower-cases the whole text by the locale's rules first): the database scans one text per
 * row instead of one per column, with the cheaper test. No trigram index serves it, so a statement
 * using it walks whatever index gives its order. A `q` holding the separator gets substringMatch.
 */
export function rowMatch(columns: readonly string[], q: string, p: SqlParams): string {
  if (q.includes(COLUMN_SEPARATOR)) return substringMatch(columns, q, p);
  return foldedContains(`concat_ws(chr(1), ${columns.join(', ')})`, foldCase(q), p);
}

/**
 * The same rows as substringMatch, for a statement that reads a trigram index. pg_trgm pads a
 * word at a literal separator (`.`, `_`, `@`, a space): the `victor.cost` pattern looks up
 * `r  ` and ` c`-style trigrams, whose posting lists hold every word ending or starting so (at
 * L, 5.4 ms in the index against 1.8). When the folded ASCII `q` holds such a character, the
 * index gets `q` with each run of them as the `%` wildcard instead (`%victor%cost%`, a superset
 * with no padded trigram), and rowMatch, which no index serves, decides; when each of its runs
 * of letters and digits has three or more (a shorter one has no other trigram). Any other `q`
 * gets substringMatch itself.
 */
export function indexedSubstringMatch(columns: readonly string[], q: string, p: SqlParams, hidden = false): string {
  const folded = foldCase(q);
  const runs = folded.split(/[^a-z0-9]+/).filter((run) => run !== '');
  // A run of one or two characters has no trigram but the padded ones (`s.fernan`: ` s`, `s `):
  // there they are what narrows, so the term is looked up as it is.
  if (!ASCII.test(folded) || !/[^a-z0-9]/.test(folded) || !runs.every((run) => run.length >= 3) || q.includes(COLUMN_SEPARATOR))
    return substringMatch(columns, q, p, hidden);
  const test = patternTest('ILIKE', `%${runs.join('%')}%`, p, hidden);
  return `((${columns.map((col) => `${col} ${test}`).join(' OR ')}) AND ${rowMatch(columns, q, p)})`;
}

/**
 * A Postgres regular expression (for the case-sensitive `~`) that matches the folded `word` at the
 * start of a word, in any case (foldedRegex): at the start of the text or after a character that
 * is no word character (word-characters.ts: no letter, mark or number), spelled out, so the same
 * in every database locale.
 */
export function wordStartRegex(word: string): string {
  return `(^|${NON_WORD_CLASS})${foldedRegex(word)}`;
}

/**
 * Terms shaped like a phone number, an order or visitor id (four digits in a row, or a long word
 * mixing letters and digits) or a full name (two words of three letters or more, apart or joined
 * by `_` as in an address: `mateo_john`; not by `.`, which a common domain such as example.com has): few contacts (and their conversations) hold them, so
 * contacts and conversations go to the trigram index first and skip the newest-first window,
 * which would only read its rows to find nothing.
 */
export function looksSpecific(q: string): boolean {
  return /\p{N}{4}/u.test(q) || /\p{L}{3,}(\s+|_)\p{L}{3,}/u.test(q) || looksLikeToken(q);
}

/**
 * A word of eight letters and digits or more that mixes both, as in a generated id
 * (`cus_917aea579e9405`, `a1b2c3d4e5`), which need not hold four digits in a row.
 */
function looksLikeToken(q: string): boolean {
  return q.split(/[^\p{L}\p{N}]+/u).some((w) => [...w].length >= 8 && /\p{L}/u.test(w) && /\p{N}/u.test(w));
}

/**
 * Whether a trigram index can narrow a `%q%` match: pg_trgm needs three letters or digits in a
 * row. Anything shorter makes the index return every row, and a scan is faster.
 */
export function hasTrigram(q: string): boolean {
  return /[\p{L}\p{N}]{3}/u.test(q);
}
