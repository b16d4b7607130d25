import { describe, expect, it } from 'vitest';
import {
  caseVariants,
  containsPattern,
  escapeLike,
  foldCase,
  foldedRegex,
  hasTrigram,
  likePrefilter,
  prefilterTrigrams,
  rowMatch,
  asciiLikePattern,
  splitWords,
  indexedSubstringMatch,
  substringMatch,
} from './text.js';
import { SqlParams } from '../db/db.js';

describe('foldCase', () => {
  it('lower-cases each character on its own: Σ is σ wherever it stands, final ς is σ too', () => {
    expect(foldCase('ΚΩΔΙΚΟΣ ΠΡΟΣΒΑΣΗΣ')).toBe('κωδικοσ προσβασησ');
    expect(foldCase('κωδικος')).toBe('κωδικοσ');
  });
  it('folds İ to i (one character) and keeps ı, ß, accents and decomposed letters apart', () => {
    expect(foldCase('İstanbul')).toBe('istanbul');
    expect(foldCase('ıI')).toBe('ıi');
    expect(foldCase('STRAẞE straße')).toBe('straße straße');
    expect(foldCase('E\u0301É')).toBe('e\u0301é');
  });
  it('keeps the length, so folded text lines up with the original', () => {
    const text = 'İİΣς ǅ K 𐐀';
    expect(foldCase(text)).toHaveLength(text.length);
  });
});

describe('caseVariants', () => {
  it('lists every code point that folds to a character', () => {
    expect([...caseVariants('σ')].sort()).toEqual(['Σ', 'ς', 'σ'].sort());
    expect([...caseVariants('i')].sort()).toEqual(['I', 'i', 'İ'].sort());
    expect(caseVariants('k')).toContain('\u212a');
    expect(caseVariants('ı')).toEqual(['ı']);
    expect(caseVariants('1')).toEqual(['1']);
  });
});

describe('foldedRegex and likePrefilter', () => {
  it('turn each character into its case class, escaping regular-expression syntax', () => {
    expect(foldedRegex('σ.1*')).toBe('[σΣς]\\.1\\*');
  });
  it('put _ in the ILIKE prefilter where the database folds otherwise, and escape wildcards', () => {
    expect(likePrefilter('κωδικοσ')).toBe('%κωδικο_%');
    expect(likePrefilter('50%_a')).toBe('%50\\%\\_a%');
  });
  it('list the trigrams the index looks up for the prefilter, none across a wildcard', () => {
    expect(prefilterTrigrams('rent')).toEqual(['%ren%', '%ent%']);
    expect(prefilterTrigrams('κωδικοσ')).toEqual(['%κωδ%', '%ωδι%', '%δικ%', '%ικο%']);
    expect(prefilterTrigrams('ab%cd')).toEqual([]);
  });
  it('match contacts with ILIKE for ASCII and with the folded expression otherwise', () => {
    const p = new SqlParams();
    expect(substringMatch(['c.name', 'c.email'], 'ABC', p)).toBe('(c.name ILIKE $1 OR c.email ILIKE $1)');
    expect(substringMatch(['c.name'], 'Σ', p)).toBe('(c.name ~ $2)');
    expect(p.values).toEqual(['%abc%', '[σΣς]']);
  });
  it('give the trigram index a pattern without padded trigrams when the term holds a separator, and decide with the row test', () => {
    const p = new SqlParams();
    const joined = 'concat_ws(chr(1), c.name, c.email)';
    expect(indexedSubstringMatch(['c.name', 'c.email'], 'Victor.Cost', p)).toBe(
      `((c.name ILIKE $1 OR c.email ILIKE $1) AND (${joined} COLLATE "C" ILIKE $2 AND ${joined} ~ $3))`,
    );
    expect(indexedSubstringMatch(['c.email'], 'cus_917a 500%', p, true)).toBe(
      '((c.email ILIKE (SELECT $4::text)) AND concat_ws(chr(1), c.email) COLLATE "C" ILIKE $5)',
    );
    expect(p.values).toEqual([
      '%victor%cost%',
      '%v_ctor.cost%',
      '[vV][iIİ][cC][tT][oO][rR]\\.[cC][oO][sS][tT]',
      '%cus%917a%500%',
      '%cus\\_917a 500\\%%',
    ]);
    // Letters and digits only, a run shorter than three, or not ASCII: substringMatch itself.
    expect(indexedSubstringMatch(['c.name'], 'Zara', p)).toBe(
      substringMatch(['c.name'], 'Zara', new SqlParams()).replace('$1', '$6'),
    );
    expect(indexedSubstringMatch(['c.name'], 'oliver.jo', p)).toBe('(c.name ILIKE $7)');
    expect(indexedSubstringMatch(['c.name'], 'zoë.li', p)).toBe('(c.name ~ $8)');
  });
  it('match a walked row with one test of its columns joined, unless the term holds the separator', () => {
    const p = new SqlParams();
    const joined = 'concat_ws(chr(1), c.name, c.email)';
    // ASCII without i or k: the C collation's ILIKE alone.
    expect(rowMatch(['c.name', 'c.email'], 'ABC', p)).toBe(`${joined} COLLATE "C" ILIKE $1`);
    // With i or k, or letters outside ASCII: the regular expression decides, after the ILIKE
    // where three characters in a row are left to narrow.
    expect(rowMatch(['c.name', 'c.email'], 'Wright', p)).toBe(`(${joined} COLLATE "C" ILIKE $2 AND ${joined} ~ $3)`);
    expect(rowMatch(['c.name'], 'Σ', p)).toBe('concat_ws(chr(1), c.name) ~ $4');
    expect(rowMatch(['c.name'], 'Kim', p)).toBe('concat_ws(chr(1), c.name) ~ $5');
    expect(rowMatch(['c.name', 'c.email'], 'a\u0001b', p)).toBe('(c.name ILIKE $6 OR c.email ILIKE $6)');
    expect(p.values).toEqual(['%abc%', '%wr_ght%', '[wW][rR][iIİ][gG][hH][tT]', '[σΣς]', '[kK\u212a][iIİ][mM]', '%a\u0001b%']);
  });
  it('give the C collation an ILIKE pattern that every text holding the folded term matches', () => {
    expect(asciiLikePattern('update')).toEqual({ pattern: '%update%', exact: true });
    // i and k (İ and the Kelvin sign fold to them) and letters outside ASCII: any one character.
    expect(asciiLikePattern('settings')).toEqual({ pattern: '%sett_ngs%', exact: false });
    expect(asciiLikePattern('müller')).toEqual({ pattern: '%m_ller%', exact: false });
    expect(asciiLikePattern('50%_off')).toEqual({ pattern: '%50\\%\\_off%', exact: true });
    // Fewer than three characters in a row left: it would not narrow.
    expect(asciiLikePattern('kim')).toBeUndefined();
    expect(asciiLikePattern('東京')).toBeUndefined();
  });
});

describe('splitWords', () => {
  it('splits on every non-letter/digit character and folds case', () => {
    expect(splitWords('Zebra-crossing, TEST1! foo_bar')).toEqual(['zebra', 'crossing', 'test1', 'foo', 'bar']);
  });
  it('keeps letters of any script and removes duplicates', () => {
    expect(splitWords('Müller müller 東京 café')).toEqual(['müller', '東京', 'café']);
    expect(splitWords('ΚΩΔΙΚΟΣ κωδικος İstanbul')).toEqual(['κωδικοσ', 'istanbul']);
  });
  it('returns no words for punctuation only', () => {
    expect(splitWords('%_\\ !?')).toEqual([]);
  });
});

describe('escapeLike', () => {
  it('makes %, _ and \\ literal', () => {
    expect(escapeLike('50%_a\\b')).toBe('50\\%\\_a\\\\b');
    expect(containsPattern('a%')).toBe('%a\\%%');
  });
});

describe('hasTrigram', () => {
  it('needs three letters or digits in a row', () => {
    expect(hasTrigram('abc')).toBe(true);
    expect(hasTrigram('a-b-c')).toBe(false);
    expect(hasTrigram('42')).toBe(false);
    expect(hasTrigram('+336')).toBe(true);
  });
});
