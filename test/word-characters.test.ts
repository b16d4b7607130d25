/**
 * One definition of a word character (README, "Word boundaries"): a letter, mark or number. The
 * JS splitting (the search's words), the Postgres statements (on server Postgres and on PGlite)
 * and the indexer's documents must agree on every code point: each is asked whether `wordz`
 * starts a word in `x<c>wordz`, which it does exactly when `c` is no word character. The
 * statements test it in parts (wordStartTest), which must say what the whole pattern says.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlParams } from '../src/db/db.js';
import { toMessageDocument, type SourceMessageRow } from '../src/indexer/documents.js';
import { splitWords, wordStartRegex } from '../src/search/text.js';
import { wordStartTest } from '../src/search/word-start.js';
import { WORD_CODE_POINTS } from '../src/search/word-characters.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';

const WORD = 'wordz';

/** The examples: emoji presentation, Thai tone marks, a Devanagari virama, superscripts, a circled letter. */
const NAMED = [
  0xfe0f, 0x0e48, 0x0e49, 0x0e4a, 0x0e4b, 0x094d, 0x00b2, 0x00b3, 0x00b9, 0x2070, 0x24b6, 0x24d0, 0x0301, 0x200d, 0x5f,
];

/** Every general category (surrogates aside). */
const CATEGORIES = 'Lu Ll Lt Lm Lo Mn Mc Me Nd Nl No Pc Pd Ps Pe Pi Pf Po Sm Sc Sk So Zs Zl Zp Cc Cf Co Cn'.split(' ');

/** Code points: each side of every range of the table, twenty of every general category, NAMED. */
function samples(): number[] {
  const points = new Set<number>(NAMED);
  for (const [first, last] of WORD_CODE_POINTS) for (const cp of [first - 1, first, last, last + 1]) points.add(cp);
  const byCategory = new Map<string, number[]>(CATEGORIES.map((gc) => [gc, []]));
  const tests = CATEGORIES.map((gc) => [gc, new RegExp(`^\\p{gc=${gc}}$`, 'u')] as const);
  for (let cp = 1; cp <= 0x10ffff; cp++) {
    if (cp === 0xd800) cp = 0xe000;
    const c = String.fromCodePoint(cp);
    const hit = tests.find(([, re]) => re.test(c));
    if (hit) byCategory.get(hit[0])!.push(cp);
  }
  for (const [gc, cps] of byCategory) {
    expect(cps.length, gc).toBeGreaterThan(0);
    for (let i = 0; i < 20; i++) points.add(cps[Math.floor((i * (cps.length - 1)) / 19)]!);
  }
  return [...points].filter((cp) => cp >= 1 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff)).sort((a, b) => a - b);
}

const contentOf = (cp: number) => `x${String.fromCodePoint(cp)}${WORD}`;

/** In JS: the code points after which `wordz` is a word of its own (the search's words). */
const jsStarts = (cps: number[]) => cps.filter((cp) => splitWords(contentOf(cp)).includes(WORD));

/** The word start test of the Postgres statements over `x<c>wordz` for each of `cps` (one statement). */
function startsQuery(cps: number[]) {
  const p = new SqlParams();
  const list = p.add(cps);
  const test = wordStartTest(WORD, p)(`('x' || chr(cp) || '${WORD}')`);
  return { text: `SELECT cp FROM unnest(${list}::int[]) cp WHERE ${test} ORDER BY cp`, values: p.values };
}

let t: TestDatabase;
let lite: PGlite;
let sample: number[];

beforeAll(async () => {
  t = await createTestDatabase();
  lite = new PGlite();
  sample = samples();
});

afterAll(async () => {
  await lite?.close();
  await t?.drop();
});

describe('a word character', () => {
  it.each([
    ['whole pattern', (p: SqlParams) => `('x' || chr(cp) || '${WORD}') ~ ${p.add(wordStartRegex(WORD))}`],
    ['test in parts', (p: SqlParams) => wordStartTest(WORD, p)(`('x' || chr(cp) || '${WORD}')`)],
  ])('is the same to the Postgres statements (%s) as to JS, on every code point', async (_, wordStart) => {
    // The code points after which `wordz` does not start a word, as ranges: the word characters.
    const p = new SqlParams();
    const test = wordStart(p);
    const { rows } = await t.admin.query<{ first: number; last: number }>(
      `SELECT min(cp) AS first, max(cp) AS last FROM (
         SELECT cp, cp - row_number() OVER (ORDER BY cp) AS run
         FROM generate_series(1, 1114111) cp
         WHERE (cp < 55296 OR cp > 57343) AND NOT ${test}) w
       GROUP BY run ORDER BY first`,
      p.values,
    );
    expect(rows.map((r) => [r.first, r.last])).toEqual(WORD_CODE_POINTS.map(([first, last]) => [first, last]));
  });

  it('is the same to the Postgres statements on PGlite as to JS', async () => {
    const q = startsQuery(sample);
    const { rows } = await lite.query<{ cp: number }>(q.text, q.values);
    expect(rows.map((r) => r.cp)).toEqual(jsStarts(sample));
  });

  it('is the same to the indexer as to JS', () => {
    const row: SourceMessageRow = {
      ...{ id: 1, account_id: 1, inbox_id: 1, conversation_id: 1, content: '', message_type: 0, private: false },
      ...{ sender_type: null, sender_id: null, created_at_ms: 0, created_at_us: 0, updated_at_ms: 0 },
    };
    const indexed = sample.filter((cp) => toMessageDocument({ ...row, content: contentOf(cp) }).words.includes(WORD));
    expect(indexed).toEqual(jsStarts(sample));
  });

  it('is found after any match of the word, not only its first', async () => {
    const contents: Record<string, boolean> = {
      [`é${WORD} ${WORD}`]: true, // the first match follows a letter past ASCII, the second a space
      [`²${WORD} ⓐ${WORD}`]: true, // a number, then a symbol
      [`é${WORD} ²${WORD}`]: false,
      [`${WORD}`]: true,
      [`_${WORD}`]: true,
      [`a${WORD}`]: false,
      [`\u0301${WORD}`]: false,
      [`é${WORD} «${WORD}`]: true, // past ASCII both times, the second a symbol: the whole pattern decides
      [`«${WORD}`]: true,
      [`é${WORD}`]: false,
      [`a${WORD} é${WORD}`]: false,
    };
    const p = new SqlParams();
    const list = p.add(Object.keys(contents));
    const { rows } = await t.admin.query<{ c: string; start: boolean; whole: boolean }>(
      `SELECT c, ${wordStartTest(WORD, p)('c')} AS start, c ~ ${p.add(wordStartRegex(WORD))} AS whole
       FROM unnest(${list}::text[]) c`,
      p.values,
    );
    expect(Object.fromEntries(rows.map((r) => [r.c, r.start]))).toEqual(contents);
    expect(Object.fromEntries(rows.map((r) => [r.c, r.whole]))).toEqual(contents);
    expect(Object.keys(contents).map((c) => splitWords(c).includes(WORD))).toEqual(Object.values(contents));
  });

  it('covers the issue’s examples: marks and numbers are word characters, symbols are not', async () => {
    const q = startsQuery(NAMED);
    const { rows } = await t.admin.query<{ cp: number }>(q.text, q.values);
    // Of NAMED, only the underscore, the zero-width joiner (a format character) and the circled letters end a word.
    expect(rows.map((r) => r.cp)).toEqual([0x5f, 0x200d, 0x24b6, 0x24d0]);
  });
});
