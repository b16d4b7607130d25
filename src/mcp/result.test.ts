/** The read-further line as a pure function: what it says, and when it says nothing. */
import { describe, expect, it } from 'vitest';
import { searchHint } from './result.js';

const meta = (page: number, has_more: Record<string, boolean>) => ({
  page,
  per_page: 15,
  has_more,
  engine: 'postgres' as const,
  notices: [],
});

describe('searchHint', () => {
  it('names the lists with more and the next page', () => {
    expect(searchHint(meta(1, { contacts: true, conversations: false, messages: true, articles: true }), 0)).toBe(
      'More contacts, messages and articles: call again with page=2.',
    );
  });

  it('never points past the last page', () => {
    expect(searchHint(meta(500, { messages: true }), 0)).toBe(
      'More messages exist beyond page 500, the last one: narrow q or add filters.',
    );
  });

  it('says how many texts were shortened, and nothing when there is nothing to do', () => {
    expect(searchHint(meta(1, { messages: false }), 1)).toMatch(/^1 long text was shortened to fit \(ending in "…"\): narrow q/);
    expect(searchHint(meta(1, { messages: false }), 0)).toBeUndefined();
  });
});
