/**
 * searchdesk's own index format (built by `searchdesk index`, src/indexer/): its search request
 * and the engine sending it through a SearchClient, Elasticsearch or OpenSearch alike. The engine
 * only finds ids; records are read from Postgres.
 */
import type { SearchClient } from './client.js';
import type { MessageEngine } from './engine.js';
import { buildFirstMatchSearch, firstMatchOfHits } from './first-match.js';
import { messageFilters, type IndexFormat } from './query-dsl.js';
import type { MessageQuery } from './query.js';

/**
 * How searchdesk's index holds messages: `created_at` in epoch milliseconds (the time filters;
 * `created_at_us`, the stored microseconds, orders them), and only searchable
 * ones. The indexer reads only those, a sync deletes the document of a message that stops being
 * one, and a document's `message_type` can only be `incoming` or `outgoing` (toMessageDocument).
 */
export const SEARCHDESK_FORMAT: IndexFormat = { time: 'epoch_millis', onlySearchable: true };

/**
 * The characters (code points) of a word the index holds: a longer word is held by its first
 * MAX_WORD_LENGTH, so that any prefix up to that length finds it, as on Postgres (README, "Long
 * words"). A query word is cut the same way, so one longer than the bound would find every word
 * sharing its first MAX_WORD_LENGTH characters; none is, as `q` holds at most MAX_Q_LENGTH (500).
 * A Lucene term holds at most 32,766 bytes: 2,000 code points are at most 8,000.
 */
export const MAX_WORD_LENGTH = 2_000;

/** `word` cut to its first MAX_WORD_LENGTH code points (never inside a surrogate pair). */
export function boundedWord(word: string): string {
  // A word's UTF-16 length is at least its code points: most words are short enough at once.
  if (word.length <= MAX_WORD_LENGTH) return word;
  return [...word].slice(0, MAX_WORD_LENGTH).join('');
}

/** How one word matches in searchdesk's index: it starts a word of the message. The search and the word checks share it. */
export const wordClause = (word: string) => ({ prefix: { words: { value: boundedWord(word) } } });

/** Filters only (no scoring): the query's filters and a prefix clause per word. */
export function buildSearchdeskQuery(query: MessageQuery) {
  const words = query.words.map(wordClause);
  return {
    from: query.offset,
    size: query.limit,
    _source: false,
    // Not even _id: the id is the last sort value. Reading stored fields cost 0.15–0.2 ms of a
    // 0.9–1.3 ms search of 16 hits at M and L.
    stored_fields: '_none_',
    track_total_hits: false,
    query: { bool: { filter: messageFilters(query, SEARCHDESK_FORMAT, words) } },
    // The stored microseconds, as Postgres orders them (a millisecond holds several messages);
    // ties are broken by the numeric id (sorting on _id is refused by some servers).
    sort: [{ created_at_us: { order: 'desc' as const } }, { id: { order: 'desc' as const } }],
  };
}

/** The engine on `index` (the alias `searchdesk index` maintains); it owns `client`. */
export function createSearchdeskEngine(client: SearchClient, index: string): MessageEngine {
  return {
    name: client.kind,
    label: client.kind,
    async findIds(query) {
      return (await client.search(index, buildSearchdeskQuery(query))).hits.map((h) => Number(h.sort?.[1]));
    },
    async firstMatch(query, forms) {
      const clauses = forms.map(wordClause);
      const filters = messageFilters({ ...query, everyInbox: false }, SEARCHDESK_FORMAT);
      return firstMatchOfHits((await client.search(index, buildFirstMatchSearch(filters, clauses))).hits, forms.length);
    },
    async check() {
      // GET / is not available on every deployment (e.g. the stripped test server): ask the index.
      if (!(await client.exists(index))) throw new Error(`index ${index} not found — run \`searchdesk index\``);
    },
    close: () => client.close(),
  };
}
