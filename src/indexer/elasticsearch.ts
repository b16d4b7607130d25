/** The IndexStore on an Elasticsearch client (for callers that hold the client itself). */
import type { Client } from '@elastic/elasticsearch';
import { elasticsearchSearchClient } from '../search/messages/elasticsearch.js';
import { createIndexStore, type IndexStore } from './store.js';

export function createElasticsearchStore(client: Client): IndexStore {
  return createIndexStore(elasticsearchSearchClient(client));
}
