import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script, without types.
import { wordRangesModule } from '../../scripts/word-ranges.mjs';
import { splitWords } from './text.js';
import { SqlParams } from '../db/db.js';
import { wordStartRegex } from './text.js';
import { wordStartTest } from './word-start.js';
import { NON_WORD_RUN, WORD_CODE_POINTS } from './word-characters.js';

describe('word characters', () => {
  it('are the generated table of this Node’s \\p{L}\\p{M}\\p{N} (else run node scripts/word-ranges.mjs)', () => {
    const stored = readFileSync(new URL('./word-ranges.ts', import.meta.url), 'utf8');
    expect(stored).toBe((wordRangesModule as () => string)());
  });

  it('split the text in JS exactly where \\p{L}\\p{M}\\p{N} does, on every code point', () => {
    const word = /^[\p{L}\p{M}\p{N}]$/u;
    let table = 0;
    let range = 0;
    const differ: number[] = [];
    for (let cp = 1; cp <= 0x10ffff; cp++) {
      if (cp === 0xd800) cp = 0xe000;
      const c = String.fromCodePoint(cp);
      while (range < WORD_CODE_POINTS.length && WORD_CODE_POINTS[range]![1] < cp) range++;
      const inTable = range < WORD_CODE_POINTS.length && WORD_CODE_POINTS[range]![0] <= cp;
      if (inTable) table++;
      if (inTable !== word.test(c) || inTable === NON_WORD_RUN.test(c)) differ.push(cp);
    }
    expect(differ).toEqual([]);
    expect(table).toBeGreaterThan(100_000);
  });

  it('count emoji variation selectors, tone marks, viramas and superscripts as word characters', () => {
    expect(splitWords('⚠️Warning')).toEqual(['\ufe0fwarning']);
    expect(splitWords('ไม่ได้รับสินค้า')).toEqual(['ไม่ได้รับสินค้า']);
    expect(splitWords('नमस्ते')).toEqual(['नमस्ते']);
    expect(splitWords('x²abc')).toEqual(['x²abc']);
    expect(splitWords('e\u0301cole')).toEqual(['e\u0301cole']);
  });

  it('do not count circled letters (symbols) or the underscore', () => {
    expect(splitWords('Ⓐpple foo_bar')).toEqual(['pple', 'foo', 'bar']);
  });

  it('are spelled out in the Postgres patterns, never as a locale class', () => {
    const pattern = wordStartRegex('abc');
    expect(pattern).not.toMatch(/\[\[:|\\[wmyW]|\[\^/);
    expect(pattern).toContain('\\ufe10');
    expect(pattern).not.toMatch(/\\ufe0f|\\u0e48|\\u094d|\\u00b2/);
  });

  it('leave the long class out of the patterns Postgres compiles for most texts (wordStartTest)', () => {
    const p = new SqlParams();
    const sql = wordStartTest('abc', p)('t');
    const [ascii, beyond, whole] = p.values as string[];
    expect(sql).toBe('(t ~ $1 OR (t ~ $2 AND t ~ (SELECT $3::text)))');
    expect(ascii).toBe('(^|[\\u0001-\\u002f\\u003a-\\u0040\\u005b-\\u0060\\u007b-\\u007f])[aA][bB][cC]');
    expect(beyond).toBe('[\\u0080-\\ud7ff\\ue000-\\U0010ffff][aA][bB][cC]');
    expect(whole).toBe(wordStartRegex('abc'));
  });
});
