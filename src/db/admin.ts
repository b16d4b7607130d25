/**
 * The only writes searchdesk makes to Postgres, each by an explicit admin command:
 * `db setup` (our own schema, for standalone installs) and `db indexes` (the `searchdesk_`
 * indexes the index-backed variant and the indexer use). Search never assumes they exist.
 */
import type { Logger } from '../logger.js';
import { INDEX } from './catalog.js';
import type { Db } from './db.js';
import { messageWordsVector } from './message-words.js';
import { schemaSql } from './schema.js';

export interface SearchdeskIndex {
  name: string;
  table: string;
  /** What the index is for (shown by `db indexes` and in the README). */
  purpose: string;
  /** Everything after `ON`, e.g. `conversations USING gin (...)`. */
  definition: string;
}

/** Every index searchdesk may create; all names start with `searchdesk_`. */
export const SEARCHDESK_INDEXES: readonly SearchdeskIndex[] = [
  {
    name: INDEX.conversationsCreated,
    table: 'conversations',
    purpose: 'conversation results in created_at order without sorting the whole account',
    definition: 'conversations (account_id, created_at DESC, id DESC)',
  },
  {
    name: INDEX.conversationsDisplayIdTrgm,
    table: 'conversations',
    purpose: 'substring match on the display id (as text)',
    definition: 'conversations USING gin ((display_id::text) gin_trgm_ops)',
  },
  {
    name: INDEX.articlesTextTrgm,
    table: 'articles',
    purpose: 'word-prefix match on article title, description and content',
    definition: `articles USING gin ((coalesce(title, '') || ' ' || coalesce(description, '') || ' ' || coalesce(content, '')) gin_trgm_ops)`,
  },
  {
    name: INDEX.articlesTitleDescriptionTrgm,
    table: 'articles',
    purpose: 'every title or description match of a word common in contents, without reading every article',
    definition: `articles USING gin ((coalesce(title, '') || ' ' || coalesce(description, '')) gin_trgm_ops)`,
  },
  {
    name: INDEX.articlesTitleTrgm,
    table: 'articles',
    purpose: 'every title match of a word common in descriptions or contents, without reading their matches',
    definition: 'articles USING gin (title gin_trgm_ops)',
  },
  {
    name: INDEX.articlesUpdated,
    table: 'articles',
    purpose: 'article results whose titles fill the page, from the newest articles without sorting the account',
    definition: 'articles (account_id, updated_at DESC, id DESC)',
  },
  {
    name: INDEX.messagesUpdatedAt,
    table: 'messages',
    purpose: 'incremental index sync (`searchdesk index --follow`) by (updated_at, id)',
    definition: 'messages (updated_at, id)',
  },
  {
    name: INDEX.messagesSender,
    table: 'messages',
    purpose: "message search with `from`: the sender's messages newest first, not the account's",
    definition: 'messages (sender_id, sender_type, created_at DESC, id DESC)',
  },
  {
    name: INDEX.messagesInbox,
    table: 'messages',
    purpose: "message search in one inbox (`inbox_id`, or an agent of one inbox): its messages newest first, not the account's",
    definition: 'messages (inbox_id, created_at DESC, id DESC)',
  },
  {
    name: INDEX.messagesWords,
    table: 'messages',
    purpose: 'message search (Postgres engine): the messages where a word of ASCII letters and digits starts a word',
    definition: `messages USING gin (${messageWordsVector('content')})`,
  },
];

/** Creates searchdesk's own schema (idempotent). */
export async function setupSchema(db: Db): Promise<void> {
  await db.query({ text: schemaSql(), values: [] }, 'db_setup');
}

/**
 * Creates the searchdesk_ indexes CONCURRENTLY (no write lock on a live database), skipping
 * valid ones and rebuilding any left invalid by an interrupted earlier run. Safe to re-run.
 */
export async function createSearchIndexes(
  db: Db,
  logger: Logger,
): Promise<Array<{ name: string; action: 'created' | 'exists' }>> {
  const done: Array<{ name: string; action: 'created' | 'exists' }> = [];
  for (const index of SEARCHDESK_INDEXES) {
    const state = await db.query<{ valid: boolean }>(
      {
        text: `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
               WHERE c.relname = $1 AND pg_table_is_visible(c.oid)`,
        values: [index.name],
      },
      'db_index_state',
    );
    if (state[0]?.valid) {
      done.push({ name: index.name, action: 'exists' });
      continue;
    }
    if (state[0]) await db.query({ text: `DROP INDEX CONCURRENTLY IF EXISTS ${index.name}`, values: [] }, 'db_index_drop');
    const started = performance.now();
    await db.query(
      { text: `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${index.name} ON ${index.definition}`, values: [] },
      'db_index_create',
    );
    logger.info(
      { event: 'db_index_created', index: index.name, ms: Math.round(performance.now() - started) },
      `created ${index.name}`,
    );
    done.push({ name: index.name, action: 'created' });
  }
  return done;
}
