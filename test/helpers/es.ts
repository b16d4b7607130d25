/** Real Elasticsearch for tests: a fresh index per test file, filled by the indexer's own code. */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { toMessageDocument } from '../../src/indexer/documents.js';
import { createElasticsearchStore } from '../../src/indexer/elasticsearch.js';
import { currentWatermark, readSourceBatches } from '../../src/indexer/source.js';
import { INDEX_FORMAT_VERSION, type IndexStore } from '../../src/indexer/store.js';
import { connectElasticsearch, createElasticsearchClient } from '../../src/search/messages/elasticsearch.js';
import type { MessageEngine } from '../../src/search/messages/engine.js';
import { createSearchdeskEngine } from '../../src/search/messages/searchdesk.js';

/** The test Elasticsearch URL, or '' when none is configured (tests then skip, loudly). */
export const esUrl = inject('esUrl');
export const hasEs = esUrl !== '';

export interface TestIndex {
  index: string;
  engine: MessageEngine;
  /** Re-reads every searchable message of the database into the index. */
  sync(): Promise<void>;
  drop(): Promise<void>;
}

/**
 * Creates a searchdesk-format index through `store`, fills it from `db` with the indexer's own
 * code, and returns the engine `makeEngine` builds on it. Shared by the Elasticsearch and
 * OpenSearch helpers.
 */
export async function createIndexOn(
  db: Db,
  store: IndexStore,
  makeEngine: (index: string) => MessageEngine,
  closeClient: () => Promise<void>,
): Promise<TestIndex> {
  const index = `sd_test_${randomBytes(6).toString('hex')}`;
  await store.createIndex(index, {
    format: 'searchdesk',
    version: INDEX_FORMAT_VERSION,
    state: 'ready',
    lastId: 0,
    watermark: await currentWatermark(db),
  });
  const sync = async () => {
    for await (const rows of readSourceBatches(db, { limit: 500 })) {
      await store.bulk(index, rows.map(toMessageDocument), [], 'wait_for');
    }
  };
  await sync();
  const engine = makeEngine(index);
  return {
    index,
    engine,
    sync,
    async drop() {
      await engine.close();
      await store.deleteIndex(index);
      await closeClient();
    },
  };
}

/** Creates an Elasticsearch index, fills it from `db` and returns an engine on it. */
export function createTestIndex(db: Db): Promise<TestIndex> {
  const client = createElasticsearchClient(esUrl, 30_000);
  return createIndexOn(
    db,
    createElasticsearchStore(client),
    (index) => createSearchdeskEngine(connectElasticsearch(esUrl, 10_000), index),
    () => client.close(),
  );
}
