/**
 * The SearchClient on the OpenSearch client (servers 2.x and 3.x; request bodies under `body`,
 * responses under `.body`). OpenSearch needs its own client: the Elasticsearch client's
 * compatibility headers get a 406 from it. Engines take the SearchClient, never this module.
 */
import { Client, type API } from '@opensearch-project/opensearch';
import { totalOf, type IndexMapping, type SearchClient } from './client.js';

/** Creates a client that fails fast: no retries, a request timeout, no sniffing. */
export function createOpenSearchClient(url: string, timeoutMs: number): Client {
  return new Client({ node: url, requestTimeout: timeoutMs, maxRetries: 0, sniffOnStart: false });
}

/** `client` as a SearchClient; closing it closes `client`. */
export function openSearchSearchClient(client: Client): SearchClient {
  return {
    kind: 'opensearch',
    async search(index, body) {
      const res = await client.search({ index, body });
      return {
        hits: res.body.hits.hits.map((h) => ({ id: h._id === undefined ? undefined : Number(h._id), sort: h.sort })),
        total: totalOf(res.body.hits.total),
      };
    },
    count: async (index) => (await client.count({ index })).body.count,
    exists: async (index) => (await client.indices.exists({ index })).body,
    async aliasIndices(name) {
      if (!(await client.indices.existsAlias({ name })).body) return undefined;
      return Object.keys((await client.indices.getAlias({ name })).body);
    },
    async listIndices(pattern) {
      const res = await client.indices.get({ index: pattern, expand_wildcards: 'open', allow_no_indices: true });
      return Object.keys(res.body ?? {});
    },
    mappings: async (index) =>
      Object.values((await client.indices.getMapping({ index })).body).map((m) => m.mappings as IndexMapping),
    async createIndex(index, body) {
      await client.indices.create({ index, body });
    },
    async putMapping(index, mapping) {
      await client.indices.putMapping({ index, body: mapping });
    },
    async bulk(operations, refresh) {
      const res = await client.bulk({ body: operations as API.Bulk_RequestBody, refresh });
      return res.body.errors ? res.body.items : [];
    },
    async updateAliases(actions) {
      await client.indices.updateAliases({ body: { actions } });
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
export function connectOpenSearch(url: string, timeoutMs: number): SearchClient {
  return openSearchSearchClient(createOpenSearchClient(url, timeoutMs));
}
