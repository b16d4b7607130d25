/**
 * What the indexer needs from a search engine, implemented once over the SearchClient the message
 * engines use too (Elasticsearch or OpenSearch alike), so the indexing logic (build, resume, swap,
 * sync, reconcile) lives once and knows no client.
 */
import type { BulkResponseItem, SearchClient } from '../search/messages/client.js';
import { MESSAGE_INDEX_BODY, type MessageDocument } from './documents.js';

/** Position in `(updated_at, id)` order up to which changes have been applied. */
export interface Watermark {
  /** `timestamp without time zone` text with microseconds, e.g. `2026-01-02T03:04:05.123456`. */
  updatedAt: string;
  id: number;
}

/**
 * The version of the documents and mapping this searchdesk writes. An index of another version is
 * rebuilt by `searchdesk index` (README, "Upgrading"). 2: words cut to MAX_WORD_LENGTH instead of
 * left out, and the microsecond sort key `created_at_us`.
 */
export const INDEX_FORMAT_VERSION = 2;

/** Kept in the index mapping's `_meta`, so the index itself knows how far it got. */
export interface IndexMeta {
  format: 'searchdesk';
  /** INDEX_FORMAT_VERSION when it was built (1 before the version was counted). */
  version: number;
  state: 'building' | 'ready';
  /** Highest message id copied by the full build (resume point). */
  lastId: number;
  /** Changes at or before this point are in the index. */
  watermark: Watermark;
}

export type AliasTarget = { kind: 'alias'; indices: string[] } | { kind: 'index' } | { kind: 'missing' };

export interface BulkResult {
  indexed: number;
  deleted: number;
}

export interface IndexStore {
  readonly engine: 'elasticsearch' | 'opensearch';
  resolveAlias(alias: string): Promise<AliasTarget>;
  /** Concrete indices whose name starts with `prefix`. */
  listIndices(prefix: string): Promise<string[]>;
  createIndex(name: string, meta: IndexMeta): Promise<void>;
  getMeta(index: string): Promise<IndexMeta | undefined>;
  putMeta(index: string, meta: IndexMeta): Promise<void>;
  /** Indexes documents by message id and deletes ids (missing ids are not an error). */
  bulk(index: string, docs: MessageDocument[], deleteIds: number[], refresh?: boolean | 'wait_for'): Promise<BulkResult>;
  /** Points `alias` at `to` only, in one atomic request. */
  swapAlias(alias: string, to: string, from: string[]): Promise<void>;
  deleteIndex(index: string): Promise<void>;
  refresh(index: string): Promise<void>;
  /** Merges `index` into one segment (see MERGE_TIMEOUT_MS). */
  forceMerge(index: string): Promise<void>;
  /** Message ids in the index greater than `afterId`, ascending, at most `size`. */
  idsAfter(index: string, afterId: number, size: number): Promise<number[]>;
  count(index: string): Promise<number>;
}

/**
 * How long a build waits for its merge: 5 million messages (1.7 GB) merged in 31 s on 2 cores.
 * A larger index may take longer; the server finishes the merge after the wait.
 */
const MERGE_TIMEOUT_MS = 30 * 60_000;

/** Where the index keeps its IndexMeta: `_meta.searchdesk` of its mapping. */
const META_KEY = 'searchdesk';

/** Throws on the first failed bulk item; deleting a document that is already gone is fine. */
function assertBulkOk(items: BulkResponseItem[]): void {
  for (const item of items) {
    const op = item.index ?? item.delete;
    if (op?.error && !(item.delete && op.status === 404)) {
      throw new Error(`bulk indexing failed: ${op.error.type ?? 'error'}: ${op.error.reason ?? ''}`);
    }
  }
}

/** The IndexStore on `client`; closing stays the caller's. */
export function createIndexStore(client: SearchClient): IndexStore {
  return {
    engine: client.kind,
    async resolveAlias(alias): Promise<AliasTarget> {
      const indices = await client.aliasIndices(alias);
      if (indices) return { kind: 'alias', indices };
      return (await client.exists(alias)) ? { kind: 'index' } : { kind: 'missing' };
    },
    async listIndices(prefix) {
      return (await client.listIndices(`${prefix}*`)).filter((name) => name.startsWith(prefix)).sort();
    },
    async createIndex(name, meta) {
      await client.createIndex(name, {
        settings: MESSAGE_INDEX_BODY.settings,
        mappings: { ...MESSAGE_INDEX_BODY.mappings, _meta: { [META_KEY]: meta } },
      });
    },
    async getMeta(index) {
      const [mapping] = await client.mappings(index);
      return mapping?._meta?.[META_KEY] as IndexMeta | undefined;
    },
    async putMeta(index, meta) {
      await client.putMapping(index, { _meta: { [META_KEY]: meta } });
    },
    async bulk(index, docs, deleteIds, refresh = false) {
      if (docs.length === 0 && deleteIds.length === 0) return { indexed: 0, deleted: 0 };
      const operations: object[] = [];
      for (const doc of docs) operations.push({ index: { _index: index, _id: String(doc.id) } }, doc);
      for (const id of deleteIds) operations.push({ delete: { _index: index, _id: String(id) } });
      assertBulkOk(await client.bulk(operations, refresh));
      return { indexed: docs.length, deleted: deleteIds.length };
    },
    async swapAlias(alias, to, from) {
      await client.updateAliases([
        ...from.filter((i) => i !== to).map((index) => ({ remove: { index, alias } })),
        { add: { index: to, alias } },
      ]);
    },
    deleteIndex: (index) => client.deleteIndex(index),
    refresh: (index) => client.refresh(index),
    async forceMerge(index) {
      await client.forceMerge(index, MERGE_TIMEOUT_MS);
      // OpenSearch searches the merged segment only after a refresh (Elasticsearch refreshes itself).
      await client.refresh(index);
    },
    async idsAfter(index, afterId, size) {
      const res = await client.search(index, {
        size,
        _source: false,
        stored_fields: '_none_',
        track_total_hits: false,
        query: { range: { id: { gt: afterId } } },
        sort: [{ id: { order: 'asc' } }],
      });
      return res.hits.map((h) => Number(h.sort?.[0]));
    },
    count: (index) => client.count(index),
  };
}
