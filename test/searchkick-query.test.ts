/** The searchkick-format request, as pure builders: Searchkick's clauses, our filters, the page window and tie order. */
import { describe, expect, it } from 'vitest';
import {
  buildSearchkickFilters,
  buildSearchkickMatch,
  buildSearchkickQuery,
  buildSearchkickSearch,
  hasAnalyzedContent,
  orderPage,
  orderTiedPage,
  readWindow,
  SEARCHKICK_INDEX_REFUSAL,
  searchkickText,
  type TimedHit,
} from '../src/search/messages/searchkick.js';
import type { MessageQuery } from '../src/search/messages/query.js';

const query: MessageQuery = {
  accountId: 7,
  inboxIds: [1, 2],
  everyInbox: false,
  words: ['refund', 'order'],
  text: 'Refund order',
  since: 1_735_787_045,
  until: undefined,
  sender: undefined,
  offset: 0,
  limit: 16,
};

describe('searchkick match', () => {
  it('gives each field the four clauses of the help desk, best one per field', () => {
    const match = buildSearchkickMatch('refund order') as { bool: { should: unknown[]; minimum_should_match: number } };
    expect(match.bool.minimum_should_match).toBe(1);
    expect(match.bool.should).toHaveLength(3);
    const exact = { query: 'refund order', operator: 'and', boost: 10 };
    const fuzzy = { ...exact, boost: 1, fuzziness: 1, prefix_length: 0, max_expansions: 3, fuzzy_transpositions: true };
    for (const [i, field] of ['content', 'attachments.transcribed_text', 'content_attributes.email.subject'].entries()) {
      expect(match.bool.should[i]).toEqual({
        dis_max: {
          queries: [
            { match: { [`${field}.analyzed`]: { ...exact, analyzer: 'searchkick_search' } } },
            { match: { [`${field}.analyzed`]: { ...exact, analyzer: 'searchkick_search2' } } },
            { match: { [`${field}.analyzed`]: { ...fuzzy, analyzer: 'searchkick_search' } } },
            { match: { [`${field}.analyzed`]: { ...fuzzy, analyzer: 'searchkick_search2' } } },
          ],
        },
      });
    }
  });

  it('gives the analyzers q as typed, not our split words', () => {
    expect(searchkickText({ ...query, text: 'john@example.com' })).toBe('john@example.com');
  });
});

describe('searchkick filters', () => {
  it('scopes to the account, the inboxes, the searchable types and the window (ISO, inclusive)', () => {
    expect(buildSearchkickFilters({ ...query, until: 1_735_873_445 })).toEqual([
      { term: { account_id: 7 } },
      { terms: { inbox_id: [1, 2] } },
      { terms: { message_type: ['incoming', 'outgoing'] } },
      { range: { created_at: { gte: '2025-01-02T03:04:05.000Z', lte: '2025-01-03T03:04:05.999Z' } } },
    ]);
  });

  it('has no upper bound without until', () => {
    expect(buildSearchkickFilters(query)[3]).toEqual({ range: { created_at: { gte: '2025-01-02T03:04:05.000Z' } } });
  });

  it('filters the sender by type and id (the id as a string, exact beyond 2^53)', () => {
    const filters = buildSearchkickFilters({ ...query, sender: { type: 'User', id: '9007199254740993' } });
    expect(filters.slice(4)).toEqual([{ term: { sender_type: 'User' } }, { term: { sender_id: '9007199254740993' } }]);
  });

  it('puts the match in must and the filters in filter, with extra filters last', () => {
    const extra = { range: { created_at: { gt: 1, format: 'epoch_millis' } } };
    const q = buildSearchkickQuery(query, [extra]) as { bool: { must: unknown; filter: unknown[] } };
    expect(q.bool.must).toEqual(buildSearchkickMatch('Refund order'));
    expect(q.bool.filter).toEqual([...buildSearchkickFilters(query), extra]);
  });
});

describe('searchkick page window', () => {
  it('asks for the page and the row after it on page 1', () => {
    expect(buildSearchkickSearch(query)).toMatchObject({
      from: 0,
      size: 17,
      _source: false,
      track_total_hits: false,
      sort: [{ created_at: { order: 'desc' } }],
    });
  });

  it('asks for one row before and one after on later pages', () => {
    expect(buildSearchkickSearch({ ...query, offset: 15 })).toMatchObject({ from: 14, size: 18 });
  });

  const hit = (id: number, createdAt: number): TimedHit => ({ id, createdAt });

  it('sees no edge tie when the rows beside the page are older or newer', () => {
    const hits = [hit(1, 50), hit(3, 40), hit(2, 40), hit(4, 30), hit(5, 20)];
    expect(readWindow(hits, 5, 3)).toEqual({ page: [hit(3, 40), hit(2, 40), hit(4, 30)], tiedAtEdge: false });
    expect(orderPage([hit(2, 40), hit(3, 40), hit(4, 30)])).toEqual([3, 2, 4]);
  });

  it('sees a tie with the row before or after the page', () => {
    expect(readWindow([hit(1, 40), hit(2, 40), hit(3, 30), hit(4, 20)], 5, 2).tiedAtEdge).toBe(true);
    expect(readWindow([hit(1, 50), hit(2, 40), hit(3, 30), hit(4, 30)], 5, 2).tiedAtEdge).toBe(true);
    expect(readWindow([hit(2, 40), hit(3, 30), hit(4, 30)], 0, 2).tiedAtEdge).toBe(true);
  });

  it('handles short and empty pages', () => {
    expect(readWindow([hit(1, 40), hit(2, 40)], 5, 16)).toEqual({ page: [hit(2, 40)], tiedAtEdge: true });
    expect(readWindow([hit(1, 40)], 5, 16)).toEqual({ page: [], tiedAtEdge: false });
    expect(readWindow([], 0, 16)).toEqual({ page: [], tiedAtEdge: false });
  });

  it('orders a crossing group by id DESC and cuts the page at its position', () => {
    // Ranks: 2 newer rows above, then the span 40,40,40,40,30 → ids by rank 9,8,7,6,5.
    const span = [hit(6, 40), hit(9, 40), hit(5, 30), hit(7, 40), hit(8, 40)];
    expect(orderTiedPage(span, 2, 3, 2)).toEqual([8, 7]);
    expect(orderTiedPage(span, 2, 5, 16)).toEqual([6, 5]);
  });
});

describe('searchkick index checks', () => {
  it('recognises the help desk mapping by its content.analyzed text field', () => {
    const analyzed = { type: 'text', analyzer: 'searchkick_index' };
    expect(hasAnalyzedContent({ properties: { content: { type: 'keyword', fields: { analyzed } } } })).toBe(true);
    expect(hasAnalyzedContent({ properties: { content: { type: 'keyword' } } })).toBe(false);
    expect(hasAnalyzedContent({ properties: { words: { type: 'keyword' } } })).toBe(false);
    expect(hasAnalyzedContent(undefined)).toBe(false);
  });

  it('explains why searchdesk index refuses the format', () => {
    expect(SEARCHKICK_INDEX_REFUSAL).toMatch(/SEARCHDESK_INDEX_FORMAT=searchkick/);
    expect(SEARCHKICK_INDEX_REFUSAL).toMatch(/the help desk keeps it current itself/);
  });
});
