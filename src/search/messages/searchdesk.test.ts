/** The searchdesk-format request, byte for byte: what Elasticsearch and OpenSearch receive. */
import { describe, expect, it } from 'vitest';
import type { MessageQuery } from './query.js';
import { MAX_Q_LENGTH } from '../params.js';
import { boundedWord, buildSearchdeskQuery, MAX_WORD_LENGTH } from './searchdesk.js';

const query: MessageQuery = {
  accountId: 7,
  inboxIds: [1, 2],
  everyInbox: false,
  words: ['refund', 'order'],
  text: 'Refund order',
  since: 1_735_787_045,
  until: undefined,
  sender: undefined,
  offset: 15,
  limit: 16,
};

describe('searchdesk request', () => {
  it('filters on account, inboxes, the window and each word prefix, newest first', () => {
    expect(buildSearchdeskQuery(query)).toEqual({
      from: 15,
      size: 16,
      _source: false,
      stored_fields: '_none_',
      track_total_hits: false,
      query: {
        bool: {
          filter: [
            { term: { account_id: 7 } },
            { terms: { inbox_id: [1, 2] } },
            { range: { created_at: { gte: 1_735_787_045_000, format: 'epoch_millis' } } },
            { prefix: { words: { value: 'refund' } } },
            { prefix: { words: { value: 'order' } } },
          ],
        },
      },
      sort: [{ created_at_us: { order: 'desc' } }, { id: { order: 'desc' } }],
    });
  });

  it('reaches the last millisecond of until and filters the sender after the words', () => {
    const filter = buildSearchdeskQuery({ ...query, until: 1_735_873_445, sender: { type: 'Contact', id: '9007199254740993' } })
      .query.bool.filter;
    expect(filter[2]).toEqual({
      range: { created_at: { gte: 1_735_787_045_000, lte: 1_735_873_445_999, format: 'epoch_millis' } },
    });
    expect(filter.slice(5)).toEqual([{ term: { sender_type: 'Contact' } }, { term: { sender_id: '9007199254740993' } }]);
  });

  it('leaves the inboxes out when they are every inbox of the account (the records are read with them)', () => {
    const filter = buildSearchdeskQuery({ ...query, everyInbox: true }).query.bool.filter;
    expect(filter).toEqual([
      { term: { account_id: 7 } },
      { range: { created_at: { gte: 1_735_787_045_000, format: 'epoch_millis' } } },
      { prefix: { words: { value: 'refund' } } },
      { prefix: { words: { value: 'order' } } },
    ]);
  });
});

describe('long words', () => {
  it('are cut to their first MAX_WORD_LENGTH code points, never inside a surrogate pair', () => {
    expect(boundedWord('abc')).toBe('abc');
    const hex = 'f0'.repeat(MAX_WORD_LENGTH);
    expect(boundedWord(hex)).toBe(hex.slice(0, MAX_WORD_LENGTH));
    const astral = '𝐀'.repeat(MAX_WORD_LENGTH + 1);
    expect([...boundedWord(astral)]).toEqual([...'𝐀'.repeat(MAX_WORD_LENGTH)]);
  });

  it('are longer than any query word, so a query word is never cut', () => {
    expect(MAX_Q_LENGTH).toBeLessThanOrEqual(MAX_WORD_LENGTH);
  });
});
