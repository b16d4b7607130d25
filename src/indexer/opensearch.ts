/** The IndexStore on an OpenSearch client (for callers that hold the client itself). */
import type { Client } from '@opensearch-project/opensearch';
import { openSearchSearchClient } from '../search/messages/opensearch.js';
import { createIndexStore, type IndexStore } from './store.js';

export function createOpenSearchStore(client: Client): IndexStore {
  return createIndexStore(openSearchSearchClient(client));
}
