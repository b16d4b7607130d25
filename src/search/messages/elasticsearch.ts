/**
 * The SearchClient on the Elasticsearch client (8.x client; servers 8.x and 9.x). Works with the
 * stripped test server (core analysis only). Engines take the SearchClient, never this module.
 */
import { Client } from '@elastic/elasticsearch';
import { totalOf, type SearchClient } from './client.js';

/** Creates a client that fails fast: no retries, a request timeout, no sniffing. */
export function createElasticsearchClient(url: string, timeoutMs: number): Client {
  return new Client({ node: url, requestTimeout: timeoutMs, maxRetries: 0, sniffOnStart: false });
}

/** `client` as a SearchClient; closing it closes `client`. */
export function elasticsearchSearchClient(client: Client): SearchClient {
  return {
    kind: 'elasticsearch',
    async search(index, body) {
      const res = await client.search({ index, ...body });
      return {
        hits: res.hits.hits.map((h) => ({ id: h._id === undefined ? undefined : Number(h._id), sort: h.sort })),
        total: totalOf(res.hits.total),
      };
    },
    count: async (index) => (await client.count({ index })).count,
    exists: (index) => client.indices.exists({ index }),
    async aliasIndices(name) {
      if (!(await client.indices.existsAlias({ name }))) return undefined;
      return Object.keys(await client.indices.getAlias({ name }));
    },
    async listIndices(pattern) {
      const res = await client.indices.get(
        { index: pattern, expand_wildcards: 'open', allow_no_indices: true },
        { ignore: [404] },
      );
      return Object.keys(res ?? {});
    },
    mappings: async (index) => Object.values(await client.indices.getMapping({ index })).map((m) => m.mappings),
    async createIndex(index, body) {
      await client.indices.create({ index, ...body });
    },
    async putMapping(index, mapping) {
      await client.indices.putMapping({ index, ...mapping });
    },
    async bulk(operations, refresh) {
      const res = await client.bulk({ operations, refresh });
      return res.errors ? res.items : [];
    },
    async updateAliases(actions) {
      await client.indices.updateAliases({ actions });
    },
    async deleteIndex(index) {
      await client.indices.delete({ index }, { ignore: [404] });
    },
    async refresh(index) {
      await client.indices.refresh({ index });
    },
    async forceMerge(index, timeoutMs) {
      await client.indices.forcemerge({ index, max_num_segments: 1 }, { requestTimeout: timeoutMs });
    },
    close: () => client.close(),
  };
}

/** A fail-fast client on `url` as a SearchClient. */
export function connectElasticsearch(url: string, timeoutMs: number): SearchClient {
  return elasticsearchSearchClient(createElasticsearchClient(url, timeoutMs));
}
