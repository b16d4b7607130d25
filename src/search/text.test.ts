import { describe, expect, it } from 'vitest';
import { containsPattern, escapeLike, splitWords } from './text.js';

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
