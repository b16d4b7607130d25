/**
 * Opens a SearchClient of a kind, the one place that picks an implementation (elasticsearch.ts or
 * opensearch.ts). Each is loaded only when a client of its kind is opened, so a start without a
 * search server never loads either client package.
 */
import type { ClientKind, SearchClient } from './client.js';

/** A client that fails fast (no retries, a request timeout, no sniffing) on `url`. */
export async function connectSearchClient(kind: ClientKind, url: string, timeoutMs: number): Promise<SearchClient> {
  if (kind === 'opensearch') {
    const { connectOpenSearch } = await import('./opensearch.js');
    return connectOpenSearch(url, timeoutMs);
  }
  const { connectElasticsearch } = await import('./elasticsearch.js');
  return connectElasticsearch(url, timeoutMs);
}
