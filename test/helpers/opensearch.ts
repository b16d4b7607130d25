/** Real OpenSearch for tests: a fresh searchdesk-format index per test file, filled by the indexer's own code. */
import { inject } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { createOpenSearchStore } from '../../src/indexer/opensearch.js';
import { connectOpenSearch, createOpenSearchClient } from '../../src/search/messages/opensearch.js';
import { createSearchdeskEngine } from '../../src/search/messages/searchdesk.js';
import { createIndexOn, type TestIndex } from './es.js';

/** The test OpenSearch URL, or '' when none is configured (tests then skip, loudly). */
export const osUrl = inject('osUrl');
export const hasOs = osUrl !== '';

/** Creates a searchdesk-format index on OpenSearch, fills it from `db` and returns an engine on it. */
export function createOpenSearchTestIndex(db: Db): Promise<TestIndex> {
  const client = createOpenSearchClient(osUrl, 30_000);
  return createIndexOn(
    db,
    createOpenSearchStore(client),
    (index) => createSearchdeskEngine(connectOpenSearch(osUrl, 10_000), index),
    () => client.close(),
  );
}
