/**
 * The searchdesk index format's search request, in the query DSL Elasticsearch and OpenSearch
 * share. Each engine module only sends it with its own client.
 */
import type { MessageQuery } from '../message-query.js';

/** Filters only (no scoring): account, accessible inboxes, types, window, sender, word prefixes. */
export function buildSearchdeskQuery(query: MessageQuery) {
  const filter: object[] = [
    { term: { account_id: query.accountId } },
    { terms: { inbox_id: query.inboxIds } },
    { terms: { message_type: ['incoming', 'outgoing'] } },
    {
      range: {
        created_at: {
          gte: query.since * 1000,
          // Whole seconds: created_at holds milliseconds, so until=T reaches T.999.
          ...(query.until !== undefined ? { lte: query.until * 1000 + 999 } : {}),
          format: 'epoch_millis',
        },
      },
    },
    ...query.words.map((w) => ({ prefix: { words: { value: w } } })),
  ];
  if (query.sender) filter.push({ term: { sender_type: query.sender.type } }, { term: { sender_id: query.sender.id } });
  return {
    from: query.offset,
    size: query.limit,
    _source: false,
    track_total_hits: false,
    query: { bool: { filter } },
    // created_at ties are broken by the numeric id (sorting on _id is refused by some servers).
    sort: [{ created_at: { order: 'desc' as const } }, { id: { order: 'desc' as const } }],
  };
}
