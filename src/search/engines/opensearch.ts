/**
 * The OpenSearch message engine (searchdesk index format): the same request as Elasticsearch,
 * sent with the OpenSearch client (the Elasticsearch client's compatibility headers get a 406 from
 * OpenSearch). It only finds ids; records are read from Postgres. Servers 2.x and 3.x.
 */
import { Client } from '@opensearch-project/opensearch';
import type { API } from '@opensearch-project/opensearch';
import type { MessageEngine } from './engine.js';
import { buildSearchdeskQuery } from './query-dsl.js';

export interface OpenSearchEngineOptions {
  url: string;
  index: string;
  timeoutMs: number;
}

/** Creates a client that fails fast: no retries, a request timeout, no sniffing. */
export function createOpenSearchClient(url: string, timeoutMs: number): Client {
  return new Client({ node: url, requestTimeout: timeoutMs, maxRetries: 0, sniffOnStart: false });
}

/** Ids of the hits, in hit order (`_id` is the message id). */
export function hitIds(body: { hits: { hits: Array<{ _id?: string | null }> } }): number[] {
  return body.hits.hits.map((h) => Number(h._id));
}

export function createOpenSearchEngine(
  opts: OpenSearchEngineOptions,
  client = createOpenSearchClient(opts.url, opts.timeoutMs),
): MessageEngine {
  return {
    name: 'opensearch',
    label: 'opensearch',
    async findIds(query) {
      // The builder's filters are plain objects; the client's generated types want QueryContainer.
      const body = buildSearchdeskQuery(query) as API.Search_RequestBody;
      const res = await client.search({ index: opts.index, body });
      return hitIds(res.body);
    },
    async check() {
      const { body: exists } = await client.indices.exists({ index: opts.index });
      if (!exists) throw new Error(`index ${opts.index} not found — run \`searchdesk index\``);
    },
    close: () => client.close(),
  };
}
