/**
 * A MessageQuery's filters in the query DSL Elasticsearch and OpenSearch share, for both index
 * formats: every rule except the words (account, accessible inboxes, searchable types, the
 * inclusive window, sender). The formats differ only in how `created_at` is held.
 */
import type { MessageQuery } from './query.js';
import { SEARCHABLE_TYPE_NAMES } from './records.js';

/** How an index holds `created_at`: epoch milliseconds (searchdesk) or ISO 8601 text (the help desk). */
export type TimeFormat = 'epoch_millis' | 'iso';

/**
 * How an index holds its messages: `time`, how it holds `created_at`; `onlySearchable`, whether
 * it holds nothing but searchable messages (then the type filter could not remove a document).
 */
export interface IndexFormat {
  time: TimeFormat;
  onlySearchable: boolean;
}

/**
 * The filters, with `words` (clauses on the words) before the sender's. Bounds are whole seconds
 * while the index holds milliseconds: `since` from T.000, `until` up to T.999. The searchable
 * types are filtered only in an index that holds other messages too: Elasticsearch builds the
 * set of an account's messages of both types for every search (0.03–0.12 ms of a 0.9–1.4 ms
 * search at M and L), to remove nothing from an index that holds only those. For the same reason
 * the inboxes are left out when they are every inbox of the account (`everyInbox`): the set of
 * the account's messages in its fifty inboxes cost 1.0 ms of a 2.3 ms search of a common word at
 * L (25 segments; 0.1–0.2 ms at M), and searchMessages reads the records again with the inboxes
 * (and searches again with them when a hit is not in one).
 */
export function messageFilters(query: MessageQuery, format: IndexFormat, words: object[] = []): object[] {
  const time = format.time;
  const at = (ms: number) => (time === 'iso' ? new Date(ms).toISOString() : ms);
  const filter: object[] = [
    { term: { account_id: query.accountId } },
    ...(query.everyInbox ? [] : [{ terms: { inbox_id: query.inboxIds } }]),
    ...(format.onlySearchable ? [] : [{ terms: { message_type: SEARCHABLE_TYPE_NAMES } }]),
    {
      range: {
        created_at: {
          gte: at(query.since * 1000),
          ...(query.until !== undefined ? { lte: at(query.until * 1000 + 999) } : {}),
          ...(time === 'epoch_millis' ? { format: 'epoch_millis' } : {}),
        },
      },
    },
    ...words,
  ];
  // sender_id as a string: a long field parses it, and ids beyond 2^53 keep their digits.
  if (query.sender) filter.push({ term: { sender_type: query.sender.type } }, { term: { sender_id: query.sender.id } });
  return filter;
}
