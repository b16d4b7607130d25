/** The IndexStore on Elasticsearch (8.x client; servers 8.x and 9.x). */
import type { Client } from '@elastic/elasticsearch';
import { MESSAGE_INDEX_BODY } from './documents.js';
import type { AliasTarget, IndexMeta, IndexStore } from './store.js';

const META_KEY = 'searchdesk';

export function createElasticsearchStore(client: Client): IndexStore {
  return {
    engine: 'elasticsearch',
    async resolveAlias(alias): Promise<AliasTarget> {
      if (await client.indices.existsAlias({ name: alias })) {
        const res = await client.indices.getAlias({ name: alias });
        return { kind: 'alias', indices: Object.keys(res) };
      }
      return (await client.indices.exists({ index: alias })) ? { kind: 'index' } : { kind: 'missing' };
    },
    async listIndices(prefix) {
      const res = await client.indices.get(
        { index: `${prefix}*`, expand_wildcards: 'open', allow_no_indices: true },
        { ignore: [404] },
      );
      return Object.keys(res ?? {})
        .filter((name) => name.startsWith(prefix))
        .sort();
    },
    async createIndex(name, meta) {
      await client.indices.create({
        index: name,
        settings: MESSAGE_INDEX_BODY.settings,
        mappings: { ...MESSAGE_INDEX_BODY.mappings, _meta: { [META_KEY]: meta } },
      });
    },
    async getMeta(index) {
      const res = await client.indices.getMapping({ index });
      const mapping = Object.values(res)[0]?.mappings;
      return mapping?._meta?.[META_KEY] as IndexMeta | undefined;
    },
    async putMeta(index, meta) {
      await client.indices.putMapping({ index, _meta: { [META_KEY]: meta } });
    },
    async bulk(index, docs, deleteIds, refresh = false) {
      if (docs.length === 0 && deleteIds.length === 0) return { indexed: 0, deleted: 0 };
      const operations: object[] = [];
      for (const doc of docs) operations.push({ index: { _index: index, _id: String(doc.id) } }, doc);
      for (const id of deleteIds) operations.push({ delete: { _index: index, _id: String(id) } });
      const res = await client.bulk({ operations, refresh });
      if (res.errors) {
        for (const item of res.items) {
          const op = item.index ?? item.delete;
          // Deleting what is already gone is fine.
          if (op?.error && !(item.delete && op.status === 404)) {
            throw new Error(`bulk indexing failed: ${op.error.type}: ${op.error.reason ?? ''}`);
          }
        }
      }
      return { indexed: docs.length, deleted: deleteIds.length };
    },
    async swapAlias(alias, to, from) {
      await client.indices.updateAliases({
        actions: [...from.filter((i) => i !== to).map((index) => ({ remove: { index, alias } })), { add: { index: to, alias } }],
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
        size,
        _source: false,
        track_total_hits: false,
        query: { range: { id: { gt: afterId } } },
        sort: [{ id: { order: 'asc' } }],
        docvalue_fields: ['id'],
      });
      return res.hits.hits.map((h) => Number(h._id));
    },
    async count(index) {
      return (await client.count({ index })).count;
    },
  };
}
