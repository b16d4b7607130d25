import { describe, expect, it } from 'vitest';
import { ARTICLE_WINDOW, articlePlan } from './articles.js';
import { CONVERSATION_WINDOW, conversationPlan } from './conversations.js';
import { windowCanHold } from './sql.js';

describe('articlePlan', () => {
  const all = { ordered: true, trigram: true };
  it('tries the titles of the newest articles, then the trigram candidates, then the plain statement', () => {
    expect(articlePlan(1, ['refund'], all)).toEqual(['window', 'candidates', 'rank']);
    expect(articlePlan(1, ['refund'], { ordered: false, trigram: true })).toEqual(['candidates', 'rank']);
    expect(articlePlan(1, ['refund'], { ordered: true, trigram: false })).toEqual(['window', 'rank']);
    expect(articlePlan(1, ['refund'], { ordered: false, trigram: false })).toEqual(['rank']);
  });

  it('asks the trigram index only when some word has a trigram', () => {
    expect(articlePlan(1, ['to', 'up'], all)).toEqual(['window', 'rank']);
    expect(articlePlan(1, ['set', 'up'], all)).toEqual(['window', 'candidates', 'rank']);
  });

  it('skips the window for a page deeper than the window holds', () => {
    const deepest = Math.floor((ARTICLE_WINDOW - 1) / 15);
    expect(articlePlan(deepest, ['refund'], all)[0]).toBe('window');
    expect(articlePlan(deepest + 1, ['refund'], all)[0]).toBe('candidates');
  });
});

describe('conversationPlan', () => {
  it('walks the newest conversations first only where an index gives created_at order', () => {
    expect(conversationPlan({ q: 'kowalski' }, true)).toEqual(['window', 'candidates', 'scan']);
    expect(conversationPlan({ q: 'kowalski' }, false)).toEqual(['candidates', 'scan']);
  });

  it('sends a term without three letters or digits in a row to the plain statement when it cannot walk', () => {
    expect(conversationPlan({ q: 'li' }, false)).toEqual(['scan']);
    expect(conversationPlan({ q: 'li' }, true)).toEqual(['window', 'candidates', 'scan']);
  });

  it('skips the window for a page deeper than the window holds', () => {
    const deepest = Math.floor((CONVERSATION_WINDOW - 1) / 15);
    expect(conversationPlan({ q: 'kowalski', page: deepest }, true)[0]).toBe('window');
    expect(conversationPlan({ q: 'kowalski', page: deepest + 1 }, true)[0]).toBe('candidates');
  });
});

describe('windowCanHold', () => {
  it('needs room for every row up to the page end plus the row telling has_more', () => {
    expect(windowCanHold(1, 16)).toBe(true);
    expect(windowCanHold(1, 15)).toBe(false);
    expect(windowCanHold(2, 31)).toBe(true);
    expect(windowCanHold(2, 30)).toBe(false);
  });
});
