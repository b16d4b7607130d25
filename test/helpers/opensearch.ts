/** Real OpenSearch for tests: a fresh searchdesk-format index per test file, filled by the indexer's own code. */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { toMessageDocument } from '../../src/indexer/documents.js';
import { createOpenSearchStore } from '../../src/indexer/opensearch.js';
import { currentWatermark, readSourceBatches } from '../../src/indexer/source.js';
import type { MessageEngine } from '../../src/search/engines/engine.js';
import { createOpenSearchClient, createOpenSearchEngine } from '../../src/search/engines/opensearch.js';
import type { TestIndex } from './es.js';

/** The test OpenSearch URL, or '' when none is configured (tests then skip, loudly). */
export const osUrl = inject('osUrl');
export const hasOs = osUrl !== '';

/** Creates a searchdesk-format index on OpenSearch, fills it from `db` and returns an engine on it. */
export async function createOpenSearchTestIndex(db: Db): Promise<TestIndex> {
  const client = createOpenSearchClient(osUrl, 30_000);
  const index = `sd_test_${randomBytes(6).toString('hex')}`;
  const store = createOpenSearchStore(client);
  await store.createIndex(index, {
    format: 'searchdesk',
    version: 1,
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
  const engine: MessageEngine = createOpenSearchEngine({ url: osUrl, index, timeoutMs: 10_000 });
  return {
    index,
    engine,
    sync,
    async drop() {
      await engine.close();
      await store.deleteIndex(index);
      await client.close();
    },
  };
}
