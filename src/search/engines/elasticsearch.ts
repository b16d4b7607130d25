/**
 * The Elasticsearch message engine (searchdesk index format). It only finds ids; records are read
 * from Postgres. Works with the stripped test server (core analysis only) and production 8.x/9.x.
 */
import { Client } from '@elastic/elasticsearch';
import type { MessageEngine } from './engine.js';
import { buildSearchdeskQuery } from './query-dsl.js';

export interface ElasticsearchEngineOptions {
  url: string;
  index: string;
  timeoutMs: number;
}

/** Creates a client that fails fast: no retries, a request timeout, no sniffing. */
export function createElasticsearchClient(url: string, timeoutMs: number): Client {
  return new Client({ node: url, requestTimeout: timeoutMs, maxRetries: 0, sniffOnStart: false });
}

export function createElasticsearchEngine(
  opts: ElasticsearchEngineOptions,
  client = createElasticsearchClient(opts.url, opts.timeoutMs),
): MessageEngine {
  return {
    name: 'elasticsearch',
    label: 'elasticsearch',
    async findIds(query) {
      const res = await client.search({ index: opts.index, ...buildSearchdeskQuery(query) });
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
