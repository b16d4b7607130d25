import { describe, expect, it } from 'vitest';
import { containsPattern, escapeLike, hasTrigram, splitWords, wordStartRegex } from './text.js';

describe('splitWords', () => {
  it('splits on every non-letter/digit character and lower-cases', () => {
    expect(splitWords('Zebra-crossing, TEST1! foo_bar')).toEqual(['zebra', 'crossing', 'test1', 'foo', 'bar']);
  });
  it('keeps letters of any script and removes duplicates', () => {
    expect(splitWords('Müller müller 東京 café')).toEqual(['müller', '東京', 'café']);
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

describe('wordStartRegex', () => {
  it('treats combining marks as part of a word, like splitWords does', () => {
    expect(splitWords('e\u0301cole')).toEqual(['e\u0301cole']);
    expect(wordStartRegex('cole')).toContain('\\u0300-\\u036f');
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
