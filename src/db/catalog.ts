/** Which of searchdesk's own indexes (`db indexes`) exist: a plan that walks one is worth trying only when it is there. */
import type { Db } from './db.js';

/** How long a look-up is trusted. */
export const INDEX_CATALOG_TTL_MS = 5 * 60_000;
type Entry = { at: number; names: Promise<ReadonlySet<string>> };
const cache = new WeakMap<Db, Entry>();

/** Names of the valid `searchdesk_` indexes, looked up at most once per TTL per database. */
export function searchdeskIndexes(db: Db, now = Date.now()): Promise<ReadonlySet<string>> {
  const hit = cache.get(db);
  if (hit && now - hit.at < INDEX_CATALOG_TTL_MS) return hit.names;
  const names = db
    .query<{ name: string }>(
      {
        text: `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
               WHERE c.relname LIKE 'searchdesk\\_%' AND i.indisvalid AND pg_table_is_visible(c.oid)`,
        values: [],
      },
      'index_catalog',
    )
    .then((rows): ReadonlySet<string> => new Set(rows.map((r) => r.name)));
  const entry = { at: now, names };
  cache.set(db, entry);
  // A failed look-up is not remembered: the next search asks again.
  names.catch(() => {
    if (cache.get(db) === entry) cache.delete(db);
  });
  return names;
}

/** searchdesk's index names the search plans look for (created by `searchdesk db indexes`, see admin.ts). */
export const INDEX = {
  conversationsCreated: 'searchdesk_conversations_account_created',
  conversationsStatusActivity: 'searchdesk_conversations_list_activity',
  conversationsActivity: 'searchdesk_conversations_account_activity',
  conversationsStatusPriority: 'searchdesk_conversations_account_status_priority',
  conversationsInboxAssignee: 'searchdesk_conversations_inbox_assignee_list',
  conversationsDisplayIdTrgm: 'searchdesk_conversations_display_id_trgm',
  articlesTextTrgm: 'searchdesk_articles_text_trgm',
  articlesTitleDescriptionTrgm: 'searchdesk_articles_title_description_trgm',
  articlesTitleTrgm: 'searchdesk_articles_title_trgm',
  articlesUpdated: 'searchdesk_articles_account_updated',
  messagesUpdatedAt: 'searchdesk_messages_updated_at_id',
  messagesSender: 'searchdesk_messages_sender_created',
  messagesInbox: 'searchdesk_messages_inbox_created',
  messagesWords: 'searchdesk_messages_words',
} as const;

/** The function `db indexes` creates beside a word index: a role that does not own the table reads its statistics by it. */
export const STATISTICS_FUNCTIONS: Readonly<Record<string, string>> = {
  [INDEX.messagesWords]: 'searchdesk_message_word_stats',
};
