/**
 * The IndexStore on OpenSearch (servers 2.x and 3.x): the same operations as the Elasticsearch
 * store, in the OpenSearch client's shape (request bodies under `body`, responses under `.body`).
 */
import type { Client } from '@opensearch-project/opensearch';
import { MESSAGE_INDEX_BODY } from './documents.js';
import type { AliasTarget, IndexMeta, IndexStore } from './store.js';

const META_KEY = 'searchdesk';

interface BulkItem {
  status?: number;
  error?: { type?: string; reason?: string | null };
}

/** Throws on the first failed bulk item; deleting a document that is already gone is fine. */
function assertBulkOk(items: Array<Record<string, BulkItem | undefined>>): void {
  for (const item of items) {
    const op = item.index ?? item.delete;
    if (op?.error && !(item.delete && op.status === 404)) {
      throw new Error(`bulk indexing failed: ${op.error.type ?? 'error'}: ${op.error.reason ?? ''}`);
    }
  }
}

export function createOpenSearchStore(client: Client): IndexStore {
  return {
    engine: 'opensearch',
    async resolveAlias(alias): Promise<AliasTarget> {
      if ((await client.indices.existsAlias({ name: alias })).body) {
        const res = await client.indices.getAlias({ name: alias });
        return { kind: 'alias', indices: Object.keys(res.body) };
      }
      return (await client.indices.exists({ index: alias })).body ? { kind: 'index' } : { kind: 'missing' };
    },
    async listIndices(prefix) {
      const res = await client.indices.get({ index: `${prefix}*`, expand_wildcards: 'open', allow_no_indices: true });
      return Object.keys(res.body ?? {})
        .filter((name) => name.startsWith(prefix))
        .sort();
    },
    async createIndex(name, meta) {
      const body = {
        settings: MESSAGE_INDEX_BODY.settings,
        mappings: { ...MESSAGE_INDEX_BODY.mappings, _meta: { [META_KEY]: meta } },
      };
      await client.indices.create({ index: name, body });
    },
    async getMeta(index) {
      const res = await client.indices.getMapping({ index });
      const mapping = Object.values(res.body)[0]?.mappings;
      return mapping?._meta?.[META_KEY] as IndexMeta | undefined;
    },
    async putMeta(index, meta) {
      await client.indices.putMapping({ index, body: { _meta: { [META_KEY]: meta } } });
    },
    async bulk(index, docs, deleteIds, refresh = false) {
      if (docs.length === 0 && deleteIds.length === 0) return { indexed: 0, deleted: 0 };
      const operations: object[] = [];
      for (const doc of docs) operations.push({ index: { _index: index, _id: String(doc.id) } }, doc);
      for (const id of deleteIds) operations.push({ delete: { _index: index, _id: String(id) } });
      const res = await client.bulk({ body: operations, refresh });
      if (res.body.errors) assertBulkOk(res.body.items);
      return { indexed: docs.length, deleted: deleteIds.length };
    },
    async swapAlias(alias, to, from) {
      await client.indices.updateAliases({
        body: {
          actions: [
            ...from.filter((i) => i !== to).map((index) => ({ remove: { index, alias } })),
            { add: { index: to, alias } },
          ],
        },
      });
    },
    async deleteIndex(index) {
      await client.indices.delete({ index }, { ignore: [404] });
    },
    async refresh(index) {
      await client.indices.refresh({ index });
    },
    async idsAfter(index, afterId, size) {
      const res = await client.search({
        index,
        body: {
          size,
          _source: false,
          track_total_hits: false,
          query: { range: { id: { gt: afterId } } },
          sort: [{ id: { order: 'asc' } }],
        },
      });
      return res.body.hits.hits.map((h) => Number(h._id));
    },
    async count(index) {
      return (await client.count({ index })).body.count;
    },
  };
}
