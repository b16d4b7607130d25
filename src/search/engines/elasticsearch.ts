/**
 * The Elasticsearch message engine (searchdesk index format). It only finds ids; records are read
 * from Postgres. Works with the stripped test server (core analysis only) and production 8.x/9.x.
 */
import { Client } from '@elastic/elasticsearch';
import type { MessageQuery } from '../message-query.js';
import type { MessageEngine } from './engine.js';

export interface ElasticsearchEngineOptions {
  url: string;
  index: string;
  timeoutMs: number;
}

/** Creates a client that fails fast: no retries, a request timeout, no sniffing. */
export function createElasticsearchClient(url: string, timeoutMs: number): Client {
  return new Client({ node: url, requestTimeout: timeoutMs, maxRetries: 0, sniffOnStart: false });
}

/** The search request for a MessageQuery: filters only (no scoring), sorted newest first. */
export function buildElasticsearchQuery(query: MessageQuery) {
  const filter: object[] = [
    { term: { account_id: query.accountId } },
    { terms: { inbox_id: query.inboxIds } },
    { terms: { message_type: ['incoming', 'outgoing'] } },
    {
      range: {
        created_at: {
          gte: query.since * 1000,
          ...(query.until !== undefined ? { lte: query.until * 1000 } : {}),
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
    sort: [{ created_at: { order: 'desc' as const } }, { id: { order: 'desc' as const } }],
  };
}

export function createElasticsearchEngine(
  opts: ElasticsearchEngineOptions,
  client = createElasticsearchClient(opts.url, opts.timeoutMs),
): MessageEngine {
  return {
    name: 'elasticsearch',
    async findIds(query) {
      const res = await client.search({ index: opts.index, ...buildElasticsearchQuery(query) });
      return res.hits.hits.map((h) => Number(h._id));
    },
    async check() {
      // GET / is not available on every deployment (e.g. the stripped test server): ask the index.
      await client.indices.exists({ index: opts.index }).then((exists) => {
        if (!exists) throw new Error(`index ${opts.index} not found — run \`searchdesk index\``);
      });
    },
    close: () => client.close(),
  };
}
