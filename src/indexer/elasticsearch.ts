/** Writing searchdesk's message index to Elasticsearch: create, bulk-index, delete. */
import type { Client } from '@elastic/elasticsearch';
import { MESSAGE_INDEX_BODY, type MessageDocument } from './documents.js';

/** Creates an index with searchdesk's settings and mapping. */
export async function createMessageIndex(client: Client, index: string): Promise<void> {
  await client.indices.create({ index, ...MESSAGE_INDEX_BODY } as Parameters<Client['indices']['create']>[0]);
}

export interface BulkResult {
  indexed: number;
  deleted: number;
}

/** Indexes documents (by message id) and deletes ids; throws when any item fails. */
export async function bulkWrite(
  client: Client,
  index: string,
  docs: MessageDocument[],
  deleteIds: number[] = [],
  refresh: boolean | 'wait_for' = false,
): Promise<BulkResult> {
  if (docs.length === 0 && deleteIds.length === 0) return { indexed: 0, deleted: 0 };
  const operations: object[] = [];
  for (const doc of docs) operations.push({ index: { _index: index, _id: String(doc.id) } }, doc);
  for (const id of deleteIds) operations.push({ delete: { _index: index, _id: String(id) } });
  const res = await client.bulk({ operations, refresh });
  if (res.errors) {
    const failed = res.items.find((item) => {
      const op = item.index ?? item.delete;
      return op?.error && !(item.delete && op.status === 404);
    });
    const op = failed?.index ?? failed?.delete;
    if (op?.error) throw new Error(`bulk indexing failed: ${op.error.type}: ${op.error.reason ?? ''}`);
  }
  return { indexed: docs.length, deleted: deleteIds.length };
}
