/**
 * The one seam to a search server: what the message engines and the indexer need, in one shape.
 * Elasticsearch and OpenSearch each implement it once (elasticsearch.ts, opensearch.ts); nothing
 * else touches their clients. This module holds only the shape, so engines, the indexer and the
 * implementations all depend on it and it on none of them; connect.ts opens one of a kind.
 */

export type ClientKind = 'elasticsearch' | 'opensearch';

/** A request body in the query DSL both servers share. */
export type SearchBody = Record<string, unknown>;

export interface SearchHit {
  /**
   * `_id` as a number (documents are keyed by message id); undefined when the request turned
   * stored fields off (`stored_fields: '_none_'`), which saves reading them for every hit: such a
   * request sorts by `id` and finds it among the sort values.
   */
  id: number | undefined;
  /** The hit's sort values, when the request sorted. */
  sort: unknown[] | undefined;
}

/** The hit's `_id`, which a request that keeps stored fields always has. */
export function hitId(hit: SearchHit): number {
  if (hit.id === undefined) throw new Error('search hit without _id');
  return hit.id;
}

export interface SearchResponse {
  /** In server order. */
  hits: SearchHit[];
  /** Matching documents when `track_total_hits` was true; 0 otherwise. */
  total: number;
}

/** A mapping as far as searchdesk reads it. */
export interface IndexMapping {
  _meta?: Record<string, unknown>;
  properties?: Record<string, unknown>;
}

/** One item of a bulk response: its action (`index`, `delete`) → result. */
export type BulkResponseItem = Partial<Record<string, { status?: number; error?: { type?: string; reason?: string | null } }>>;

export interface SearchClient {
  readonly kind: ClientKind;
  search(index: string, body: SearchBody): Promise<SearchResponse>;
  count(index: string): Promise<number>;
  /** Whether `index` (an index or an alias) exists. */
  exists(index: string): Promise<boolean>;
  /** The concrete indices behind alias `name`; undefined when there is no such alias. */
  aliasIndices(name: string): Promise<string[] | undefined>;
  /** Names of the open concrete indices matching `pattern` (a wildcard pattern; none is not an error). */
  listIndices(pattern: string): Promise<string[]>;
  /** The mapping of each concrete index behind `index`, in the server's order. */
  mappings(index: string): Promise<IndexMapping[]>;
  createIndex(name: string, body: { settings: object; mappings: object }): Promise<void>;
  putMapping(index: string, mapping: object): Promise<void>;
  /** Sends bulk actions; resolves with the items when some failed, with [] when none did. */
  bulk(operations: object[], refresh: boolean | 'wait_for'): Promise<BulkResponseItem[]>;
  updateAliases(actions: object[]): Promise<void>;
  /** Deletes `index`; a missing one is not an error. */
  deleteIndex(index: string): Promise<void>;
  refresh(index: string): Promise<void>;
  /** Merges `index` into one segment, waiting up to `timeoutMs` (the server goes on after that). */
  forceMerge(index: string, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** The total of a search response, in either server's form. */
export function totalOf(total: number | { value: number } | undefined): number {
  return typeof total === 'number' ? total : (total?.value ?? 0);
}
