/**
 * What the indexer needs from a search engine, so Elasticsearch and OpenSearch each implement it
 * in one module and the indexing logic (build, resume, swap, sync, reconcile) lives once.
 */
import type { MessageDocument } from './documents.js';

/** Position in `(updated_at, id)` order up to which changes have been applied. */
export interface Watermark {
  /** `timestamp without time zone` text with microseconds, e.g. `2026-01-02T03:04:05.123456`. */
  updatedAt: string;
  id: number;
}

/** Kept in the index mapping's `_meta`, so the index itself knows how far it got. */
export interface IndexMeta {
  format: 'searchdesk';
  version: 1;
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
  /** Message ids in the index greater than `afterId`, ascending, at most `size`. */
  idsAfter(index: string, afterId: number, size: number): Promise<number[]>;
  count(index: string): Promise<number>;
}
